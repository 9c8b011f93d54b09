/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Extracting a bundle, which comes from another host: only regular files
 * named .build-id/xx/<hex>[.debug] (directories of that shape are
 * skipped), each at most TAR_MAX_FILE_SIZE, at most TAR_MAX_MEMBERS of
 * them and TAR_MAX_TOTAL_SIZE in all, checksums checked, no links,
 * no "..", no absolute names, no member twice; a truncated archive is an
 * error.  A zstd-compressed bundle is recognised by its magic.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "bundle.h"
#include "common.h"
#include "tar-format.h"

struct bundle_input {
	FILE *file;
	ZSTD_DStream *zstd;
	unsigned char *in;
	size_t in_size;
	ZSTD_inBuffer in_buffer;
	int eof;
};

/* Reads exactly size bytes; 1 on a clean end before any byte, -1 on a short read. */
static int input_read(struct bundle_input *r, void *data, size_t size, char *why, size_t why_size)
{
	size_t got = 0;

	if (!r->zstd) {
		got = fread(data, 1, size, r->file);
		if (got == size)
			return 0;
		if (ferror(r->file)) {
			snprintf(why, why_size, "%s", strerror(errno ? errno : EIO));
			return -1;
		}
		return got ? -1 : 1;
	}
	while (got < size) {
		ZSTD_outBuffer out = { (char *)data + got, size - got, 0 };
		size_t ret;

		if (r->in_buffer.pos == r->in_buffer.size) {
			if (r->eof)
				return got ? -1 : 1;
			r->in_buffer.size = fread(r->in, 1, r->in_size, r->file);
			r->in_buffer.pos = 0;
			if (ferror(r->file)) {
				snprintf(why, why_size, "%s", strerror(errno ? errno : EIO));
				return -1;
			}
			if (!r->in_buffer.size) {
				r->eof = 1;
				continue;
			}
		}
		ret = ZSTD_decompressStream(r->zstd, &out, &r->in_buffer);
		if (ZSTD_isError(ret)) {
			snprintf(why, why_size, "zstd: %s", ZSTD_getErrorName(ret));
			return -2;
		}
		got += out.pos;
	}
	return 0;
}

