/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-push's pieces without a server: the state file (written,
 * read back, done files replacing their profiles' lines, pruning, a
 * damaged or foreign file refused with the line named, no temporary file
 * left, a symlink planted at the temporary path not followed; its end
 * line's checksum, a file cut, altered, with a NUL or CRLF refused; the
 * old format without checksum read and rewritten; its directory made
 * 0700 when missing, and one others may change refused), the
 * credentials file (keys, modes, owner, symlinks, control characters;
 * errors that name the line but never the value), series names (labels
 * sanitized) and the command line (URL with a password, label keys);
 * and that a capture with two events of one kind (make-fixture
 * --two-events) is one profile of both to perfrec-push as to
 * perfrec-report.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "push-internal.h"
#include "report.h"
#include "symbolize.h"

static char dir[] = "/tmp/test-push-state.XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char command[128];

	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(command), 0);
	strcpy(dir, "/tmp/test-push-state.XXXXXX");
}

static char *path_of(const char *name)
{
	static char path[4][256];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

static char *read_text(const char *path)
{
	static char text[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	return text;
}

/* The state file perfrec-push writes for lines: them, then their checksum. */
static const char *state_text(const char *lines)
{
	static char text[4096];
	int n = snprintf(text, sizeof(text), "perfrec-push state 2\n%s", lines);

	snprintf(text + n, sizeof(text) - (size_t)n, "end\t%08x\n",
		 prf_crc32c(0, text, (size_t)n));
	return text;
}

/* ---- state --------------------------------------------------------------- */

START_TEST(state_round_trip)
{
	const char *path = path_of("state");
	struct push_state *s;
	struct prf_error error;
	struct stat st;

	ck_assert_int_eq(push_state_open(&s, path, &error), 0);
	ck_assert_int_eq(push_state_file_done(s, "perfrec-a-1.prf"), 0);
	ck_assert_int_eq(push_state_mark_sent(s, "perfrec-a-1.prf", 7, "x{host=h,comm=x}"), 0);
	ck_assert_int_eq(push_state_mark_sent(s, "perfrec-a-1.prf", 8, "x{host=h,comm=x}"), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	push_state_free(s);
	/* No temporary file is left behind. */
	ck_assert_int_eq(access(path_of("state.tmp"), F_OK), -1);

	ck_assert_int_eq(push_state_open(&s, path, &error), 0);
	ck_assert_int_eq(push_state_sent(s, "perfrec-a-1.prf", 7, "x{host=h,comm=x}"), 1);
	ck_assert_int_eq(push_state_sent(s, "perfrec-a-1.prf", 9, "x{host=h,comm=x}"), 0);
	ck_assert_int_eq(push_state_sent(s, "perfrec-a-1.prf", 7, "y{host=h,comm=y}"), 0);
	ck_assert_int_eq(push_state_mark_done(s, "perfrec-a-1.prf"), 0);
	push_state_free(s);
	/* Done: the file's own line replaces its profiles' lines. */
	ck_assert_str_eq(read_text(path), state_text("done\tperfrec-a-1.prf\n"));
	/* Names with a tab or a newline would break the lines: refused. */
	ck_assert_int_eq(push_state_open(&s, path, &error), 0);
	ck_assert_int_eq(push_state_mark_sent(s, "a\tb", 1, "x"), -EINVAL);
	ck_assert_int_eq(push_state_mark_done(s, "a\nb"), -EINVAL);
	push_state_free(s);
}
END_TEST

static int keep_b(void *context, const char *name)
{
	(void)context;
	return strcmp(name, "perfrec-b.prf") == 0;
}

START_TEST(state_prune)
{
	const char *path = path_of("state");
	struct push_state *s;
	struct prf_error error;

	write_file(path, state_text("done\tperfrec-a.prf\ndone\tperfrec-b.prf\n"
				    "sent\tperfrec-c.prf\t3\tx\n"), 0600);
	ck_assert_int_eq(push_state_open(&s, path, &error), 0);
	ck_assert_int_eq(push_state_prune(s, keep_b, NULL), 0);
	ck_assert_int_eq(push_state_file_done(s, "perfrec-a.prf"), 0);
	ck_assert_int_eq(push_state_file_done(s, "perfrec-b.prf"), 1);
	ck_assert_int_eq(push_state_sent(s, "perfrec-c.prf", 3, "x"), 0);
	push_state_free(s);
	ck_assert_str_eq(read_text(path), state_text("done\tperfrec-b.prf\n"));
}
END_TEST

START_TEST(state_damaged)
{
	static const char *const bad[] = {
		"not a state file\n",
		"perfrec-push state 1\ndone\n",
		"perfrec-push state 1\nsent\tf\tnot-a-number\tx\n",
		"perfrec-push state 1\nsent\tf\t-1x\tx\n",
		"perfrec-push state 1\nsent\tf\t\t3\tx\n",
		"perfrec-push state 1\nwhat\tf\n",
	};
	const char *path = path_of("state");
	struct push_state *s;
	struct prf_error error;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i], 0600);
		ck_assert_int_lt(push_state_open(&s, path, &error), 0);
		ck_assert_ptr_null(s);
		ck_assert_ptr_nonnull(strstr(error.message, path));
		/* Refused as it was: not rewritten. */
		ck_assert_str_eq(read_text(path), bad[i]);
	}
	ck_assert_ptr_nonnull(strstr(error.message, "line 2"));
	/* A directory, a symlink, a FIFO: no state file. */
	ck_assert_int_eq(mkdir(path_of("dir"), 0700), 0);
	ck_assert_int_lt(push_state_open(&s, path_of("dir"), &error), 0);
	ck_assert_int_eq(symlink(path, path_of("link")), 0);
	ck_assert_int_eq(push_state_open(&s, path_of("link"), &error), -ELOOP);
	ck_assert_ptr_nonnull(strstr(error.message, "symbolic link"));
	ck_assert_int_eq(mkfifo(path_of("fifo"), 0600), 0);
	ck_assert_int_lt(push_state_open(&s, path_of("fifo"), &error), 0);
	ck_assert_ptr_nonnull(strstr(error.message, "not a regular file"));
}
END_TEST

