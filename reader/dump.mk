# perfrec-dump: prints a perfrec file as text; the diagnostic tool.
bin_PROGRAMS += perfrec-dump
perfrec_dump_SOURCES = \
	reader/perfrec-dump.c \
	reader/dump.h \
	reader/dump-field.c \
	reader/dump-header.c \
	reader/dump-record.c
perfrec_dump_LDADD = $(FORMAT_LIBS)
dist_man_MANS += doc/perfrec-dump.1