static int parse_octal(const char *field, size_t size, uint64_t *value)
{
	size_t i = 0;
	uint64_t v = 0;

	while (i < size && field[i] == ' ')
		i++;
	if (i == size || field[i] < '0' || field[i] > '7')
		return -1;
	for (; i < size && field[i] >= '0' && field[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (uint64_t)(field[i] - '0');
	}
	for (; i < size; i++)
		if (field[i] != ' ' && field[i] != '\0')
			return -1;
	*value = v;
	return 0;
}

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/*
 * 2: ".build-id/" or ".build-id/xx/" (a directory), 1: a member's name,
 * 0: anything else.
 */
static int name_kind(const char *name)
{
	size_t n = strlen(name), rest;

	if (!strcmp(name, ".build-id/") || !strcmp(name, ".build-id"))
		return 2;
	if (strncmp(name, ".build-id/", 10) || n < 12 || !is_hex(name + 10, 2))
		return 0;
	if (n == 12 || (n == 13 && name[12] == '/'))
		return 2;
	if (name[12] != '/')
		return 0;
	rest = n - 13;
	if (rest > 6 && !strcmp(name + n - 6, ".debug"))
		rest -= 6;
	/* The kernel records at most 20 bytes of build-id: 38 digits after xx. */
	return rest >= 2 && rest <= 38 && (13 + rest == n || name[13 + rest] == '.') &&
	       is_hex(name + 13, rest);
}

static int header_sum_ok(const struct tar_header *h)
{
	const unsigned char *b = (const unsigned char *)h;
	uint64_t want;
	unsigned sum = 0;

	if (parse_octal(h->checksum, sizeof(h->checksum), &want) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(*h); i++)
		sum += (i >= 148 && i < 156) ? ' ' : b[i];
	return sum == want;
}

static int extract(struct bundle_input *r, const char *dir, char *why, size_t why_size)
{
	struct tar_header h;
	char path[4096], name[101];
	unsigned char buf[65536];
	unsigned members = 0;
	uint64_t size = 0, total = 0;

	for (;;) {
		uint64_t left;
		int kind, fd, ret;

		ret = input_read(r, &h, sizeof(h), why, why_size);
		if (ret == 1 || (ret == -1 && !why[0])) {
			snprintf(why, why_size, "truncated tar (no end marker)");
			return -EINVAL;
		}
		if (ret)
			return -EINVAL;
		if (!memcmp(&h, (char[TAR_BLOCK]){ 0 }, TAR_BLOCK))
			break;	/* end of archive; a second zero block may follow */
		if (!header_sum_ok(&h) || memcmp(h.magic, "ustar", 5)) {
			snprintf(why, why_size, "not a ustar archive (bad header after %u member%s)",
				 members, members == 1 ? "" : "s");
			return -EINVAL;
		}
		if (h.prefix[0]) {
			snprintf(why, why_size, "member with a path prefix: not a perfrec bundle");
			return -EINVAL;
		}
		memcpy(name, h.name, 100);
		name[100] = '\0';
		kind = name_kind(name);
		if (parse_octal(h.size, sizeof(h.size), &size) < 0 || size > TAR_MAX_FILE_SIZE) {
			snprintf(why, why_size, "member %.100s: bad size", name);
			return -EINVAL;
		}
		/* Checked before a byte of it is written. */
		if (members == TAR_MAX_MEMBERS || size > TAR_MAX_TOTAL_SIZE - total) {
			snprintf(why, why_size, "more than %u members or %llu GiB: not a perfrec bundle",
				 TAR_MAX_MEMBERS, TAR_MAX_TOTAL_SIZE >> 30);
			return -EFBIG;
		}
		if (kind == 2 && h.typeflag == '5' && size == 0)
			continue;
		if (kind != 1 || (h.typeflag != '0' && h.typeflag != '\0')) {
			/* The name is untrusted: show only its printable part. */
			for (char *c = name; *c; c++)
				if (*c < 0x20 || *c > 0x7e)
					*c = '?';
			snprintf(why, why_size, "member '%s' (type %c): only regular files under .build-id/xx/ are allowed",
				 name, h.typeflag >= 0x20 && h.typeflag <= 0x7e ? h.typeflag : '?');
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "%s/.build-id", dir);
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			goto io_error;
		snprintf(path, sizeof(path), "%s/.build-id/%.2s", dir, name + 10);
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			goto io_error;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			if (errno == EEXIST) {
				snprintf(why, why_size, "member %s is in the bundle twice", name);
				return -EINVAL;
			}
			goto io_error;
		}
		members++;
		total += size;
		for (left = size; left;) {
			size_t want = left < sizeof(buf) ? (size_t)left : sizeof(buf);

			ret = input_read(r, buf, want, why, why_size);
			if (ret) {
				close(fd);
				goto truncated;
			}
			if (write(fd, buf, want) != (ssize_t)want) {
				close(fd);
				goto io_error;
			}
			left -= want;
		}
		if (size % TAR_BLOCK &&
		    input_read(r, buf, TAR_BLOCK - size % TAR_BLOCK, why, why_size)) {
			close(fd);
			goto truncated;
		}
		if (close(fd) < 0)
			goto io_error;
	}
	return 0;
truncated:
	if (!why[0])
		snprintf(why, why_size, "member %s: truncated (size says %llu bytes)",
			 name, (unsigned long long)size);
	return -EINVAL;
io_error:
	snprintf(why, why_size, "%s: %s", path, strerror(errno));
	return -EIO;
}

int bundle_extract(const char *path, const char *dir, char *why, size_t why_size)
{
	static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	struct bundle_input r = { 0 };
	unsigned char magic[4];
	int fd, ret;

	why[0] = '\0';
	fd = prf_open_regular(path);
	if (fd < 0) {
		snprintf(why, why_size, "%s", fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return fd;
	}
	r.file = fdopen(fd, "rb");
	if (!r.file) {
		ret = -errno;
		close(fd);
		snprintf(why, why_size, "%s", strerror(-ret));
		return ret;
	}
	if (fread(magic, 1, 4, r.file) == 4 && !memcmp(magic, zstd_magic, 4)) {
		r.zstd = ZSTD_createDStream();
		r.in_size = ZSTD_DStreamInSize();
		r.in = malloc(r.in_size);
		if (!r.zstd || !r.in || ZSTD_isError(ZSTD_initDStream(r.zstd))) {
			snprintf(why, why_size, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		r.in_buffer.src = r.in;
	}
	rewind(r.file);
	ret = extract(&r, dir, why, why_size);
out:
	ZSTD_freeDStream(r.zstd);
	free(r.in);
	fclose(r.file);
	return ret;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

void bundle_remove_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
