# perfrecd.service under a real systemd: tests/test-service.sh boots a
# minimal Debian root with systemd-nspawn, installs this tree into it and
# drives the unit with systemctl (the script says what it checks).
#
# The root is made once with debootstrap and kept: in $PERFREC_TEST_ROOT
# (from the environment, or given to configure), else in tests/service-root,
# which `make clean` keeps and `make distclean` removes.  distcheck's build
# uses this tree's, rather than making one of its own.
TESTS += tests/test-service.sh
EXTRA_DIST += tests/test-service.sh
AM_TESTS_ENVIRONMENT += \
	PERFREC_TEST_ROOT=$${PERFREC_TEST_ROOT:-'$(PERFREC_TEST_ROOT_CONFIGURED)'}; export PERFREC_TEST_ROOT;
AM_DISTCHECK_CONFIGURE_FLAGS = \
	PERFREC_TEST_ROOT="$${PERFREC_TEST_ROOT:-$(abs_top_builddir)/tests/service-root}"

distclean-local: distclean-local-service
distclean-local-service:
	-rm -rf --one-file-system tests/service-root
.PHONY: distclean-local-service
