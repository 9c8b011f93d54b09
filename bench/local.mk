include bench/format.mk
