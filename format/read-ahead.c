/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading ahead: a thread runs the reader's chunk loop (read, check,
 * decompress) into buffers of its own while the caller works on the
 * chunk it has, so that on two cores decompression costs the caller no
 * time.  Three slots: the caller's chunk, and two ready or being filled.
 */
#include <errno.h>
#include <pthread.h>
#include "internal.h"

#define SLOTS 3

struct slot {
	struct prf_chunk chunk;
	struct prf_chunk_buffers buffers;
	struct prf_read_stats stats;	/* the reader's, after this chunk */
	int ret;
};

struct prf_read_ahead {
	struct prf_reader *reader;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct slot slots[SLOTS];
	uint64_t filled, taken;		/* slots the thread filled, the caller took */
	int stop;
	/* the caller's */
	int ended, end;			/* the last answer, once it was not a chunk */
	struct prf_read_stats stats;	/* as of the last chunk taken */
};

static void *read_chunks(void *arg)
{
	struct prf_read_ahead *a = arg;

	for (;;) {
		struct slot *slot;

		pthread_mutex_lock(&a->lock);
		/* The caller keeps slot taken - 1 until it asks again. */
		while (!a->stop && a->filled - a->taken >= SLOTS - 1)
			pthread_cond_wait(&a->changed, &a->lock);
		if (a->stop) {
			pthread_mutex_unlock(&a->lock);
			return NULL;
		}
		slot = &a->slots[a->filled % SLOTS];
		pthread_mutex_unlock(&a->lock);

		slot->ret = prf_reader_next_chunk_into(a->reader, &slot->chunk, &slot->buffers,
						       &slot->stats);

		pthread_mutex_lock(&a->lock);
		a->filled++;
		pthread_cond_broadcast(&a->changed);
		pthread_mutex_unlock(&a->lock);
		if (slot->ret != 1)
			return NULL;
	}
}

int prf_read_ahead_start(struct prf_read_ahead **out, struct prf_reader *reader)
{
	struct prf_read_ahead *a = calloc(1, sizeof(*a));
	int ret;

	if (!a)
		return -ENOMEM;
	a->reader = reader;
	prf_reader_get_stats(reader, &a->stats);
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->changed, NULL);
	ret = pthread_create(&a->thread, NULL, read_chunks, a);
	if (ret) {
		pthread_cond_destroy(&a->changed);
		pthread_mutex_destroy(&a->lock);
		free(a);
		return -ret;
	}
	*out = a;
	return 0;
}

int prf_read_ahead_next(struct prf_read_ahead *a, struct prf_chunk *chunk)
{
	struct slot *slot;

	if (a->ended)
		return a->end;
	pthread_mutex_lock(&a->lock);
	while (a->filled == a->taken)
		pthread_cond_wait(&a->changed, &a->lock);
	slot = &a->slots[a->taken % SLOTS];
	a->taken++;		/* and the chunk before is the thread's again */
	pthread_cond_broadcast(&a->changed);
	pthread_mutex_unlock(&a->lock);
	a->stats = slot->stats;
	if (slot->ret != 1) {
		/* The thread has stopped: what it said holds from now on. */
		a->ended = 1;
		a->end = slot->ret;
		return a->end;
	}
	*chunk = slot->chunk;
	return 1;
}

void prf_read_ahead_stats(const struct prf_read_ahead *a, struct prf_read_stats *stats)
{
	*stats = a->stats;
}

void prf_read_ahead_stop(struct prf_read_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_broadcast(&a->changed);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	for (size_t i = 0; i < SLOTS; i++) {
		free(a->slots[i].buffers.stored);
		free(a->slots[i].buffers.raw);
		prf_compact_buffers_free(&a->slots[i].buffers.compact);
	}
	pthread_cond_destroy(&a->changed);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
