/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols recorded as the samples hit them (perfrec-format(5),
 * "Kernel symbols as hit"): each file of a host brings the ones its own
 * samples met, so the host's kernel is made from all of them once every
 * file's side-band is in, unless one of its files carried the whole
 * /proc/kallsyms (which names all the others' addresses as well).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"
#include "session-internal.h"
#include "symbolize.h"

#define KSYM_NAME_MAX 512
#define MODULE_NAME_MAX 63	/* as the kallsyms text: "[" 63 bytes "]" */

struct session_ksym {
	uint32_t host;
	uint64_t order;			/* file, then place in it: as one thread reads them */
	uint64_t start, size;
	const char *name, *module;	/* interned; module NULL: the kernel */
};

/* Bounded by the caller's side-band limit; malformed records are skipped. */
/* Pass 1 reads files on several threads; their symbols go to one array. */
static pthread_mutex_t ksym_lock = PTHREAD_MUTEX_INITIALIZER;

int session_take_kernel_symbol(struct session *s, uint32_t host, uint64_t order,
			       const struct prf_record *record)
{
	struct prf_kernel_symbol_record r;
	const char *name = (const char *)record->data + sizeof(r), *module, *end;
	struct session_ksym k = { .host = host, .order = order };
	size_t length;
	int ret = 0;

	if (record->size < sizeof(r))
		return 0;
	memcpy(&r, record->data, sizeof(r));
	end = (const char *)record->data + record->size;
	length = strnlen(name, (size_t)(end - name));
	if (!length || length >= KSYM_NAME_MAX || name + length == end)
		return 0;
	module = name + length + 1;
	length = strnlen(module, (size_t)(end - module));
	if (length > MODULE_NAME_MAX || module + length == end)
		return 0;
	k.start = r.start;
	k.size = r.size;
	k.name = string_intern(s->strings, name);
	k.module = length ? string_intern(s->strings, module) : NULL;
	if (!k.name || (length && !k.module))
		return -ENOMEM;
	pthread_mutex_lock(&ksym_lock);
	if (GROW(s->ksyms, s->ksym_capacity, s->ksym_count + 1) < 0)
		ret = -ENOMEM;
	else
		s->ksyms[s->ksym_count++] = k;
	pthread_mutex_unlock(&ksym_lock);
	return ret;
}

static int compare_hosts(const void *a, const void *b)
{
	const struct session_ksym *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int session_make_hit_kernels(struct session *s)
{
	struct symbolizer_ksym *in;
	size_t first = 0;
	int err = 0;

	if (!s->ksym_count)
		return 0;
	/* symbolizer_kernel_hit() keeps the first of an address: file order within a host */
	qsort(s->ksyms, s->ksym_count, sizeof(*s->ksyms), compare_hosts);
	in = reallocarray(NULL, s->ksym_count, sizeof(*in));
	if (!in)
		return -ENOMEM;
	while (!err && first < s->ksym_count) {
		uint32_t host = s->ksyms[first].host;
		size_t n = 0;

		for (; first + n < s->ksym_count && s->ksyms[first + n].host == host; n++) {
			const struct session_ksym *k = &s->ksyms[first + n];

			in[n] = (struct symbolizer_ksym){ k->start, k->size, k->name, k->module };
		}
		if (!s->kernels[host]) {
			s->kernels[host] = symbolizer_kernel_hit(s->options.symbolizer, in, n);
			if (!s->kernels[host])
				err = -errno;
		}
		first += n;
	}
	free(in);
	free(s->ksyms);
	s->ksyms = NULL;
	s->ksym_count = s->ksym_capacity = 0;
	return err;
}

/* /proc/kallsyms is some 10 MB with every module loaded; more is not kallsyms. */
#define LOCAL_KALLSYMS_MAX	(256u << 20)

static char *read_local_kallsyms(size_t *size)
{
	char *text = NULL;
	size_t capacity = 0, used = 0;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (used == LOCAL_KALLSYMS_MAX ||
		    prf_ensure_mem((void **)&text, &capacity, 1, used + (1u << 20)) < 0)
			goto fail;
		n = read(fd, text + used, capacity - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	*size = used;
	return text;
fail:
	close(fd);
	free(text);
	return NULL;
}

/*
 * A perf.data carries no kernel symbols: perf report names kernel
 * addresses from the running kernel's /proc/kallsyms, and so does this,
 * for a host of perf.data inputs that has no kernel of its own yet and
 * whose hostname and kernel release are this machine's (on another
 * machine, or after an upgrade, its addresses would name the wrong
 * symbols: they stay unresolved).
 */
int session_local_kernels(struct session *s)
{
	char *text = NULL;
	size_t size = 0;
	int err = 0;

	for (size_t i = 0; i < s->input_count; i++) {
		struct input *in = &s->inputs[i];

		if (!in->perf_data || s->kernels[in->host] || !in->local)
			continue;
		if (!text && !(text = read_local_kallsyms(&size)))
			return 0;	/* unreadable: the kernel frames stay unresolved */
		s->kernels[in->host] = symbolizer_kernel(s->options.symbolizer, text, size, NULL, 0);
		if (!s->kernels[in->host]) {
			err = -errno;
			break;
		}
	}
	free(text);
	return err;
}