/*
 * What a cut, an editor or a disk can do to the file: each refused,
 * naming the file and the cause, and left as it is.
 */
START_TEST(state_cut_or_altered)
{
	const char *lines = "done\tperfrec-a-1.prf\ndone\tperfrec-a-2.prf\n"
			    "sent\tperfrec-a-3.prf\t7\tx{host=h,comm=x}\n";
	const char *path = path_of("state");
	char good[1024], text[1024];
	struct push_state *s;
	struct prf_error error;
	size_t length, end;
	struct {
		const char *what, *says;
	} cases[] = {
		{ "cut in a line", "its last line (4) is cut" },
		{ "cut after a line", "cut after line 3 (no end line)" },
		{ "cut in the end line", "its last line (5) is cut" },
		{ "NUL", "line 3 holds a NUL byte" },
		{ "CRLF", "line 1 holds a carriage return" },
		{ "a byte changed", "its checksum does not match" },
		{ "a line removed", "its checksum does not match" },
		{ "the checksum changed", "its checksum does not match" },
		{ "the checksum not hex", "its checksum does not match" },
		{ "empty", "empty" },
	};

	snprintf(good, sizeof(good), "%s", state_text(lines));
	length = strlen(good);
	end = (size_t)(strstr(good, "end\t") - good);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "%s", good);
		switch (i) {
		case 0: text[end - 10] = 0; break;
		case 1: text[(size_t)(strstr(good, "sent") - good)] = 0; break;
		case 2: text[length - 1] = 0; break;
		case 3: text[(size_t)(strstr(good, "a-2") - good)] = 0; break;
		case 4: {
			/* Every line ended by CRLF. */
			size_t n = 0;

			for (size_t j = 0; j < length; j++) {
				if (good[j] == '\n')
					text[n++] = '\r';
				text[n++] = good[j];
			}
			text[n] = 0;
			break;
		}
		case 5: text[(size_t)(strstr(good, "a-2") - good) + 2] = '7'; break;
		case 6: {
			char *line = strstr(text, "done\tperfrec-a-2");

			memmove(line, strchr(line, '\n') + 1, strlen(strchr(line, '\n') + 1) + 1);
			break;
		}
		case 7: text[end + 4] = text[end + 4] == '0' ? '1' : '0'; break;
		case 8: text[end + 4] = 'g'; break;
		case 9: text[0] = 0; break;
		}
		/* write_file() writes up to the first NUL: that one by hand. */
		if (i == 3) {
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

			ck_assert_int_eq(write(fd, good, length), (ssize_t)length);
			ck_assert_int_eq(pwrite(fd, "", 1, (off_t)strlen(text)), 1);
			close(fd);
		} else {
			write_file(path, text, 0600);
		}
		ck_assert_int_eq(push_state_open(&s, path, &error), -EBADMSG);
		ck_assert_ptr_null(s);
		ck_assert_msg(strstr(error.message, path) && strstr(error.message, cases[i].says) &&
			      strstr(error.message, "nothing is sent (remove the file"),
			      "%s: %s", cases[i].what, error.message);
		/* Refused, not repaired: the file is as it was. */
		if (i != 3)
			ck_assert_str_eq(read_text(path), text);
	}
	/* The good one reads. */
	write_file(path, good, 0600);
	ck_assert_int_eq(push_state_open(&s, path, &error), 0);
	ck_assert_int_eq(push_state_file_done(s, "perfrec-a-2.prf"), 1);
	ck_assert_int_eq(push_state_sent(s, "perfrec-a-3.prf", 7, "x{host=h,comm=x}"), 1);
	push_state_free(s);
}
END_TEST

