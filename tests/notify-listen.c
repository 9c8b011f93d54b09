/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify-listen: the receiving end of sd_notify(3), as systemd would be,
 * for the end-to-end tests of perfrecd.
 *
 *   notify-listen SOCKET TIMEOUT
 *       Binds a SOCK_DGRAM AF_UNIX socket at the path SOCKET (removing a
 *       stale one first) and prints each line of each datagram received as
 *           SECONDS.NANOSECONDS DATAGRAM PID LINE
 *       where the time is CLOCK_MONOTONIC when the datagram was read (the
 *       clock perfrecd stamps its files with), DATAGRAM counts from 1 and
 *       PID is the sender's, from SCM_CREDENTIALS.  It exits 0 after the
 *       first datagram holding STOPPING=1, or when TIMEOUT seconds have
 *       passed; the socket is removed on exit.
 *
 *   notify-listen --now
 *       Prints CLOCK_MONOTONIC as SECONDS.NANOSECONDS and exits: a shell
 *       can stamp an action on the clock of the files.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void print_time(uint64_t ns)
{
	printf("%llu.%09llu", (unsigned long long)(ns / 1000000000u),
	       (unsigned long long)(ns % 1000000000u));
}

int main(int argc, char **argv)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	char text[4097];
	uint64_t deadline;
	unsigned datagrams = 0;
	double timeout;
	int fd, on = 1, stopping = 0;

	if (argc == 2 && strcmp(argv[1], "--now") == 0) {
		print_time(now_ns());
		putchar('\n');
		return 0;
	}
	if (argc != 3 || strlen(argv[1]) >= sizeof(address.sun_path) ||
	    (timeout = strtod(argv[2], NULL)) <= 0) {
		fprintf(stderr, "Usage: notify-listen SOCKET TIMEOUT | notify-listen --now\n");
		return 2;
	}
	strcpy(address.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0 ||
	    bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
		fprintf(stderr, "notify-listen: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	deadline = now_ns() + (uint64_t)(timeout * 1e9);
	while (!stopping) {
		union {
			struct cmsghdr header;
			char space[CMSG_SPACE(sizeof(struct ucred))];
		} control;
		struct iovec iov = { text, sizeof(text) - 1 };
		struct msghdr message = { .msg_iov = &iov, .msg_iovlen = 1,
					  .msg_control = &control,
					  .msg_controllen = sizeof(control) };
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		struct cmsghdr *cmsg;
		pid_t sender = 0;
		ssize_t n;
		int ret;

		if (now >= deadline)
			break;
		ret = poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0)
			continue;	/* the deadline is checked above */
		n = recvmsg(fd, &message, 0);
		now = now_ns();
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fprintf(stderr, "notify-listen: recvmsg: %s\n", strerror(errno));
			break;
		}
		text[n] = '\0';
		datagrams++;
		for (cmsg = CMSG_FIRSTHDR(&message); cmsg; cmsg = CMSG_NXTHDR(&message, cmsg))
			if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_CREDENTIALS) {
				struct ucred credentials;

				memcpy(&credentials, CMSG_DATA(cmsg), sizeof(credentials));
				sender = credentials.pid;
			}
		for (char *line = text, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			print_time(now);
			printf(" %u %d %s\n", datagrams, (int)sender, line);
			if (strcmp(line, "STOPPING=1") == 0)
				stopping = 1;
		}
		fflush(stdout);
	}
	close(fd);
	unlink(argv[1]);
	return 0;
}
