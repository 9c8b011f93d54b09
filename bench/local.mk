include bench/format.mk
include bench/collector.mk
