include reader/dump.mk

bin_PROGRAMS += perfrec-report
perfrec_report_SOURCES = \
	reader/report.c reader/report.h \
	reader/session.c reader/session.h \
	reader/unwind.c reader/unwind.h reader/unwind-rules.c reader/unwind-rules.h \
	reader/aggregate.c reader/aggregate.h \
	reader/intern.c reader/intern.h \
	reader/tar.h reader/tar-format.h reader/tar-read.c \
	$(SYMBOLIZE_SOURCES) \
	$(VIEW_SOURCES)
perfrec_report_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) $(ZSTD_CFLAGS) $(DEBUGINFOD_CFLAGS)
perfrec_report_LDADD = $(FORMAT_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) $(DEBUGINFOD_LIBS) $(IBERTY_LIBS)
dist_man_MANS += doc/perfrec-report.1

# Shared with the unit tests of these parts.
SYMBOLIZE_SOURCES = reader/symbolize.c reader/symbolize.h reader/symbolize-internal.h \
	reader/symbolize-elf.c reader/symbolize-symtab.c reader/symbolize-scopes.c \
	reader/symbolize-dwarf.c reader/symbolize-kallsyms.c reader/symbolize-demangle.c \
	reader/symbolize-debuginfod.c reader/symbolize-uncompress.c
VIEW_SOURCES = reader/view-common.c reader/view-flat.c reader/view-tree.c \
	reader/view-folded.c reader/view-json.c

# perfrec-archive: the ELF files a capture needs, in one bundle.
bin_PROGRAMS += perfrec-archive
perfrec_archive_SOURCES = \
	reader/archive.c reader/archive.h reader/archive-collect.c \
	reader/tar.h reader/tar-format.h reader/tar-write.c \
	reader/session.c reader/session.h \
	reader/unwind.c reader/unwind.h reader/unwind-rules.c reader/unwind-rules.h \
	reader/intern.c reader/intern.h \
	$(SYMBOLIZE_SOURCES)
perfrec_archive_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS) $(ZSTD_CFLAGS) $(DEBUGINFOD_CFLAGS)
perfrec_archive_LDADD = $(FORMAT_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) $(DEBUGINFOD_LIBS) $(IBERTY_LIBS)
dist_man_MANS += doc/perfrec-archive.1