/* The format before, without the checksum: read whole, then rewritten in the new one. */
START_TEST(state_old_format)
{
	const char *lines = "done\tperfrec-a-1.prf\nsent\tperfrec-a-2.prf\t7\tx\n";
	const char *path = path_of("state");
	char text[256];
	struct push_state *s;
	struct prf_error error;

	snprintf(text, sizeof(text), "perfrec-push state 1\n%s", lines);
	write_file(path, text, 0600);
	ck_assert_int_eq(push_state_open(&s, path, &error), 0);
	ck_assert_int_eq(push_state_file_done(s, "perfrec-a-1.prf"), 1);
	ck_assert_int_eq(push_state_sent(s, "perfrec-a-2.prf", 7, "x"), 1);
	push_state_free(s);
	ck_assert_str_eq(read_text(path), state_text(lines));
	/* Without a checksum, what can still be seen is refused: a cut line, a NUL, CRLF. */
	text[strlen(text) - 3] = 0;
	write_file(path, text, 0600);
	ck_assert_int_eq(push_state_open(&s, path, &error), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(error.message, "its last line (3) is cut"));
	write_file(path, "perfrec-push state 1\r\ndone\tperfrec-a-1.prf\r\n", 0600);
	ck_assert_int_eq(push_state_open(&s, path, &error), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(error.message, "carriage return"));
}
END_TEST

