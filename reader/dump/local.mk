# perfrec-dump: prints a perfrec file as text; the diagnostic tool.  It
# reads the format alone, so it shows what a file holds even where the
# reader's other libraries would refuse it.
noinst_LIBRARIES += reader/dump/libperfrec-dump.a
reader_dump_libperfrec_dump_a_SOURCES = \
	reader/dump/dump.h \
	reader/dump/field.c \
	reader/dump/header.c \
	reader/dump/record.c

bin_PROGRAMS += perfrec-dump
perfrec_dump_SOURCES = reader/dump/main.c
perfrec_dump_LDADD = reader/dump/libperfrec-dump.a $(FORMAT_LIBS)
dist_man_MANS += doc/perfrec-dump.1
