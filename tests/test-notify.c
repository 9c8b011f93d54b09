/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sd_notify client as systemd sees it: exact datagrams on a socket
 * named by NOTIFY_SOCKET (a path or an abstract '@name'), sent with the
 * sender's credentials; the watchdog only for the process it names; and
 * nothing at all outside systemd.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "notify.h"

/* ---- a stand-in for systemd's notify socket ------------------------ */

struct listener {
	int fd;
	char name[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	char dir[64];
};

static void listener_bind(struct listener *l, int abstract)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	socklen_t size;
	int on = 1;

	l->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(l->fd, 0);
	/* systemd reads the sender's pid from these (NotifyAccess=main). */
	ck_assert_int_eq(setsockopt(l->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)), 0);
	l->dir[0] = '\0';
	if (abstract) {
		snprintf(l->name, sizeof(l->name), "@perfrec-test-notify-%ld-%ld",
			 (long)getpid(), random());
		memcpy(address.sun_path + 1, l->name + 1, strlen(l->name) - 1);
		size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(l->name));
	} else {
		strcpy(l->dir, "/tmp/test-notify-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(l->dir));
		snprintf(l->name, sizeof(l->name), "%s/notify", l->dir);
		strcpy(address.sun_path, l->name);
		size = sizeof(address);
	}
	ck_assert_int_eq(bind(l->fd, (struct sockaddr *)&address, size), 0);
	ck_assert_int_eq(setenv("NOTIFY_SOCKET", l->name, 1), 0);
}

static void listener_close(struct listener *l)
{
	close(l->fd);
	if (l->dir[0]) {
		unlink(l->name);
		rmdir(l->dir);
	}
}

/* The next datagram, which must be exactly `expected` from this process. */
static void listener_expect(struct listener *l, const char *expected)
{
	static char data[65536];
	union {
		struct cmsghdr header;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} control;
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr message = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = &control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *c;
	struct ucred credentials;
	ssize_t n = recvmsg(l->fd, &message, MSG_DONTWAIT);

	ck_assert_msg(n >= 0, "no datagram: %s", strerror(errno));
	ck_assert_uint_eq((size_t)n, strlen(expected));
	ck_assert_int_eq(memcmp(data, expected, (size_t)n), 0);
	ck_assert_int_eq(message.msg_flags & (MSG_TRUNC | MSG_CTRUNC), 0);
	c = CMSG_FIRSTHDR(&message);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->cmsg_type, SCM_CREDENTIALS);
	memcpy(&credentials, CMSG_DATA(c), sizeof(credentials));
	ck_assert_int_eq(credentials.pid, getpid());
}

static void listener_expect_nothing(struct listener *l)
{
	char byte;

	ck_assert_int_lt(recv(l->fd, &byte, 1, MSG_DONTWAIT), 0);
	ck_assert_int_eq(errno, EAGAIN);
}

