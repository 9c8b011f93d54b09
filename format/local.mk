# libperfrec-format: an internal static library for now; its header is the
# contract, so it can be installed as a shared library once the ABI settles.
noinst_LIBRARIES += format/libperfrec-format.a
# The public headers, which the libraries above include (format.h, the
# umbrella, includes the rest); the internal ones are among the SOURCES.
noinst_HEADERS += format/format.h format/perfrec-format.h format/perfdata-format.h format/format-info.h \
	format/format-writer.h format/format-reader.h format/format-decode.h
format_libperfrec_format_a_SOURCES = \
	format/internal.h \
	format/compact.h \
	format/crc32c.c \
	format/error.c \
	format/info.c \
	format/writer.c \
	format/compact-write.c \
	format/compact-read.c \
	format/reader.c \
	format/perfdata-reader.h \
	format/perfdata-read.c \
	format/perfdata-pipe.c \
	format/perfdata-data.c \
	format/read-ahead.c \
	format/decode.c \
	format/stack-trim.c \
	format/encode.c \
	format/tracing.c \
	format/tracepoint-fields.c \
	format/names.c
format_libperfrec_format_a_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)

FORMAT_LIBS = format/libperfrec-format.a $(COMMON_LIBS) $(ZSTD_LIBS)
