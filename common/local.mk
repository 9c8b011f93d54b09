# libperfrec-common: the bottom layer, libc alone.  Growth, the hash
# index, hashes, the arena, varints, clocks, opening recorded paths,
# host facts, mountinfo's lines, the vDSO, the kallsyms table and text made safe to print:
# each rule once.
noinst_LIBRARIES += common/libperfrec-common.a
noinst_HEADERS += common/common.h
common_libperfrec_common_a_SOURCES = \
	common/mem.c \
	common/index.c \
	common/clock.c \
	common/open.c \
	common/host.c \
	common/vdso.c \
	common/kallsyms.c \
	common/text.c \
	common/mountinfo.c

COMMON_LIBS = common/libperfrec-common.a
