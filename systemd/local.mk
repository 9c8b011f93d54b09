# perfrecd under systemd: the unit, generated because it names the
# installed binary, and the default configuration.  No tmpfiles.d or
# sysusers.d snippets: StateDirectory= creates /var/lib/perfrec and the
# service runs as root with bounded capabilities.
#
# The unit directory follows $(prefix) so that `make distcheck` and
# unprivileged installs work; packagers override it, e.g.
#   make install systemdsystemunitdir=$(pkg-config --variable=systemdsystemunitdir systemd)
systemdsystemunitdir = $(prefix)/lib/systemd/system
systemdsystemunit_DATA = systemd/perfrecd.service systemd/perfrec-push.service

sysconf_perfrecdir = $(sysconfdir)/perfrec
dist_sysconf_perfrec_DATA = systemd/perfrecd.conf systemd/perfrec-push.conf

EXTRA_DIST += systemd/perfrecd.service.in systemd/perfrec-push.service.in
CLEANFILES += systemd/perfrecd.service systemd/perfrec-push.service

# Substituted by make, not configure, so that `make prefix=...` is honoured
# (the Autoconf manual's "Installation Directory Variables").
systemd_edit = sed -e 's|@sbindir[@]|$(sbindir)|g' -e 's|@sysconfdir[@]|$(sysconfdir)|g'

systemd/perfrecd.service: $(srcdir)/systemd/perfrecd.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && rm -f $@ $@.tmp && \
	$(systemd_edit) $(srcdir)/systemd/perfrecd.service.in >$@.tmp && \
	mv $@.tmp $@

systemd/perfrec-push.service: $(srcdir)/systemd/perfrec-push.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && rm -f $@ $@.tmp && \
	$(systemd_edit) $(srcdir)/systemd/perfrec-push.service.in >$@.tmp && \
	mv $@.tmp $@