static void clear_environment(void)
{
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

/* ---- datagrams ----------------------------------------------------- */

static void ready_and_status(int abstract)
{
	struct listener l;

	clear_environment();
	listener_bind(&l, abstract);
	ck_assert_int_eq(prd_notify_open(), 1);
	ck_assert_ptr_null(getenv("NOTIFY_SOCKET"));
	ck_assert_int_eq(prd_notify_send("READY=1\nSTATUS=%s", "x"), 1);
	listener_expect(&l, "READY=1\nSTATUS=x");
	ck_assert_int_eq(prd_notify_send("WATCHDOG=1"), 1);
	listener_expect(&l, "WATCHDOG=1");
	prd_notify_close();
	ck_assert_int_eq(prd_notify_send("STATUS=closed"), 0);
	listener_expect_nothing(&l);
	listener_close(&l);
}

START_TEST(path_socket)
{
	ready_and_status(0);
}
END_TEST

START_TEST(abstract_socket)
{
	ready_and_status(1);
}
END_TEST

/* Longer than any fixed buffer the formatting might use. */
START_TEST(long_status_is_sent_whole)
{
	static char status[8192], expected[8300];
	struct listener l;

	clear_environment();
	memset(status, 'a', sizeof(status) - 1);
	snprintf(expected, sizeof(expected), "STATUS=%s\nX=1", status);
	listener_bind(&l, 0);
	ck_assert_int_eq(prd_notify_open(), 1);
	ck_assert_int_eq(prd_notify_send("STATUS=%s\nX=%d", status, 1), 1);
	listener_expect(&l, expected);
	prd_notify_close();
	listener_close(&l);
}
END_TEST

START_TEST(empty_state_is_refused)
{
	struct listener l;

	clear_environment();
	listener_bind(&l, 1);
	ck_assert_int_eq(prd_notify_open(), 1);
	ck_assert_int_eq(prd_notify_send("%s", ""), -EINVAL);
	listener_expect_nothing(&l);
	prd_notify_close();
	listener_close(&l);
}
END_TEST

/* Errors are negative errnos, and the next listener is found again. */
START_TEST(nobody_listening)
{
	struct listener l;

	clear_environment();
	listener_bind(&l, 0);
	ck_assert_int_eq(prd_notify_open(), 1);
	listener_close(&l);
	ck_assert_int_eq(prd_notify_send("READY=1"), -ENOENT);
	listener_bind(&l, 1);
	listener_close(&l);
	ck_assert_int_eq(prd_notify_open(), 1);
	ck_assert_int_eq(prd_notify_send("READY=1"), -ECONNREFUSED);
	prd_notify_close();
}
END_TEST

START_TEST(bad_addresses)
{
	static const char *const invalid[] = { "relative/path", "@", "/",
					       "vsock:2:1234" };
	char long_path[200];

	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		clear_environment();
		setenv("NOTIFY_SOCKET", invalid[i], 1);
		ck_assert_int_eq(prd_notify_open(), -EINVAL);
		ck_assert_ptr_null(getenv("NOTIFY_SOCKET"));
		ck_assert_int_eq(prd_notify_send("READY=1"), 0);
	}
	long_path[0] = '/';
	memset(long_path + 1, 'p', sizeof(long_path) - 2);
	long_path[sizeof(long_path) - 1] = '\0';
	setenv("NOTIFY_SOCKET", long_path, 1);
	ck_assert_int_eq(prd_notify_open(), -ENAMETOOLONG);
	ck_assert_int_eq(prd_notify_send("READY=1"), 0);
}
END_TEST

/* sun_path holds 107 path bytes and a NUL, or a 108-byte abstract name. */
START_TEST(longest_addresses)
{
	char name[sizeof(((struct sockaddr_un *)0)->sun_path) + 2];

	memset(name, 'n', sizeof(name));
	name[0] = '/';
	name[sizeof(name) - 2] = '\0';
	clear_environment();
	setenv("NOTIFY_SOCKET", name, 1);
	ck_assert_int_eq(prd_notify_open(), -ENAMETOOLONG);
	name[sizeof(name) - 3] = '\0';
	setenv("NOTIFY_SOCKET", name, 1);
	ck_assert_int_eq(prd_notify_open(), 1);
	name[0] = '@';
	name[sizeof(name) - 3] = 'n';
	setenv("NOTIFY_SOCKET", name, 1);
	ck_assert_int_eq(prd_notify_open(), 1);
	name[sizeof(name) - 2] = 'n';
	name[sizeof(name) - 1] = '\0';
	setenv("NOTIFY_SOCKET", name, 1);
	ck_assert_int_eq(prd_notify_open(), -ENAMETOOLONG);
	prd_notify_close();
}
END_TEST

/* ---- the watchdog -------------------------------------------------- */

static void watchdog_setup(const char *usec, const char *pid)
{
	clear_environment();
	setenv("NOTIFY_SOCKET", "@perfrec-test-watchdog", 1);
	if (usec)
		setenv("WATCHDOG_USEC", usec, 1);
	if (pid)
		setenv("WATCHDOG_PID", pid, 1);
}

