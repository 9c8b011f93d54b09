# The user stacks of dwarf captures: CFI rows per pc, libdwfl behind them.
noinst_LIBRARIES += reader/unwind/libperfrec-unwind.a
reader_unwind_libperfrec_unwind_a_SOURCES = \
	reader/unwind/unwind.h reader/unwind/unwind.c \
	reader/unwind/rules.h reader/unwind/rules.c
reader_unwind_libperfrec_unwind_a_CPPFLAGS = $(AM_CPPFLAGS) $(SESSION_CPPFLAGS) \
	$(SYMBOLIZE_CPPFLAGS)
reader_unwind_libperfrec_unwind_a_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)

UNWIND_CPPFLAGS = -I$(top_srcdir)/reader/unwind $(SESSION_CPPFLAGS)
UNWIND_LIBS = reader/unwind/libperfrec-unwind.a $(SESSION_LIBS)
