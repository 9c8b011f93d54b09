/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The files of a session on several threads.  Each file stands alone
 * until what it gave is merged: pass 1 reads every file's side-band into
 * its own part, merged in file order (sideband.c); pass 2 gives each
 * thread whole files, and its own context to count them into.  What
 * went wrong is said afterwards, in file order, so the warnings and the
 * summary are those of one thread reading the files in turn.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "intern.h"
#include "session-internal.h"

struct pool {
	size_t count;
	size_t next;			/* the next index to take (atomic) */
	void (*work)(void *context, unsigned thread, size_t index);
	void *context;
};

struct worker {
	struct pool *pool;
	unsigned thread;
	pthread_t id;
};

static void *work_loop(void *arg)
{
	struct worker *w = arg;
	struct pool *pool = w->pool;
	size_t i;

	while ((i = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED)) < pool->count)
		pool->work(pool->context, w->thread, i);
	return NULL;
}

/*
 * work(context, thread, i) for every i below count, each once, on up to
 * jobs threads (thread 0 is the caller's); the indexes are taken in
 * order.  A thread that cannot be started leaves its share to the others.
 */
static void run_pool(size_t count, unsigned jobs,
		     void (*work)(void *context, unsigned thread, size_t index), void *context)
{
	struct pool pool = { .count = count, .work = work, .context = context };
	struct worker *workers;
	unsigned started = 0;

	if (jobs > count)
		jobs = (unsigned)count;
	workers = jobs > 1 ? calloc(jobs, sizeof(*workers)) : NULL;
	for (unsigned t = 1; workers && t < jobs; t++) {
		workers[t] = (struct worker){ .pool = &pool, .thread = t };
		if (pthread_create(&workers[t].id, NULL, work_loop, &workers[t]) != 0)
			break;
		started = t;
	}
	work_loop(&(struct worker){ .pool = &pool, .thread = 0 });
	for (unsigned t = 1; t <= started; t++)
		pthread_join(workers[t].id, NULL);
	free(workers);
}

/* ---- pass 1 ----------------------------------------------------------- */

struct sideband_job {
	struct session *s;
	struct sideband_part *parts;
};

static void read_sideband(void *context, unsigned thread, size_t i)
{
	struct sideband_job *job = context;

	(void)thread;
	session_read_sideband(job->s, i, &job->parts[i]);
}

int session_read_sidebands(struct session *s, struct prf_error *error)
{
	struct sideband_job job = { .s = s };
	unsigned jobs = s->options.jobs ? s->options.jobs : 1;
	int ret = 0;

	job.parts = calloc(s->input_count ? s->input_count : 1, sizeof(*job.parts));
	if (!job.parts)
		return -ENOMEM;
	string_table_shared(s->strings, jobs > 1);
	run_pool(s->input_count, jobs, read_sideband, &job);
	string_table_shared(s->strings, 0);
	for (size_t i = 0; i < s->input_count; i++) {
		/* After an error the rest are only freed. */
		int merged = ret < 0 ? 0 : session_sideband_merge(s, i, &job.parts[i], error);

		if (ret < 0) {
			free(job.parts[i].sideband);
			free(job.parts[i].build_ids);
			free(job.parts[i].kallsyms);
		}
		if (merged < 0)
			ret = merged;
		else if (ret == 0) {
			s->facts.damaged_files += (size_t)s->inputs[i].damaged;
			s->facts.incomplete_files += (size_t)s->inputs[i].incomplete;
		}
	}
	free(job.parts);
	return ret;
}

/* ---- pass 2 ----------------------------------------------------------- */

struct samples_job {
	struct session *s;
	const struct session_filter *filter;
	session_sample_fn fn;
	void *const *contexts;
	struct samples_result *results;
};

static void read_samples(void *context, unsigned thread, size_t i)
{
	struct samples_job *job = context;

	/* The pool's threads keep the cores busy: a reader's own would crowd them. */
	session_read_samples(job->s, i, job->filter, 0, job->fn, job->contexts[thread],
			     &job->results[i]);
}

int session_for_each_sample_parallel(struct session *s, const struct session_filter *filter,
				     unsigned jobs, session_sample_fn fn, void *const *contexts)
{
	struct samples_job job = { s, filter, fn, contexts, NULL };
	uint64_t undecodable = 0, off_cpu = 0;
	int status = 0;

	if (jobs <= 1 || s->input_count <= 1)
		return session_for_each_sample(s, filter, fn, contexts[0]);
	job.results = calloc(s->input_count, sizeof(*job.results));
	if (!job.results)
		return -ENOMEM;
	/* A thread no record names is named ":TID" as it is met: interned on any thread. */
	string_table_shared(s->strings, 1);
	run_pool(s->input_count, jobs, read_samples, &job);
	string_table_shared(s->strings, 0);
	for (size_t i = 0; i < s->input_count; i++) {
		undecodable += job.results[i].undecodable;
		off_cpu += job.results[i].undecodable_off_cpu;
		if (session_samples_told(s, i, &job.results[i]) < 0)
			status = -EIO;
	}
	session_undecodable_told(s, undecodable, off_cpu);
	free(job.results);
	return status;
}
