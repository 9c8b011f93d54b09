# libperfrec-format: an internal static library for now; its header is the
# contract, so it can be installed as a shared library once the ABI settles.
noinst_LIBRARIES += format/libperfrec-format.a
format_libperfrec_format_a_SOURCES = \
	format/perfrec-format.h \
	format/internal.h \
	format/crc32c.c \
	format/host.c \
	format/vdso.c \
	format/kallsyms-line.c \
	format/writer.c \
	format/compact-write.c \
	format/compact-read.c \
	format/reader.c \
	format/read-ahead.c \
	format/decode.c \
	format/stack-trim.c \
	format/encode.c \
	format/names.c \
	format/open.c
format_libperfrec_format_a_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)

FORMAT_LIBS = format/libperfrec-format.a $(ZSTD_LIBS)
