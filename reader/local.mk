include reader/dump.mk
