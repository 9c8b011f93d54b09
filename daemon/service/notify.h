/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_NOTIFY_H
#define PERFRECD_NOTIFY_H

#include <stdint.h>

/*
 * The sd_notify protocol, without libsystemd: state strings such as
 * "READY=1", "STATUS=...", "WATCHDOG=1" sent as datagrams to the AF_UNIX
 * socket systemd names in $NOTIFY_SOCKET.  See sd_notify(3).
 */

/*
 * Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID, then removes all
 * three from the environment so that a command perfrecd starts does not
 * talk to systemd in its name.  Returns 1 when notifications will be sent,
 * 0 when not started by systemd (every other call is then a no-op), or a
 * negative errno for a malformed address or watchdog setting (-EINVAL,
 * -ENAMETOOLONG) or a failed socket(); nothing is sent after an error.
 */
int prd_notify_open(void);

/*
 * Sends one state string built printf-style, e.g.
 * prd_notify_send("READY=1\nSTATUS=sampling %u CPUs", n).  Returns 1 when
 * sent, 0 without a socket, or a negative errno (-ENOENT, -ECONNREFUSED
 * when nobody listens; -EAGAIN when systemd did not take it within a
 * second; -EINVAL for an empty string).
 */
__attribute__((format(printf, 1, 2)))
int prd_notify_send(const char *fmt, ...);

/*
 * The watchdog timeout systemd asked for, in microseconds, or 0 when there
 * is none (or it was meant for another process: WATCHDOG_PID).  Send
 * "WATCHDOG=1" at least every half of it.
 */
uint64_t prd_notify_watchdog_usec(void);

/* Closes the socket; later prd_notify_send() calls do nothing. */
void prd_notify_close(void);

#endif
