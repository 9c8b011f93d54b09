# The reader: a library per folder, each compiled once and linked by the
# programs and the tests.  Each library's CPPFLAGS name the folders of the
# headers it may include, so the one-way order below is the build's too:
#
#   format/  intern/            (files; interned strings)
#       ^      ^
#     symbolize/  <- debuginfod (a file source, linked only where servers are asked)
#       ^
#     session/                  (replay of the captures)
#       ^
#     unwind/                   (dwarf user stacks)
#       ^
#     archive/  report/         (perfrec-archive and the bundles report reads;
#                 ^    ^         the profile)
#  report/views/  report/pprof/ (text views; pprof, which push/ uses too)
#       ^
#  report/flame/                (flame graphs; perfrec-report over them all)
#
#   dump/ reads format/ alone (perfrec-dump).
#
# For each library X: X_CPPFLAGS finds its public header (and the headers
# that one includes), X_LIBS links it and everything it needs, in order.
include reader/intern/local.mk
include reader/symbolize/local.mk
include reader/session/local.mk
include reader/unwind/local.mk
include reader/archive/local.mk
include reader/report/local.mk
include reader/dump/local.mk
