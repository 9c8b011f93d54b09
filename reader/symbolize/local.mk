# Build-id -> ELF and debug files -> names, lines, inlined frames; the
# kernel from kallsyms text.  Knows nothing of captures: below it only
# common/.
noinst_LIBRARIES += reader/symbolize/libperfrec-symbolize.a
reader_symbolize_libperfrec_symbolize_a_SOURCES = \
	reader/symbolize/symbolize.h reader/symbolize/symbolize-internal.h \
	reader/symbolize/symbolize.c \
	reader/symbolize/elf.c \
	reader/symbolize/uncompress.c \
	reader/symbolize/symtab.c \
	reader/symbolize/scopes.c \
	reader/symbolize/dwarf.c \
	reader/symbolize/cfi-extent.c \
	reader/symbolize/kallsyms.c \
	reader/symbolize/jit.c \
	reader/symbolize/demangle.c
reader_symbolize_libperfrec_symbolize_a_CPPFLAGS = $(AM_CPPFLAGS) $(INTERN_CPPFLAGS)
reader_symbolize_libperfrec_symbolize_a_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)

SYMBOLIZE_CPPFLAGS = -I$(top_srcdir)/reader/symbolize
SYMBOLIZE_LIBS = reader/symbolize/libperfrec-symbolize.a $(INTERN_LIBS) $(COMMON_LIBS) \
	$(LIBDW_LIBS) $(LIBELF_LIBS) $(IBERTY_LIBS)

# debuginfod servers as a symbolizer_source: a library of its own, so that
# only the programs that ask servers carry it.  It dlopen()s libdebuginfod
# (and so libcurl) at the first query: nothing of it is linked.
noinst_LIBRARIES += reader/symbolize/libperfrec-debuginfod.a
reader_symbolize_libperfrec_debuginfod_a_SOURCES = \
	reader/symbolize/debuginfod.h reader/symbolize/debuginfod.c
reader_symbolize_libperfrec_debuginfod_a_CPPFLAGS = $(AM_CPPFLAGS) $(SYMBOLIZE_CPPFLAGS)
reader_symbolize_libperfrec_debuginfod_a_CFLAGS = $(AM_CFLAGS) $(DEBUGINFOD_CFLAGS)

DEBUGINFOD_SOURCE_LIBS = reader/symbolize/libperfrec-debuginfod.a $(COMMON_LIBS)
