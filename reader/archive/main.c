/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-archive: the ELF files a capture's samples hit, keyed by
 * build-id, in one tar (zstd-compressed for *.zst), so that the capture
 * can be read on a host without them (perfrec-report --symbols BUNDLE).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "archive.h"
#include "bundle.h"

static void usage(FILE *out)
{
	fputs("Usage: perfrec-archive [OPTION]... FILE|DIR... -o BUNDLE\n"
"Store the ELF files (and their debug files) that the samples of the\n"
"captures hit, as a .build-id tree in one tar, for perfrec-report --symbols.\n"
"\n"
"  -o, --output BUNDLE   the bundle to write (.tar, or .tar.zst / .zst:\n"
"                        zstd-compressed)\n"
"      --zstd            compress whatever BUNDLE's name\n"
"      --debug-only      only separate debug files (.build-id/xx/rest.debug);\n"
"                        binaries without one are left out and listed\n"
"      --debug-dir DIR   where the host's debug files are (repeatable;\n"
"                        default /usr/lib/debug)\n"
"  -v, --verbose         list every stored file\n"
"  -q, --quiet           no summary, no notes\n"
"  -h, --help            this help\n"
"  -V, --version         the version\n", out);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Writes the bundle to a temporary file next to it, renamed into place once whole. */
static int write_bundle(const struct archive_set *set, const char *output, int compress,
			int verbose)
{
	char *copy = strdup(output), *tmp = NULL;
	struct bundle_writer *w = NULL;
	FILE *out = NULL;
	int fd = -1, ret = -ENOMEM;
	struct stat st;

	if (!copy || asprintf(&tmp, "%s/.%s.XXXXXX", dirname(copy), basename((char *)output)) < 0) {
		tmp = NULL;
		fprintf(stderr, "perfrec-archive: out of memory\n");
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "perfrec-archive: %s: %s\n", output, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	{
		mode_t mask = umask(0);

		umask(mask);
		/* mkstemp makes it 0600; a bundle is read like any file. */
		if (fchmod(fd, 0666 & ~mask) < 0) {
			ret = -errno;
			fprintf(stderr, "perfrec-archive: %s: %s\n", tmp, strerror(errno));
			goto fail;
		}
	}
	out = fdopen(fd, "wb");
	if (out)
		fd = -1;	/* out closes it */
	if (!out || !(w = bundle_writer_new(out, compress ? ARCHIVE_ZSTD_LEVEL : 0))) {
		fprintf(stderr, "perfrec-archive: out of memory\n");
		goto fail;
	}
	for (size_t i = 0; i < set->count; i++) {
		const struct archive_entry *e = &set->entries[i];

		ret = bundle_writer_add(w, e->name, e->fd, e->size);
		if (ret < 0) {
			fprintf(stderr, "perfrec-archive: writing %s (%s from %s): %s\n", output,
				e->name, e->source, strerror(-ret));
			goto fail;
		}
		if (verbose)
			printf("  %-58s %10llu  %s\n", e->name, (unsigned long long)e->size, e->source);
	}
	ret = bundle_writer_finish(w);
	w = NULL;
	if (!ret && fflush(out) != 0)
		ret = -errno;
	if (!ret && fsync(fileno(out)) < 0)
		ret = -errno;
	if (ret < 0) {
		fprintf(stderr, "perfrec-archive: writing %s: %s\n", output, strerror(-ret));
		goto fail;
	}
	if (fstat(fileno(out), &st) < 0)
		st.st_size = 0;
	if (fclose(out) != 0) {
		out = NULL;
		ret = -errno;
		fprintf(stderr, "perfrec-archive: writing %s: %s\n", output, strerror(errno));
		goto fail;
	}
	out = NULL;
	if (rename(tmp, output) < 0) {
		ret = -errno;
		fprintf(stderr, "perfrec-archive: %s: %s\n", output, strerror(errno));
		goto fail;
	}
	printf("%s: %llu bytes (%s): %zu binar%s, %zu debug file%s, %zu kernel module%s, %llu bytes of files\n",
	       output, (unsigned long long)st.st_size, compress ? "tar, zstd" : "tar",
	       set->binaries, set->binaries == 1 ? "y" : "ies",
	       set->debug_files, set->debug_files == 1 ? "" : "s",
	       set->modules, set->modules == 1 ? "" : "s",
	       (unsigned long long)set->bytes);
	ret = 0;
	goto out;
fail:
	bundle_writer_abort(w);
	if (out)
		fclose(out);
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	if (ret == 0)
		ret = -EIO;
out:
	free(tmp);
	free(copy);
	return ret;
}

enum { OPT_ZSTD = 256, OPT_DEBUG_ONLY, OPT_DEBUG_DIR };

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "zstd", no_argument, NULL, OPT_ZSTD },
		{ "debug-only", no_argument, NULL, OPT_DEBUG_ONLY },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct archive_options o = { 0 };
	struct archive_set set = { 0 };
	struct prf_error error = { 0 };
	const char *output = NULL;
	int compress = 0, verbose = 0, c, status;

	while ((c = getopt_long(argc, argv, "o:vqhV", options, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case OPT_ZSTD: compress = 1; break;
		case OPT_DEBUG_ONLY: o.debug_only = 1; break;
		case OPT_DEBUG_DIR:
			if (o.debug_dir_count == ARCHIVE_MAX_DEBUG_DIRS) {
				fprintf(stderr, "perfrec-archive: --debug-dir: at most %d\n",
					ARCHIVE_MAX_DEBUG_DIRS);
				return 2;
			}
			o.debug_dirs[o.debug_dir_count++] = optarg;
			break;
		case 'v': verbose = 1; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("perfrec-archive %s\n", PACKAGE_VERSION); return 0;
		default:
			fprintf(stderr, "Try 'perfrec-archive --help' for more information.\n");
			return 2;
		}
	}
	if (!output || optind == argc) {
		fprintf(stderr, "perfrec-archive: %s\nTry 'perfrec-archive --help' for more information.\n",
			!output ? "no bundle: give -o BUNDLE" : "no input: give capture files or directories");
		return 2;
	}
	if (ends_with(output, ".zst"))
		compress = 1;
	if (!o.debug_dir_count)
		o.debug_dirs[o.debug_dir_count++] = "/usr/lib/debug";
	if (archive_collect(&o, argv + optind, argc - optind, &set, &error) < 0) {
		prf_text_make_safe(error.message);	/* it may name a capture's file */
		fprintf(stderr, "perfrec-archive: %s\n", error.message);
		return 1;
	}
	status = write_bundle(&set, output, compress, verbose && !o.quiet) < 0 ? 1 : 0;
	archive_set_free(&set);
	return status;
}
