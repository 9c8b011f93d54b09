dist_man_MANS += doc/perfrec-format.5