START_TEST(state_directory)
{
	char made[256];
	struct push_state *s;
	struct prf_error error;
	struct stat st;
	mode_t umask_was = umask(0);

	snprintf(made, sizeof(made), "%s", path_of("new/state"));
	/* Missing: made 0700, whatever the umask. */
	umask(0277);
	ck_assert_int_eq(push_state_open(&s, made, &error), 0);
	umask(umask_was);
	push_state_free(s);
	ck_assert_int_eq(stat(path_of("new"), &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	/* Written at once: a state that cannot be is said before anything is sent. */
	ck_assert_str_eq(read_text(made), state_text(""));
	/* Only the last part is made. */
	ck_assert_int_eq(push_state_open(&s, path_of("a/b/state"), &error), -ENOENT);
	ck_assert_ptr_nonnull(strstr(error.message, "cannot make its directory"));
	/* A symlink to a directory: not followed. */
	ck_assert_int_eq(symlink(path_of("new"), path_of("link")), 0);
	ck_assert_int_eq(push_state_open(&s, path_of("link/state"), &error), -ELOOP);
	ck_assert_ptr_nonnull(strstr(error.message, "is a symbolic link"));
	/* Others may replace the file in it: refused; with the sticky bit (/tmp) they may not. */
	ck_assert_int_eq(mkdir(path_of("open"), 0700), 0);
	ck_assert_int_eq(chmod(path_of("open"), 0777), 0);
	ck_assert_int_eq(push_state_open(&s, path_of("open/state"), &error), -EPERM);
	ck_assert_ptr_nonnull(strstr(error.message, "mode 777: others may replace the state"));
	ck_assert_int_eq(access(path_of("open/state"), F_OK), -1);
	ck_assert_int_eq(chmod(path_of("open"), 01777), 0);
	ck_assert_int_eq(push_state_open(&s, path_of("open/state"), &error), 0);
	push_state_free(s);
	/* A file others may write. */
	ck_assert_int_eq(chmod(made, 0622), 0);
	ck_assert_int_eq(push_state_open(&s, made, &error), -EPERM);
	ck_assert_ptr_nonnull(strstr(error.message, "mode 622"));
	ck_assert_int_eq(chmod(made, 0600), 0);
	/* Another user's directory or file: only root can make one here. */
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(made, 65534, 65534), 0);
		ck_assert_int_eq(push_state_open(&s, made, &error), -EPERM);
		ck_assert_ptr_nonnull(strstr(error.message, "owned by uid 65534"));
		ck_assert_int_eq(chown(made, 0, 0), 0);
		ck_assert_int_eq(chown(path_of("new"), 65534, 65534), 0);
		ck_assert_int_eq(push_state_open(&s, made, &error), -EPERM);
		ck_assert_ptr_nonnull(strstr(error.message, "is owned by uid 65534"));
	}
}
END_TEST

START_TEST(state_planted_temp)
{
	const char *path = path_of("state");
	const char *victim = path_of("victim");
	struct push_state *s;
	struct prf_error error;

	/* A link where the temporary file goes must not be written through. */
	write_file(victim, "keep me\n", 0600);
	ck_assert_int_eq(symlink(victim, path_of("state.tmp")), 0);
	ck_assert_int_eq(push_state_open(&s, path, &error), 0);
	ck_assert_int_eq(push_state_mark_done(s, "perfrec-a.prf"), 0);
	push_state_free(s);
	ck_assert_str_eq(read_text(victim), "keep me\n");
	ck_assert_str_eq(read_text(path), state_text("done\tperfrec-a.prf\n"));
}
END_TEST

/* ---- credentials ------------------------------------------------------------ */

START_TEST(credentials_good)
{
	const char *path = path_of("credentials");
	struct push_credentials c;
	struct prf_error error;

	write_file(path, "# comment\n\n  tenant   team-a  \nbearer-token abc.def\r\n", 0600);
	ck_assert_int_eq(push_credentials_load(&c, path, &error), 0);
	ck_assert_str_eq(c.tenant, "team-a");
	ck_assert_str_eq(c.bearer_token, "abc.def");
	ck_assert_ptr_null(c.basic_auth);
	push_credentials_free(&c);
	write_file(path, "basic-auth user:pa ss:word\n", 0400);
	ck_assert_int_eq(push_credentials_load(&c, path, &error), 0);
	ck_assert_str_eq(c.basic_auth, "user:pa ss:word");
	push_credentials_free(&c);
}
END_TEST

