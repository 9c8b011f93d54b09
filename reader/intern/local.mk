# Interned strings: equal strings are equal pointers across the reader.
noinst_LIBRARIES += reader/intern/libperfrec-intern.a
reader_intern_libperfrec_intern_a_SOURCES = reader/intern/intern.c reader/intern/intern.h

INTERN_CPPFLAGS = -I$(top_srcdir)/reader/intern
INTERN_LIBS = reader/intern/libperfrec-intern.a $(COMMON_LIBS)