static void watchdog_expect(int init_result, uint64_t usec)
{
	ck_assert_int_eq(prd_notify_open(), init_result);
	ck_assert_uint_eq(prd_notify_watchdog_usec(), usec);
	ck_assert_ptr_null(getenv("NOTIFY_SOCKET"));
	ck_assert_ptr_null(getenv("WATCHDOG_USEC"));
	ck_assert_ptr_null(getenv("WATCHDOG_PID"));
	prd_notify_close();
	ck_assert_uint_eq(prd_notify_watchdog_usec(), 0);
}

START_TEST(watchdog_without_pid)
{
	watchdog_setup("30000000", NULL);
	watchdog_expect(1, 30000000);
}
END_TEST

START_TEST(watchdog_for_this_process)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	watchdog_setup("18446744073709551615", pid);
	watchdog_expect(1, UINT64_MAX);
}
END_TEST

/* A child that inherited its parent's watchdog must not ping for it. */
START_TEST(watchdog_for_another_process)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid() + 1);
	watchdog_setup("30000000", pid);
	watchdog_expect(1, 0);
}
END_TEST

START_TEST(watchdog_malformed)
{
	static const char *const usec[] = { "", "0", "-5", "30s", " 1", "abc",
					    "18446744073709551616" };
	char pid[32];

	for (size_t i = 0; i < sizeof(usec) / sizeof(usec[0]); i++) {
		watchdog_setup(usec[i], NULL);
		watchdog_expect(-EINVAL, 0);
		ck_assert_int_eq(prd_notify_send("READY=1"), 0);
	}
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	watchdog_setup("30000000", "x");
	watchdog_expect(-EINVAL, 0);
	watchdog_setup("30000000", "0");
	watchdog_expect(-EINVAL, 0);
}
END_TEST

/* ---- outside systemd ------------------------------------------------ */

START_TEST(no_socket_is_a_no_op)
{
	clear_environment();
	setenv("WATCHDOG_USEC", "30000000", 1);
	ck_assert_int_eq(prd_notify_open(), 0);
	ck_assert_uint_eq(prd_notify_watchdog_usec(), 0);
	ck_assert_ptr_null(getenv("WATCHDOG_USEC"));
	ck_assert_int_eq(prd_notify_send("READY=1\nSTATUS=%s", "x"), 0);
	ck_assert_int_eq(prd_notify_send("WATCHDOG=1"), 0);
	prd_notify_close();

	setenv("NOTIFY_SOCKET", "", 1);
	ck_assert_int_eq(prd_notify_open(), 0);
	ck_assert_int_eq(prd_notify_send("READY=1"), 0);
	ck_assert_ptr_null(getenv("NOTIFY_SOCKET"));
}
END_TEST

START_TEST(send_before_init_is_a_no_op)
{
	ck_assert_int_eq(prd_notify_send("READY=1"), 0);
	ck_assert_uint_eq(prd_notify_watchdog_usec(), 0);
	prd_notify_close();
}
END_TEST

static Suite *notify_suite(void)
{
	Suite *s = suite_create("notify");
	TCase *datagrams = tcase_create("datagrams");
	TCase *watchdog = tcase_create("watchdog");
	TCase *outside = tcase_create("outside systemd");

	tcase_add_test(datagrams, path_socket);
	tcase_add_test(datagrams, abstract_socket);
	tcase_add_test(datagrams, long_status_is_sent_whole);
	tcase_add_test(datagrams, empty_state_is_refused);
	tcase_add_test(datagrams, nobody_listening);
	tcase_add_test(datagrams, bad_addresses);
	tcase_add_test(datagrams, longest_addresses);
	suite_add_tcase(s, datagrams);
	tcase_add_test(watchdog, watchdog_without_pid);
	tcase_add_test(watchdog, watchdog_for_this_process);
	tcase_add_test(watchdog, watchdog_for_another_process);
	tcase_add_test(watchdog, watchdog_malformed);
	suite_add_tcase(s, watchdog);
	tcase_add_test(outside, no_socket_is_a_no_op);
	tcase_add_test(outside, send_before_init_is_a_no_op);
	suite_add_tcase(s, outside);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(notify_suite());
	int failed;

	srandom((unsigned)getpid());
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
