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

static int read_error(struct prf_error *error)
{
	int err = errno ? errno : EIO;

	return prf_set_error(error, -err, "%s", strerror(err));
}

/*
 * Reads exactly size bytes: 0, 1 if the input ends first, or a negative
 * errno with the cause in error.
 */
static int input_read(struct bundle_input *r, void *data, size_t size, struct prf_error *error)
{
	size_t got = 0;

	if (!r->zstd) {
		got = fread(data, 1, size, r->file);
		if (got == size)
			return 0;
		if (ferror(r->file))
			return read_error(error);
		return 1;
	}
	while (got < size) {
		ZSTD_outBuffer out = { (char *)data + got, size - got, 0 };
		size_t ret;

		if (r->in_buffer.pos == r->in_buffer.size) {
			if (r->eof)
				return 1;
			r->in_buffer.size = fread(r->in, 1, r->in_size, r->file);
			r->in_buffer.pos = 0;
			if (ferror(r->file))
				return read_error(error);
			if (!r->in_buffer.size) {
				r->eof = 1;
				continue;
			}
		}
		ret = ZSTD_decompressStream(r->zstd, &out, &r->in_buffer);
		if (ZSTD_isError(ret))
			return prf_set_error(error, -EINVAL, "zstd: %s", ZSTD_getErrorName(ret));
		got += out.pos;
	}
	return 0;
}

/* A member's bytes, which the header promised: their end is a truncation. */
static int member_read(struct bundle_input *r, void *data, size_t size, const char *name,
		       uint64_t member_size, struct prf_error *error)
{
	int ret = input_read(r, data, size, error);

	if (ret > 0)
		return prf_set_error(error, -EINVAL, "member %s: truncated (size says %llu bytes)",
				     name, (unsigned long long)member_size);
	return ret;
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

static int extract(struct bundle_input *r, const char *dir, struct prf_error *error)
{
	struct tar_header h;
	char path[4096], name[101];
	unsigned char buf[65536];
	unsigned members = 0;
	uint64_t size = 0, total = 0;

	for (;;) {
		uint64_t left;
		int kind, fd, ret;

		ret = input_read(r, &h, sizeof(h), error);
		if (ret < 0)
			return ret;
		if (ret)
			return prf_set_error(error, -EINVAL, "truncated tar (no end marker)");
		if (!memcmp(&h, (char[TAR_BLOCK]){ 0 }, TAR_BLOCK))
			break;	/* end of archive; a second zero block may follow */
		if (!header_sum_ok(&h) || memcmp(h.magic, "ustar", 5))
			return prf_set_error(error, -EINVAL,
					     "not a ustar archive (bad header after %u member%s)",
					     members, members == 1 ? "" : "s");
		if (h.prefix[0])
			return prf_set_error(error, -EINVAL,
					     "member with a path prefix: not a perfrec bundle");
		memcpy(name, h.name, 100);
		name[100] = '\0';
		kind = name_kind(name);
		if (parse_octal(h.size, sizeof(h.size), &size) < 0 || size > TAR_MAX_FILE_SIZE)
			return prf_set_error(error, -EINVAL, "member %.100s: bad size", name);
		/* Checked before a byte of it is written. */
		if (members == TAR_MAX_MEMBERS || size > TAR_MAX_TOTAL_SIZE - total)
			return prf_set_error(error, -EFBIG,
					     "more than %u members or %llu GiB: not a perfrec bundle",
					     TAR_MAX_MEMBERS, TAR_MAX_TOTAL_SIZE >> 30);
		if (kind == 2 && h.typeflag == '5' && size == 0)
			continue;
		if (kind != 1 || (h.typeflag != '0' && h.typeflag != '\0')) {
			/* The name is untrusted: show only its printable part. */
			for (char *c = name; *c; c++)
				if (*c < 0x20 || *c > 0x7e)
					*c = '?';
			return prf_set_error(error, -EINVAL,
					     "member '%s' (type %c): only regular files under .build-id/xx/ are allowed",
					     name, h.typeflag >= 0x20 && h.typeflag <= 0x7e ? h.typeflag : '?');
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
			if (errno == EEXIST)
				return prf_set_error(error, -EINVAL, "member %s is in the bundle twice",
						     name);
			goto io_error;
		}
		members++;
		total += size;
		for (left = size; left;) {
			size_t want = left < sizeof(buf) ? (size_t)left : sizeof(buf);

			ret = member_read(r, buf, want, name, size, error);
			if (ret) {
				close(fd);
				return ret;
			}
			if (write(fd, buf, want) != (ssize_t)want) {
				close(fd);
				goto io_error;
			}
			left -= want;
		}
		/* The padding to the next block. */
		ret = size % TAR_BLOCK ?
			member_read(r, buf, TAR_BLOCK - size % TAR_BLOCK, name, size, error) : 0;
		if (ret) {
			close(fd);
			return ret;
		}
		if (close(fd) < 0)
			goto io_error;
	}
	return 0;
io_error:
	return prf_set_error(error, -EIO, "%s: %s", path, strerror(errno));
}

int bundle_extract(const char *path, const char *dir, struct prf_error *error)
{
	static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	struct bundle_input r = { 0 };
	unsigned char magic[4];
	int fd, ret;

	fd = prf_open_regular(path);
	if (fd < 0)
		return prf_set_error(error, fd, "%s",
				     fd == -EINVAL ? "not a regular file" : strerror(-fd));
	r.file = fdopen(fd, "rb");
	if (!r.file) {
		ret = -errno;
		close(fd);
		return prf_set_error(error, ret, "%s", strerror(-ret));
	}
	if (fread(magic, 1, 4, r.file) == 4 && !memcmp(magic, zstd_magic, 4)) {
		r.zstd = ZSTD_createDStream();
		r.in_size = ZSTD_DStreamInSize();
		r.in = malloc(r.in_size);
		if (!r.zstd || !r.in || ZSTD_isError(ZSTD_initDStream(r.zstd))) {
			ret = prf_set_error(error, -ENOMEM, "out of memory");
			goto out;
		}
		r.in_buffer.src = r.in;
	}
	rewind(r.file);
	ret = extract(&r, dir, error);
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
