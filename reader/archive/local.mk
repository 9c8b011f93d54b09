# Bundles: a ustar tree of ELF and debug files by build-id, zstd or not.
# perfrec-archive writes them; perfrec-report --symbols reads them.
noinst_LIBRARIES += reader/archive/libperfrec-bundle.a
reader_archive_libperfrec_bundle_a_SOURCES = \
	reader/archive/bundle.h reader/archive/tar-format.h \
	reader/archive/tar-read.c reader/archive/tar-write.c reader/archive/scratch.c
reader_archive_libperfrec_bundle_a_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)

BUNDLE_CPPFLAGS = -I$(top_srcdir)/reader/archive
BUNDLE_LIBS = reader/archive/libperfrec-bundle.a $(FORMAT_LIBS)

# Which files a capture needs, found on this host by build-id.
noinst_LIBRARIES += reader/archive/libperfrec-archive.a
reader_archive_libperfrec_archive_a_SOURCES = \
	reader/archive/archive.h reader/archive/collect.c
reader_archive_libperfrec_archive_a_CPPFLAGS = $(AM_CPPFLAGS) $(UNWIND_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS)
reader_archive_libperfrec_archive_a_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)

# No debuginfod: it runs on the production host, where the files are.
bin_PROGRAMS += perfrec-archive
perfrec_archive_SOURCES = reader/archive/main.c
perfrec_archive_CPPFLAGS = $(AM_CPPFLAGS) $(BUNDLE_CPPFLAGS)
perfrec_archive_LDADD = reader/archive/libperfrec-archive.a $(BUNDLE_LIBS) $(UNWIND_LIBS)
dist_man_MANS += doc/perfrec-archive.1
