dist_man_MANS += doc/perfrec-format.5 doc/perfrecd.8
EXTRA_DIST += doc/HACKING.md
