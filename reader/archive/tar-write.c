/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A ustar writer: 512-byte header, the data padded to 512, two zero
 * blocks at the end.  Names are short (.build-id/xx/38 hex digits.debug),
 * so no pax extension is needed; longer names are refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "bundle.h"
#include "tar-format.h"

struct bundle_writer {
	FILE *out;
	ZSTD_CStream *zstd;
	void *zbuf;
	size_t zbuf_size;
};

struct bundle_writer *bundle_writer_new(FILE *out, int compress)
{
	struct bundle_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->out = out;
	if (compress) {
		w->zstd = ZSTD_createCStream();
		w->zbuf_size = ZSTD_CStreamOutSize();
		w->zbuf = malloc(w->zbuf_size);
		if (!w->zstd || !w->zbuf ||
		    ZSTD_isError(ZSTD_initCStream(w->zstd, compress))) {
			bundle_writer_abort(w);
			return NULL;
		}
	}
	return w;
}

static int put(struct bundle_writer *w, const void *data, size_t size, ZSTD_EndDirective end)
{
	if (!w->zstd) {
		if (size && fwrite(data, 1, size, w->out) != size)
			return errno ? -errno : -EIO;
		return 0;
	}
	ZSTD_inBuffer in = { data, size, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { w->zbuf, w->zbuf_size, 0 };

		left = ZSTD_compressStream2(w->zstd, &out, &in, end);
		if (ZSTD_isError(left))
			return -EIO;
		if (out.pos && fwrite(w->zbuf, 1, out.pos, w->out) != out.pos)
			return errno ? -errno : -EIO;
	} while (end == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

static void octal(char *field, size_t size, uint64_t value)
{
	/* size - 1 digits and a NUL, as ustar wants. */
	field[size - 1] = '\0';
	for (size_t i = size - 1; i-- > 0; value >>= 3)
		field[i] = (char)('0' + (value & 7));
}

int bundle_writer_add(struct bundle_writer *w, const char *name, int fd, uint64_t size)
{
	struct tar_header h;
	unsigned sum = 0;
	char buf[65536];
	uint64_t done = 0;
	int ret;

	if (strlen(name) >= sizeof(h.name))
		return -ENAMETOOLONG;
	if (size > TAR_MAX_FILE_SIZE)
		return -EFBIG;
	memset(&h, 0, sizeof(h));
	memcpy(h.name, name, strlen(name));
	octal(h.mode, sizeof(h.mode), 0644);
	octal(h.uid, sizeof(h.uid), 0);
	octal(h.gid, sizeof(h.gid), 0);
	octal(h.size, sizeof(h.size), size);
	octal(h.mtime, sizeof(h.mtime), 0);
	h.typeflag = '0';
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	memset(h.checksum, ' ', sizeof(h.checksum));
	for (size_t i = 0; i < sizeof(h); i++)
		sum += ((unsigned char *)&h)[i];
	octal(h.checksum, 7, sum);
	h.checksum[7] = ' ';
	ret = put(w, &h, sizeof(h), ZSTD_e_continue);
	while (!ret && done < size) {
		size_t want = size - done < sizeof(buf) ? (size_t)(size - done) : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)done);

		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;	/* the file shrank while read */
		ret = put(w, buf, (size_t)n, ZSTD_e_continue);
		done += (uint64_t)n;
	}
	if (!ret && size % TAR_BLOCK) {
		memset(buf, 0, TAR_BLOCK);
		ret = put(w, buf, TAR_BLOCK - size % TAR_BLOCK, ZSTD_e_continue);
	}
	return ret;
}

int bundle_writer_finish(struct bundle_writer *w)
{
	static const char zeros[2 * TAR_BLOCK];
	int ret = put(w, zeros, sizeof(zeros), ZSTD_e_continue);

	if (!ret && w->zstd)
		ret = put(w, NULL, 0, ZSTD_e_end);
	bundle_writer_abort(w);
	return ret;
}

void bundle_writer_abort(struct bundle_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCStream(w->zstd);
	free(w->zbuf);
	free(w);
}
