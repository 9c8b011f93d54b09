/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sd_notify without libsystemd.  The protocol is small and documented as
 * stable ("The sd_notify protocol", sd_notify(3)): one datagram of
 * newline-separated KEY=VALUE text to the AF_UNIX socket named by
 * $NOTIFY_SOCKET, a filesystem path or, with a leading '@', a name in the
 * abstract namespace.  systemd learns the sender from the kernel's
 * SCM_CREDENTIALS, so nothing else needs to be sent.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "notify.h"

static struct {
	int fd;
	struct sockaddr_un address;
	socklen_t address_size;
	uint64_t watchdog_usec;
} notify = { .fd = -1 };

/* A filesystem path or an '@' abstract name, as sd_notify accepts them. */
static int address_parse(const char *text, struct sockaddr_un *address,
			 socklen_t *size)
{
	size_t length = strlen(text);

	if ((text[0] != '/' && text[0] != '@') || length < 2)
		return -EINVAL;
	/* A path needs its NUL inside sun_path; an abstract name does not. */
	if (length > sizeof(address->sun_path) - (text[0] == '/'))
		return -ENAMETOOLONG;
	memset(address, 0, sizeof(*address));
	address->sun_family = AF_UNIX;
	memcpy(address->sun_path, text, length);
	if (text[0] == '@') {
		/* The name is exactly these bytes: no NUL in the length. */
		address->sun_path[0] = '\0';
		*size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length);
	} else {
		*size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length + 1);
	}
	return 0;
}

static int parse_u64(const char *text, uint64_t *out)
{
	unsigned long long n;
	char *end;

	if (!text[0] || text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = n;
	return 0;
}

/*
 * systemd sets WATCHDOG_PID to the main process; a child that inherited
 * the variables must not think the watchdog is its own.
 */
static int watchdog_parse(const char *usec_text, const char *pid_text,
			  uint64_t *usec)
{
	uint64_t pid;

	*usec = 0;
	if (!usec_text)
		return 0;
	if (parse_u64(usec_text, usec) < 0 || *usec == 0) {
		*usec = 0;
		return -EINVAL;
	}
	if (!pid_text)
		return 0;
	if (parse_u64(pid_text, &pid) < 0 || pid == 0) {
		*usec = 0;
		return -EINVAL;
	}
	if (pid != (uint64_t)getpid())
		*usec = 0;
	return 0;
}

static int socket_open(void)
{
	/*
	 * A bounded wait: if systemd stops reading, a status update may be
	 * lost, but the collector must not stall and let the rings overflow.
	 */
	struct timeval timeout = { .tv_sec = 1 };
	int fd;

	/* CLOEXEC: a profiled command must not inherit our channel. */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout)) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* getenv()'s strings die with unsetenv(), so keep copies while parsing. */
static char *env_take(const char *name)
{
	const char *value = getenv(name);
	char *copy = value ? strdup(value) : NULL;

	unsetenv(name);
	return copy;
}

int prd_notify_open(void)
{
	char *socket_text, *usec_text, *pid_text;
	int ret = 0;

	prd_notify_close();
	socket_text = env_take("NOTIFY_SOCKET");
	usec_text = env_take("WATCHDOG_USEC");
	pid_text = env_take("WATCHDOG_PID");
	if (!socket_text || !socket_text[0])
		goto out;

	ret = address_parse(socket_text, &notify.address, &notify.address_size);
	if (ret == 0)
		ret = watchdog_parse(usec_text, pid_text, &notify.watchdog_usec);
	if (ret == 0)
		ret = socket_open();
	if (ret < 0) {
		notify.watchdog_usec = 0;
		goto out;
	}
	notify.fd = ret;
	ret = 1;
out:
	free(socket_text);
	free(usec_text);
	free(pid_text);
	return ret;
}

/*
 * An address per datagram rather than connect(): a socket systemd
 * re-creates (at a re-exec) is found again by its name.
 */
static int datagram_send(const char *text, size_t length)
{
	struct iovec iov = { .iov_base = (void *)text, .iov_len = length };
	struct msghdr message = {
		.msg_name = &notify.address,
		.msg_namelen = notify.address_size,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t sent;

	do
		sent = sendmsg(notify.fd, &message, MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return sent == (ssize_t)length ? 1 : -EMSGSIZE;
}

int prd_notify_send(const char *fmt, ...)
{
	char *text;
	va_list ap;
	int length, ret;

	if (notify.fd < 0)
		return 0;
	va_start(ap, fmt);
	length = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (length < 0)
		return -ENOMEM;
	ret = length ? datagram_send(text, (size_t)length) : -EINVAL;
	free(text);
	return ret;
}

uint64_t prd_notify_watchdog_usec(void)
{
	return notify.watchdog_usec;
}

void prd_notify_close(void)
{
	if (notify.fd >= 0)
		close(notify.fd);
	notify.fd = -1;
	notify.watchdog_usec = 0;
}
