/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The protobuf wire format, as much of it as profile.proto needs: varints
 * (wire type 0) and length-delimited fields (wire type 2), the latter for
 * strings, nested messages and packed repeated numbers.  Then gzip, as
 * pprof and the profile servers expect the file, with zlib.
 *
 * A nested message is encoded into a buffer of its own and copied into its
 * parent with its length in front: the length must be known before the
 * bytes, and profile.proto's messages are small (a Sample is its stack),
 * so this costs less than computing sizes in a first pass.  The top-level
 * Profile has no length, so its fields go to the gzip stream one by one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "pprof-internal.h"

/* ---- buffers ----------------------------------------------------------- */

/* Room for size more bytes; 0, or -ENOMEM remembered in the buffer. */
static int reserve(struct pprof_buffer *b, size_t size)
{
	size_t capacity;
	uint8_t *grown;

	if (b->error)
		return b->error;
	if (b->capacity - b->size >= size)
		return 0;
	capacity = b->capacity ? b->capacity : 256;
	while (capacity - b->size < size) {
		if (capacity > SIZE_MAX / 2)
			return b->error = -ENOMEM;
		capacity *= 2;
	}
	grown = realloc(b->data, capacity);
	if (!grown)
		return b->error = -ENOMEM;
	b->data = grown;
	b->capacity = capacity;
	return 0;
}

void pprof_buffer_reset(struct pprof_buffer *b)
{
	b->size = 0;
	b->error = 0;
}

void pprof_buffer_free(struct pprof_buffer *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* Seven bits a byte, low bits first, the high bit set on all but the last. */
static size_t varint(uint8_t *out, uint64_t value)
{
	size_t n = 0;

	while (value >= 0x80) {
		out[n++] = (uint8_t)(value | 0x80);
		value >>= 7;
	}
	out[n++] = (uint8_t)value;
	return n;
}

#define VARINT_MAX 10

static void put_varint(struct pprof_buffer *b, uint64_t value)
{
	if (reserve(b, VARINT_MAX) == 0)
		b->size += varint(b->data + b->size, value);
}

static void put_tag(struct pprof_buffer *b, uint32_t field, unsigned wire_type)
{
	put_varint(b, (uint64_t)field << 3 | wire_type);
}

void pprof_put_uint(struct pprof_buffer *b, uint32_t field, uint64_t value)
{
	if (!value)
		return;
	put_tag(b, field, 0);
	put_varint(b, value);
}

/* int64 is a varint of the two's complement: a negative one takes 10 bytes. */
void pprof_put_int(struct pprof_buffer *b, uint32_t field, int64_t value)
{
	pprof_put_uint(b, field, (uint64_t)value);
}

void pprof_put_bytes(struct pprof_buffer *b, uint32_t field, const void *data, size_t size)
{
	put_tag(b, field, 2);
	put_varint(b, size);
	if (size && reserve(b, size) == 0) {
		memcpy(b->data + b->size, data, size);
		b->size += size;
	}
}

void pprof_put_message(struct pprof_buffer *b, uint32_t field,
		       const struct pprof_buffer *message)
{
	if (message->error) {
		if (!b->error)
			b->error = message->error;
		return;
	}
	pprof_put_bytes(b, field, message->data, message->size);
}

/* A packed repeated field of 64- or 32-bit values (wide: 8 or 4 bytes each). */
static void put_packed(struct pprof_buffer *b, uint32_t field, const void *values,
		       size_t count, size_t wide)
{
	size_t length = 0;
	uint8_t scratch[VARINT_MAX];

#define VALUE(i) (wide == 8 ? ((const uint64_t *)values)[i] : ((const uint32_t *)values)[i])
	if (!count)
		return;
	for (size_t i = 0; i < count; i++)
		length += varint(scratch, VALUE(i));
	put_tag(b, field, 2);
	put_varint(b, length);
	if (reserve(b, length) < 0)
		return;
	for (size_t i = 0; i < count; i++)
		b->size += varint(b->data + b->size, VALUE(i));
#undef VALUE
}

void pprof_put_packed(struct pprof_buffer *b, uint32_t field, const uint64_t *values,
		      size_t count)
{
	put_packed(b, field, values, count, sizeof(*values));
}

void pprof_put_packed32(struct pprof_buffer *b, uint32_t field, const uint32_t *values,
			size_t count)
{
	put_packed(b, field, values, count, sizeof(*values));
}

/* ---- the gzip stream --------------------------------------------------- */

struct pprof_stream {
	z_stream z;
	FILE *out;
	uint8_t buffer[64 * 1024];
};

/* Writes what deflate made; 0 or a negative errno (EIO if fwrite gave none). */
static int drain(struct pprof_stream *s)
{
	size_t size = sizeof(s->buffer) - s->z.avail_out;

	errno = 0;
	if (size && fwrite(s->buffer, 1, size, s->out) != size)
		return errno ? -errno : -EIO;
	s->z.next_out = s->buffer;
	s->z.avail_out = sizeof(s->buffer);
	return 0;
}

static int deflate_error(int z_status)
{
	return z_status == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
}

int pprof_stream_open(struct pprof_stream **stream, FILE *out)
{
	struct pprof_stream *s = calloc(1, sizeof(*s));
	int z_status;

	*stream = NULL;
	if (!s)
		return -ENOMEM;
	/* 15 + 16: the largest window, and a gzip header and trailer. */
	z_status = deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
				Z_DEFAULT_STRATEGY);
	if (z_status != Z_OK) {
		free(s);
		return deflate_error(z_status);
	}
	s->out = out;
	s->z.next_out = s->buffer;
	s->z.avail_out = sizeof(s->buffer);
	*stream = s;
	return 0;
}

