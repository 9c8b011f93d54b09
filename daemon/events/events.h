/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_EVENTS_H
#define PERFRECD_EVENTS_H

#include <stddef.h>
#include <linux/perf_event.h>
#include "event-set.h"
#include "user-stack.h"

struct prf_error;

/*
 * Parses an event name into attr: on success attr is zeroed, then size,
 * type, config, config1, config2 are set, and the modifiers' exclude_user,
 * exclude_kernel, exclude_hv and precise_ip; on failure it is untouched.
 * Breakpoint events are not supported.  Accepted:
 *   - generic names of perf_event_open(2): cycles, instructions,
 *     cache-misses, ..., cpu-clock, task-clock, page-faults, ...;
 *     cache events such as L1-dcache-load-misses, LLC-loads;
 *   - raw: rNNNN (hex) for the core PMU;
 *   - sysfs PMU syntax: pmu/term=value,term,.../ with terms from
 *     SYSFS/bus/event_source/devices/PMU/format/ and aliases from .../events/,
 *     as the kernel's sysfs-bus-event_source-devices-events ABI says;
 *     "cpu/cycles/" style aliases, "param=?" parameters the user must give.
 *   - tracepoints: subsystem:name (prd_tracepoint_parse()), when the part
 *     before the ':' is no event of the others;
 *   - modifiers :u :k :h and :p..:ppp, as perf spells them.
 *   - an event's own sampling as the terms period=N or freq=N, after a PMU
 *     or a generic name ("page-faults/period=64/"): they set
 *     attr->sample_period, or attr->freq and attr->sample_freq, which are
 *     otherwise left zero for the caller's defaults.  Other sampling terms
 *     (call-graph=, inherit, ...) are refused with -EOPNOTSUPP: the caller
 *     owns those fields.
 * sysfs_root is "/sys" normally.  On failure returns a negative errno and,
 * when error is not NULL, fills it with that code and a one-line message
 * naming the cause; on success error's message is "".
 */
int prd_event_parse(const char *name, const char *sysfs_root,
		    struct perf_event_attr *attr, struct prf_error *error);

/*
 * "subsystem:name" into attr (type PERF_TYPE_TRACEPOINT, config its id
 * from tracefs, sample_period 1: every hit).  tracefs is where
 * /proc/self/mountinfo says, else debugfs's tracing/.  A negative errno
 * and a one-line message: a bad name (-EINVAL; only [A-Za-z0-9_] on either
 * side, since they make a path), no tracefs mounted (-ENOENT, saying how
 * to mount it), an unknown tracepoint (-ENOENT, naming it).
 */
int prd_tracepoint_parse(const char *name, struct perf_event_attr *attr,
			 struct prf_error *error);

/*
 * The tracepoint's format file, at most 64 KiB, into *text (malloc'd,
 * NUL-terminated; *size without the NUL); -ESTALE when its ID is not id
 * (the tracepoint went and came back since prd_tracepoint_parse()).
 */
int prd_tracepoint_format(const char *name, uint64_t id, char **text, size_t *size,
			  struct prf_error *error);

/*
 * The default event: hardware cycles when this machine's PMU counts them,
 * else cpu-clock (it probes the calling thread, user mode only).  Writes the
 * chosen name to name.  notice (may be NULL) gets, when it fell back, the
 * probe's negative errno and a one-line message saying so; else code 0 and
 * "".  Any other perf_event_open error than ENOENT, EOPNOTSUPP or ENODEV
 * (EACCES, EPERM) comes back as its negative errno for the caller to
 * explain; -ENOSPC when name_size is too small.
 */
int prd_event_default(struct perf_event_attr *attr, char *name, size_t name_size,
		      struct prf_error *notice);

#endif
