include bench/format.mk
include bench/collector.mk
include bench/dwarf.mk