/* Compresses size bytes (flush Z_FINISH: and ends the member). */
static int deflate_bytes(struct pprof_stream *s, const void *data, size_t size, int flush)
{
	int ret;

	/* avail_in is an unsigned int: larger inputs go in pieces. */
	do {
		size_t piece = size > (1u << 30) ? 1u << 30 : size;

		s->z.next_in = (Bytef *)(uintptr_t)data;
		s->z.avail_in = (uInt)piece;
		/* Not NULL + 0: the final flush passes no data (undefined behaviour). */
		if (piece)
			data = (const uint8_t *)data + piece;
		size -= piece;
		do {
			int z_status = deflate(&s->z, size ? Z_NO_FLUSH : flush);

			if (z_status != Z_OK && z_status != Z_STREAM_END && z_status != Z_BUF_ERROR)
				return deflate_error(z_status);
			if (s->z.avail_out == 0 || z_status == Z_STREAM_END) {
				ret = drain(s);
				if (ret < 0)
					return ret;
			}
			if (z_status == Z_STREAM_END)
				return 0;
		} while (s->z.avail_in || (flush == Z_FINISH && !size));
	} while (size);
	return 0;
}

int pprof_stream_write(struct pprof_stream *s, const void *data, size_t size)
{
	return size ? deflate_bytes(s, data, size, Z_NO_FLUSH) : 0;
}

int pprof_stream_field(struct pprof_stream *s, uint32_t field, const void *data, size_t size)
{
	uint8_t head[2 * VARINT_MAX];
	size_t n;
	int ret;

	n = varint(head, (uint64_t)field << 3 | 2);
	n += varint(head + n, size);
	ret = deflate_bytes(s, head, n, Z_NO_FLUSH);
	if (ret == 0 && size)
		ret = deflate_bytes(s, data, size, Z_NO_FLUSH);
	return ret;
}

int pprof_stream_close(struct pprof_stream *s, int finish)
{
	int ret = 0;

	if (!s)
		return 0;
	if (finish)
		ret = deflate_bytes(s, NULL, 0, Z_FINISH);
	deflateEnd(&s->z);
	free(s);
	return ret;
}
