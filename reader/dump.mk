bin_PROGRAMS += perfrec-dump
perfrec_dump_SOURCES = reader/perfrec-dump.c
perfrec_dump_LDADD = $(FORMAT_LIBS)
dist_man_MANS += doc/perfrec-dump.1