START_TEST(credentials_bad)
{
	static const struct {
		const char *text;
		mode_t mode;
		const char *says;
	} cases[] = {
		{ "tenant SECRET\n", 0640, "mode 640" },
		{ "tenant SECRET\n", 0604, "mode 604" },
		{ "tenant SECRET\n", 0620, "mode 620" },
		{ "password SECRET\n", 0600, "line 1: unknown key" },
		{ "# x\nbasic-auth SECRET\n", 0600, "line 2: basic-auth needs a value USER:PASSWORD" },
		{ "bearer-token SE\x01" "CRET\n", 0600, "line 1: bearer-token needs a value" },
		{ "tenant a\ntenant SECRET\n", 0600, "line 2: tenant given twice" },
		{ "basic-auth u:SECRET\nbearer-token SECRET\n", 0600, "both given" },
	};
	const char *path = path_of("credentials");
	struct push_credentials c;
	struct prf_error error;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(path, cases[i].text, cases[i].mode);
		ck_assert_int_lt(push_credentials_load(&c, path, &error), 0);
		ck_assert_msg(strstr(error.message, cases[i].says), "case %zu: %s", i, error.message);
		/* Where, never what. */
		ck_assert_msg(!strstr(error.message, "SECRET"), "case %zu shows the secret: %s", i,
			      error.message);
		ck_assert_ptr_null(c.tenant);
		ck_assert_ptr_null(c.basic_auth);
		ck_assert_ptr_null(c.bearer_token);
	}
	write_file(path, "tenant SECRET\n", 0600);
	ck_assert_int_eq(symlink(path, path_of("link")), 0);
	ck_assert_int_eq(push_credentials_load(&c, path_of("link"), &error), -ELOOP);
	ck_assert_ptr_nonnull(strstr(error.message, "symbolic link"));
	ck_assert_int_lt(push_credentials_load(&c, dir, &error), 0);
	ck_assert_int_lt(push_credentials_load(&c, path_of("missing"), &error), 0);
	/* Another owner: only root can make one here. */
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(push_credentials_load(&c, path, &error), -EPERM);
		ck_assert_ptr_nonnull(strstr(error.message, "owned by uid 65534"));
	}
}
END_TEST

/* ---- names and options ---------------------------------------------------------- */

START_TEST(series_names)
{
	struct push_label labels[] = { { "env", "prod" }, { "dc", "a,b=c" } };
	struct push_options o = { .labels = labels, .label_count = 2 };
	char *name;

	name = push_series_name(&o, "web-1", "nginx.service", 1);
	ck_assert_str_eq(name, "nginx.service{host=web-1,unit=nginx.service,env=prod,dc=a_b_c}");
	free(name);
	/* A hostile comm cannot end the name or add a label. */
	name = push_series_name(&o, "h}", "x{a=b},c=d \"\\\n\xc3\xa9", 0);
	ck_assert_str_eq(name, "x_a_b__c_d______{host=h_,comm=x_a_b__c_d______,env=prod,dc=a_b_c}");
	free(name);
	o.app = "myapp";
	o.label_count = 0;
	name = push_series_name(&o, NULL, "", 0);
	ck_assert_str_eq(name, "myapp{host=[unknown],comm=_}");
	free(name);
}
END_TEST

static int parse(const char *first, ...)
{
	char *argv[16] = { "perfrec-push" };
	int argc = 1, ret;
	struct push_options o;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a && argc < 15; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	optind = 0;
	opterr = 0;
	ret = push_options_parse(&o, argc, argv);
	push_options_free(&o);
	return ret;
}

START_TEST(options)
{
	char label[] = "env=prod", bad_key[] = "9x=1", ours[] = "host=x";

	ck_assert_int_eq(parse("--url", "http://h:4040", "d", NULL), 0);
	ck_assert_int_eq(parse("--url", "https://h/prefix/", "--label", label, "d", NULL), 0);
	ck_assert_int_eq(parse("--url", "http://user:pw@h", "d", NULL), 2);
	ck_assert_int_eq(parse("--url", "ftp://h", "d", NULL), 2);
	ck_assert_int_eq(parse("--url", "http://h?x=1", "d", NULL), 2);
	ck_assert_int_eq(parse("--url", "http://h", NULL), 2);
	ck_assert_int_eq(parse("d", NULL), 2);
	ck_assert_int_eq(parse("--url", "http://h", "--label", bad_key, "d", NULL), 2);
	ck_assert_int_eq(parse("--url", "http://h", "--label", ours, "d", NULL), 2);
	ck_assert_int_eq(parse("--url", "http://h", "--interval", "0", "d", NULL), 2);
	ck_assert_int_eq(parse("--url", "http://h", "--timeout", "-1", "d", NULL), 2);
}
END_TEST

/* ---- the event ---------------------------------------------------------- */

static void count_sample(void *context, const struct session_sample *sample)
{
	(void)sample;
	(*(uint64_t *)context)++;
}

START_TEST(two_events_of_one_kind)
{
	const char *builddir = getenv("top_builddir");
	const char *path = path_of("two.prf");
	struct report_load_options load = { .jobs = 1 };
	struct report_profile profile = { 0 };
	struct push_options push = { .interval_s = 60 };
	struct push_state *state;
	struct push_capture capture;
	struct symbolizer *symbolizer;
	struct prf_error error = { 0 };
	char command[512];
	uint64_t report_samples = 0, push_samples = 0;

	snprintf(command, sizeof(command), "'%s/tests/make-fixture' --two-events '%s'",
		 builddir ? builddir : ".", path);
	ck_assert_int_eq(system(command), 0);
	/* perfrec-report's choice: both events, one profile. */
	ck_assert_int_eq(report_profile_load(&profile, &load, &path, 1, &error), 0);
	ck_assert_int_eq(report_profile_choose_event(&profile, NULL, &error), 0);
	ck_assert_uint_eq(profile.data.header.event_count, 2);
	ck_assert_ptr_null(profile.filter.event);
	ck_assert_int_eq(report_for_each_sample(&profile, count_sample, &report_samples), 0);
	/* perfrec-push's: the same samples. */
	ck_assert_int_eq(push_state_open(&state, path_of("state"), &error), 0);
	symbolizer = push_symbolizer_new(&push);
	ck_assert_ptr_nonnull(symbolizer);
	ck_assert_int_eq(push_capture_read(&capture, &push, symbolizer, path, "two.prf", state,
					   0, &error), 0);
	for (size_t i = 0; i < capture.count; i++)
		push_samples += capture.profiles[i].samples;
	ck_assert_uint_eq(report_samples, 8);
	ck_assert_uint_eq(push_samples, report_samples);
	ck_assert_uint_eq(capture.sample_rate, profile.data.header.sampling.frequency);
	ck_assert_str_eq(capture.sample_type, "cpu");
	push_capture_free(&capture);
	symbolizer_free(symbolizer);
	push_state_free(state);
	report_profile_free(&profile);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("push");
	TCase *tc = tcase_create("push");
	SRunner *runner;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, state_round_trip);
	tcase_add_test(tc, state_prune);
	tcase_add_test(tc, state_damaged);
	tcase_add_test(tc, state_cut_or_altered);
	tcase_add_test(tc, state_old_format);
	tcase_add_test(tc, state_directory);
	tcase_add_test(tc, state_planted_temp);
	tcase_add_test(tc, credentials_good);
	tcase_add_test(tc, credentials_bad);
	tcase_add_test(tc, series_names);
	tcase_add_test(tc, options);
	tcase_add_test(tc, two_events_of_one_kind);
	suite_add_tcase(suite, tc);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_ENV);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? 1 : 0;
}
