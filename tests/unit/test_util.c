/* Unit tests of src/util: word splitting, quoting, parsing, formatting,
 * escaping, atomic files (and what another user may plant in their way)
 * and git discovery. The tests of hostile files need root, to make them
 * as nobody; as another user they are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/dynlib.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/gitdir.h"
#include "util/hashmap.h"
#include "util/hugemem.h"
#include "util/json_emit.h"
#include "util/monoclock.h"
#include "util/paramscan.h"
#include "util/procdir.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/suggest.h"
#include "util/term.h"
#include "proc_alive.h"
#include "testfiles.h"

static void expect_words(const char *s, const char *const *want)
{
	char **argv;
	size_t argc, n = 0;
	struct error e;

	assert_int_equal(split_words(s, &argv, &argc, &e), 0);
	while (want[n])
		n++;
	assert_int_equal(argc, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[n]);
	argv_free(argv);
}

static void test_split_plain(void **state)
{
	expect_words("sort  -n\tfile", (const char *[]){ "sort", "-n", "file",
							NULL });
	expect_words("", (const char *[]){ NULL });
	expect_words("   ", (const char *[]){ NULL });
}

static void test_split_quotes(void **state)
{
	expect_words("echo 'a b' \"c d\"",
		     (const char *[]){ "echo", "a b", "c d", NULL });
	expect_words("a'b'\"c\"d", (const char *[]){ "abcd", NULL });
	expect_words("x '' \"\"", (const char *[]){ "x", "", "", NULL });
	/* Single quotes keep backslashes and dollars literally. */
	expect_words("'a\\b $HOME'", (const char *[]){ "a\\b $HOME", NULL });
	/* In double quotes only \" \\ \$ \` are escapes. */
	expect_words("\"a\\\"b\\\\c\\$d\\e\"",
		     (const char *[]){ "a\"b\\c$d\\e", NULL });
	/* No expansion of any kind. */
	expect_words("echo $HOME * ~", (const char *[]){ "echo", "$HOME", "*",
							"~", NULL });
}

static void test_split_backslash(void **state)
{
	expect_words("a\\ b c\\'d", (const char *[]){ "a b", "c'd", NULL });
	expect_words("a\\\nb", (const char *[]){ "ab", NULL });
}

static void test_split_errors(void **state)
{
	char **argv = NULL;
	struct error e;

	assert_int_equal(split_words("echo 'abc", &argv, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "unterminated quote"));
	assert_int_equal(split_words("echo \"abc", &argv, NULL, &e), -1);
	assert_int_equal(split_words("echo abc\\", &argv, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "trailing backslash"));
}

static void test_join_roundtrip(void **state)
{
	char *in[] = { "prog", "a b", "it's", "", "$x", "plain-1.0", NULL };
	char *line = argv_join(in), **back;
	size_t n;

	assert_string_equal(line,
			    "prog 'a b' 'it'\\''s' '' '$x' plain-1.0");
	assert_int_equal(split_words(line, &back, &n, NULL), 0);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(back[i], in[i]);
	argv_free(back);
	free(line);
}

static void test_replace(void **state)
{
	char *s = str_replace("sort {n} {n}x {m}", "{n}", "100");

	assert_string_equal(s, "sort 100 100x {m}");
	free(s);
	s = str_replace("", "{n}", "1");
	assert_string_equal(s, "");
	free(s);
}

/* The plural endings: 1 alone is singular ("0 processes", "1 process",
 * "2 processes"; "0 results", "1 result"). */
static void test_plural(void **state)
{
	(void)state;
	assert_string_equal(plural_s(0), "s");
	assert_string_equal(plural_s(1), "");
	assert_string_equal(plural_s(2), "s");
	assert_string_equal(plural_es(0), "es");
	assert_string_equal(plural_es(1), "");
	assert_string_equal(plural_es(7), "es");
}

static void test_parse_duration(void **state)
{
	double v;

	assert_int_equal(parse_duration("3", &v), 0);
	assert_true(v == 3);
	assert_int_equal(parse_duration("1.5s", &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(parse_duration("250ms", &v), 0);
	assert_float_equal(v, 0.25, 1e-15);
	assert_int_equal(parse_duration("10us", &v), 0);
	assert_float_equal(v, 1e-5, 1e-18);
	assert_int_equal(parse_duration("7ns", &v), 0);
	assert_float_equal(v, 7e-9, 1e-20);
	assert_int_equal(parse_duration("3h", &v), -1);
	assert_int_equal(parse_duration("-1", &v), -1);
	assert_int_equal(parse_duration("", &v), -1);
	assert_int_equal(parse_duration("ms", &v), -1);
	assert_int_equal(parse_duration("nan", &v), -1);
}

static void test_parse_numbers(void **state)
{
	long l;
	double d;

	assert_int_equal(parse_long("42", &l), 0);
	assert_int_equal(l, 42);
	assert_int_equal(parse_long("4x", &l), -1);
	assert_int_equal(parse_long("", &l), -1);
	assert_int_equal(parse_double("1e3", &d), 0);
	assert_true(d == 1000);
	assert_int_equal(parse_double("abc", &d), -1);
}

static void test_fmt_value(void **state)
{
	char b[32];

	assert_string_equal(fmt_value(0.0012345, "s", b, sizeof(b)),
			    "1.234 ms");
	assert_string_equal(fmt_value(1.5, "s", b, sizeof(b)), "1.500 s");
	assert_string_equal(fmt_value(2.5e-7, "s", b, sizeof(b)), "250.0 ns");
	assert_string_equal(fmt_value(15.0e-6, "s", b, sizeof(b)),
			    "15.00 µs");
	assert_string_equal(fmt_value(512, "bytes", b, sizeof(b)), "512 B");
	assert_string_equal(fmt_value(1536, "bytes", b, sizeof(b)),
			    "1.500 KiB");
	assert_string_equal(fmt_value(3 * 1048576.0, "bytes", b, sizeof(b)),
			    "3.000 MiB");
	assert_string_equal(fmt_value(999, "count", b, sizeof(b)), "999");
	assert_string_equal(fmt_value(1234567, "count", b, sizeof(b)),
			    "1.235 M");
	assert_string_equal(fmt_value(0, "s", b, sizeof(b)), "0 s");
	assert_string_equal(fmt_value(8e6, "flop", b, sizeof(b)),
			    "8.000 Mflop");
	assert_string_equal(fmt_value(512, "flop", b, sizeof(b)),
			    "512.0 flop");
	/* run --work flops */
	assert_string_equal(fmt_value(1.6e7, "flop", b, sizeof(b)),
			    "16.00 Mflop");
}

/* Values past the units' prefixes and changes past a million per cent
 * (a result may hold values up to 1e30) print whole, in exponent form:
 * fixed decimals printed 30 digits, which a 32-byte buffer cut, unit
 * and all. Generated over every decade a result can hold, each unit. */
static void test_fmt_value_extremes(void **state)
{
	static const char *const units[] = {
		"s", "bytes", "count", "flop", "bytes/s", "flop/s", "ms", ""
	};
	char b[32];

	(void)state;
	assert_string_equal(fmt_value(2.366e29, "s", b, sizeof(b)),
			    "2.366e+29 s");
	assert_string_equal(fmt_value(1e-20, "s", b, sizeof(b)),
			    "1e-11 ns");
	assert_string_equal(fmt_change_pct(2.01e29, b, sizeof(b)),
			    "+2.01e+31%");
	assert_string_equal(fmt_change_pct(-0.5, b, sizeof(b)), "-50.0%");
	assert_string_equal(fmt_change_pct(123.4, b, sizeof(b)),
			    "+12340.0%");
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		for (int e = -30; e <= 30; e++) {
			double v = 1.2345 * pow(10, e);
			double back;
			char *end;

			fmt_value(v, units[u], b, sizeof(b));
			/* never cut: the number no longer than 4
			 * significant digits and an exponent need */
			assert_true(strlen(b) < sizeof(b) - 1);
			assert_true(strlen(b) <= 12 + strlen(units[u]) + 5);
			back = strtod(b, &end);
			assert_true(end != b);
			assert_true(back > 0);
			fmt_change_pct(v, b, sizeof(b));
			assert_true(strlen(b) <= 12);
			assert_true(b[strlen(b) - 1] == '%');
		}
	}
}

static char *capture(void (*fn)(const char *, FILE *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	fn(s, fp);
	fclose(fp);
	return buf;
}

static void test_escaping(void **state)
{
	char *s;

	s = capture(fputs_csv, "plain");
	assert_string_equal(s, "plain");
	free(s);
	s = capture(fputs_csv, "a,\"b\"");
	assert_string_equal(s, "\"a,\"\"b\"\"\"");
	free(s);
	s = capture(fputs_csv, "=cmd()");
	assert_string_equal(s, "\"'=cmd()\"");
	free(s);
	/* issue 25 case 21: every formula start is defused in a text cell;
	 * a cell that is a number stays one, negative or signed */
	{
		static const char *const text[] = {
			"=1+1", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
			"-", "+", "-inf", "-nan", "-1,2", "-0x10", "--1",
			"\t=1", "\r=1",
		};
		static const char *const num[] = {
			"-5", "-1.5e-3", "+2", "0.25", "-0", "1e300",
		};

		for (size_t i = 0; i < sizeof(text) / sizeof(*text); i++) {
			s = capture(fputs_csv, text[i]);
			assert_true(s[0] == '"' && s[1] == '\'');
			free(s);
		}
		for (size_t i = 0; i < sizeof(num) / sizeof(*num); i++) {
			s = capture(fputs_csv, num[i]);
			assert_string_equal(s, num[i]);
			free(s);
		}
	}
	s = capture(fputs_markdown, "a|b <i>`x`</i>");
	assert_string_equal(s, "a\\|b &lt;i&gt;\\`x\\`&lt;/i&gt;");
	free(s);
	s = capture(fputs_xml, "<a href=\"x\">&'");
	assert_string_equal(s, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;");
	free(s);
}

static void test_atomic_file(void **state)
{
	char dir[] = "/tmp/ys-test-XXXXXX";
	struct atomic_file af;
	struct error e;
	char *path, *data;
	size_t len;

	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/out.txt", dir);
	assert_int_equal(atomic_open(&af, path, &e), 0);
	fputs("hello", af.fp);
	/* Nothing at the target until the commit. */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(atomic_commit(&af, &e), 0);
	assert_int_equal(file_read_all(path, &data, &len, &e), 0);
	assert_string_equal(data, "hello");
	free(data);

	/* An aborted write leaves the old file and no temporary. */
	assert_int_equal(atomic_open(&af, path, &e), 0);
	fputs("half", af.fp);
	atomic_abort(&af);
	assert_int_equal(file_read_all(path, &data, &len, &e), 0);
	assert_string_equal(data, "hello");
	free(data);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);	/* fails if a temp was left */
	free(path);

	assert_int_equal(atomic_open(&af, "/nonexistent-dir/x.json", &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent-dir/x.json"));
	assert_int_equal(file_read_all("/nonexistent-file", &data, &len, &e),
			 -1);
	assert_non_null(strstr(e.msg, "'/nonexistent-file'"));
}

/* atomic_open(path) fails, its message holding every needle. */
static void assert_refused(const char *path, const char *n1, const char *n2)
{
	struct atomic_file af;
	struct error e;

	assert_int_equal(atomic_open(&af, path, &e), -1);
	if (!strstr(e.msg, n1) || (n2 && !strstr(e.msg, n2)))
		fail_msg("unexpected message: %s", e.msg);
	assert_int_equal(atomic_check(path, &e), -1);
}

static void write_all(const char *path, const char *text)
{
	struct atomic_file af;
	struct error e;

	if (atomic_open(&af, path, &e))
		fail_msg("%s", e.msg);
	fputs(text, af.fp);
	if (atomic_commit(&af, &e))
		fail_msg("%s", e.msg);
}

static char *tmp_in(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* Count the entries of dir whose name holds ".tmp.". */
static int temps_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strstr(de->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

/*
 * atomic_unlink_temps (a second Ctrl-C's exit, util/stop.c): the
 * temporary files of every atomic file open now go, for 1 to 5 files
 * open at once; those committed or aborted before are not touched, the
 * targets stay as they were.
 */
static void test_atomic_unlink_temps(void **state)
{
	(void)state;
	for (int open_now = 1; open_now <= 5; open_now++) {
		char dir[] = "/tmp/ys-test-XXXXXX";
		struct atomic_file af[5], done;
		struct error e;
		char *kept, *path;

		assert_non_null(mkdtemp(dir));
		kept = xasprintf("%s/kept.json", dir);
		write_all(kept, "old");
		/* one committed and one aborted before: nothing of theirs */
		assert_int_equal(atomic_open(&done, kept, &e), 0);
		atomic_abort(&done);
		for (int i = 0; i < open_now; i++) {
			path = xasprintf("%s/out%d.json", dir, i);
			assert_int_equal(atomic_open(&af[i], path, &e), 0);
			fputs("half", af[i].fp);
			fflush(af[i].fp);
			free(path);
		}
		/* kept.json is replaced by its own atomic file, open too */
		assert_int_equal(atomic_open(&done, kept, &e), 0);
		assert_int_equal(temps_in(dir), open_now + 1);
		atomic_unlink_temps();
		assert_int_equal(temps_in(dir), 0);
		/* and the writers fail cleanly afterwards: nothing appears */
		for (int i = 0; i < open_now; i++)
			atomic_abort(&af[i]);
		atomic_abort(&done);
		write_all(kept, "new");	/* the slots were given back */
		assert_int_equal(temps_in(dir), 0);
		for (int i = 0; i < open_now; i++) {
			path = xasprintf("%s/out%d.json", dir, i);
			assert_int_equal(access(path, F_OK), -1);
			free(path);
		}
		unlink(kept);
		free(kept);
		assert_int_equal(rmdir(dir), 0);
	}
}

/*
 * In a shared sticky directory, nobody's symlink (to root's file, dangling,
 * or as a directory on the way), FIFO or file is never followed, written
 * or replaced by root; root's own symlink is, and so is the symlink of a
 * directory's owner in their directory (the kernel's protected_symlinks
 * rule). The file replaced keeps its mode.
 */
static void test_atomic_hostile(void **state)
{
	char dir[] = "/tmp/ys-test-XXXXXX", other[] = "/tmp/ys-test-XXXXXX";
	char *secret, *evil, *dangle, *target, *via, *mine, *mtarget;
	char *fifo, *theirs, *ndir, *nlink, *ntarget, *mode;
	struct stat st;

	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(other));
	assert_int_equal(chmod(dir, 01777), 0);
	secret = tmp_in(other, "secret");
	put(secret, "secret\n");
	assert_int_equal(chmod(secret, 0600), 0);

	evil = tmp_in(dir, "evil.json");
	assert_int_equal(symlink(secret, evil), 0);
	assert_int_equal(lchown(evil, 65534, 65534), 0);
	assert_refused(evil, "refusing to follow the symlink", "nobody");
	assert_content(secret, "secret\n");
	assert_int_equal(stat(secret, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	dangle = tmp_in(dir, "dangle.json");
	target = tmp_in(other, "created.json");
	assert_int_equal(symlink(target, dangle), 0);
	assert_int_equal(lchown(dangle, 65534, 65534), 0);
	assert_refused(dangle, "refusing to follow the symlink", "nobody");
	assert_int_equal(lstat(target, &st), -1);

	/* a symlinked directory on the way counts the same */
	via = tmp_in(dir, "via");
	assert_int_equal(symlink(other, via), 0);
	assert_int_equal(lchown(via, 65534, 65534), 0);
	free(via);
	via = tmp_in(dir, "via/secret");
	assert_refused(via, "refusing to follow the symlink", "/via'");
	assert_content(secret, "secret\n");

	/* root's own symlink is followed: its target is replaced, the link
	 * stays */
	mine = tmp_in(dir, "mine.json");
	mtarget = tmp_in(other, "mine-target.json");
	assert_int_equal(symlink(mtarget, mine), 0);
	write_all(mine, "ok");
	assert_content(mtarget, "ok");
	assert_int_equal(lstat(mine, &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	/* nobody's FIFO is not opened (which would block), nor their file
	 * replaced */
	fifo = tmp_in(dir, "fifo");
	assert_int_equal(mkfifo(fifo, 0666), 0);
	assert_int_equal(chown(fifo, 65534, 65534), 0);
	assert_refused(fifo, "refusing to write into", "nobody");
	theirs = tmp_in(dir, "theirs.json");
	put(theirs, "theirs");
	assert_int_equal(chown(theirs, 65534, 65534), 0);
	assert_refused(theirs, "refusing to replace the file", "nobody");
	assert_content(theirs, "theirs");

	/* nobody's symlink in nobody's own directory is theirs to make */
	ndir = tmp_in(dir, "n");
	assert_int_equal(mkdir(ndir, 0755), 0);
	assert_int_equal(chown(ndir, 65534, 65534), 0);
	nlink = tmp_in(ndir, "link.json");
	ntarget = tmp_in(other, "n-target.json");
	assert_int_equal(symlink(ntarget, nlink), 0);
	assert_int_equal(lchown(nlink, 65534, 65534), 0);
	write_all(nlink, "n");
	assert_content(ntarget, "n");

	/* the mode of a file replaced is kept */
	mode = tmp_in(other, "mode.json");
	put(mode, "old");
	assert_int_equal(chmod(mode, 0600), 0);
	write_all(mode, "new");
	assert_int_equal(stat(mode, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(chmod(mode, 0640), 0);
	write_all(mode, "newer");
	assert_int_equal(stat(mode, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_content(mode, "newer");

	free(secret); free(evil); free(dangle); free(target); free(via);
	free(mine); free(mtarget); free(fifo); free(theirs); free(ndir);
	free(nlink); free(ntarget); free(mode);
	{
		char *cmd = xasprintf("rm -rf '%s' '%s'", dir, other);

		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
}

/* A full disk is reported as such, whenever the write that met it came:
 * the errno of the failed write(2) is kept, not a later one. */
static void test_atomic_errno(void **state)
{
	struct atomic_file af;
	struct error e;
	char *want = xasprintf("cannot write '/dev/full': %s",
			       strerror(ENOSPC));

	assert_int_equal(atomic_open(&af, "/dev/full", &e), 0);
	for (int i = 0; i < 10000; i++)
		fputs("0123456789", af.fp);
	errno = ENOENT;		/* what a later call might leave */
	assert_int_equal(atomic_commit(&af, &e), -1);
	assert_string_equal(e.msg, want);
	/* a small write that fails only at the flush, too */
	assert_int_equal(atomic_open(&af, "/dev/full", &e), 0);
	fputs("{}", af.fp);
	assert_int_equal(atomic_commit(&af, &e), -1);
	assert_string_equal(e.msg, want);
	free(want);
	/* a directory named as the output */
	assert_int_equal(atomic_open(&af, "/tmp", &e), -1);
	assert_non_null(strstr(e.msg, strerror(EISDIR)));
	assert_int_equal(atomic_open(&af, "/tmp/", &e), -1);
	assert_non_null(strstr(e.msg, strerror(EISDIR)));
}

/* An endless input (/dev/zero) is refused at FILE_READ_MAX, not read into
 * memory for ever; a small file still reads whole. */
static void test_read_all_bounded(void **state)
{
	struct error e;
	char *data = NULL;
	size_t len = 0;

	assert_int_equal(file_read_all("/dev/zero", &data, &len, &e), -1);
	assert_null(data);
	assert_non_null(strstr(e.msg, "'/dev/zero'"));
	assert_non_null(strstr(e.msg, "larger than 256 MiB"));
	assert_int_equal(file_read_all("/proc/self/cmdline", &data, &len, &e),
			 0);
	assert_true(len > 0 && data[len] == '\0');
	free(data);
}

static void test_ref_names(void **state)
{
	static const char *const good[] = {
		"refs/heads/main", "refs/heads/feat/x-1.2", "refs/tags/v1",
		"refs/heads/a@b", "refs/heads/ünï",
	};
	static const char *const bad[] = {
		"refs/heads/../../../../root/secret", "/etc/passwd",
		"refs/heads/a..b", "refs/heads/.hidden", "refs/heads/x.lock",
		"refs/heads/a//b", "refs/heads/a/", "refs/heads/a.",
		"refs/heads/a\x01", "refs/heads/a b", "refs/heads/a~1",
		"refs/heads/a^", "refs/heads/a:b", "refs/heads/a?",
		"refs/heads/a*", "refs/heads/a[", "refs/heads/a\\b",
		"refs/heads/a@{1}", "refs/heads/a\x7f", "HEAD", "main",
		"refs/", "refs/heads/", "",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!gitdir_ref_valid(good[i]))
			fail_msg("'%s' should be valid", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gitdir_ref_valid(bad[i]))
			fail_msg("'%s' should be invalid", bad[i]);
}

static char *sh_out(const char *cmd)
{
	FILE *fp = popen(cmd, "r");
	char buf[256] = "";

	assert_non_null(fp);
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	pclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

static int run(const char *fmt, const char *dir)
{
	char *cmd = xasprintf(fmt, dir, dir, dir, dir);
	int ret = system(cmd);

	free(cmd);
	return ret;
}

/* gitdir_head of the repository at or above start: 0/-1, commit, branch,
 * message. */
static int head_of(const char *start, char **commit, char **branch,
		   struct error *e)
{
	struct gitdir g;
	int ret = gitdir_find(start, &g, e);

	*commit = *branch = NULL;
	if (ret)
		return ret;
	ret = gitdir_head(&g, commit, branch, e);
	gitdir_free(&g);
	return ret;
}

/*
 * A real repository is found from a subdirectory, its HEAD read through
 * loose and packed refs and a worktree's commondir. A HEAD leading
 * outside .git, through a symlink or to a FIFO gives no commit and an
 * error; a detached HEAD that is no object name gives none.
 */
static void test_gitdir(void **state)
{
	char dir[] = "/tmp/ys-test-git-XXXXXX";
	char *commit, *branch, *head, *sub, *wt, *cmd;
	struct gitdir g;
	struct error e;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(run("cd '%s' && git init -q -b trunk r && cd r && "
			     "mkdir -p a/b && git -c user.name=t -c "
			     "user.email=t@t commit -q --allow-empty -m one",
			     dir), 0);
	cmd = xasprintf("git -C '%s/r' rev-parse HEAD", dir);
	head = sh_out(cmd);
	free(cmd);
	sub = xasprintf("%s/r/a/b", dir);
	assert_int_equal(gitdir_find(sub, &g, &e), 0);
	cmd = xasprintf("%s/r", dir);
	assert_string_equal(g.top, cmd);
	free(cmd);
	gitdir_free(&g);
	assert_int_equal(head_of(sub, &commit, &branch, &e), 0);
	assert_string_equal(commit, head);
	assert_string_equal(branch, "trunk");
	free(commit);
	free(branch);

	/* packed refs only */
	assert_int_equal(run("git -C '%s/r' pack-refs --all", dir), 0);
	assert_int_equal(head_of(sub, &commit, &branch, &e), 0);
	assert_string_equal(commit, head);
	free(commit);
	free(branch);

	/* a worktree: .git file, commondir */
	assert_int_equal(run("git -C '%s/r' worktree add -q -b side '%s/wt'",
			     dir), 0);
	wt = xasprintf("%s/wt", dir);
	assert_int_equal(head_of(wt, &commit, &branch, &e), 0);
	assert_string_equal(commit, head);
	assert_string_equal(branch, "side");
	free(commit);
	free(branch);

	/* HEAD leading outside .git, with an object name at the end */
	assert_int_equal(run("printf '%%s\\n' "
			     "0123456789abcdef0123456789abcdef01234567 > "
			     "'%s/outside' && printf 'ref: refs/heads/../../"
			     "../outside\\n' > '%s/r/.git/HEAD'", dir), 0);
	assert_int_equal(head_of(sub, &commit, &branch, &e), -1);
	assert_null(commit);
	assert_null(branch);
	assert_non_null(strstr(e.msg, "invalid ref 'refs/heads/../"));

	/* a ref that is a symlink out of .git */
	assert_int_equal(run("printf 'ref: refs/heads/link\\n' > "
			     "'%s/r/.git/HEAD' && ln -s '%s/outside' "
			     "'%s/r/.git/refs/heads/link'", dir), 0);
	assert_int_equal(head_of(sub, &commit, &branch, &e), -1);
	assert_null(commit);
	assert_non_null(strstr(e.msg, "refs/heads/link"));
	free(branch);

	/* a detached HEAD that is no object name: the first line of some
	 * file is never taken for a commit */
	assert_int_equal(run("printf 'root:x:0:0\\n' > '%s/r/.git/HEAD'",
			     dir), 0);
	assert_int_equal(head_of(sub, &commit, &branch, &e), 0);
	assert_null(commit);
	assert_null(branch);

	/* a FIFO as HEAD: no hang */
	assert_int_equal(run("rm '%s/r/.git/HEAD' && mkfifo '%s/r/.git/HEAD'",
			     dir), 0);
	assert_int_equal(head_of(sub, &commit, &branch, &e), -1);
	assert_null(commit);

	if (geteuid() == 0) {
		/* a repository of another user: refused, named */
		assert_int_equal(run("rm '%s/r/.git/HEAD' && printf "
				     "'ref: refs/heads/trunk\\n' > "
				     "'%s/r/.git/HEAD' && chown -R nobody "
				     "'%s/r'", dir), 0);
		assert_int_equal(gitdir_find(sub, &g, &e), -1);
		assert_non_null(strstr(e.msg, "nobody"));
		assert_non_null(strstr(e.msg, "/r'"));
		/* ... unless git's safe.directory lists it */
		cmd = xasprintf("%s/gitconfig", dir);
		setenv("GIT_CONFIG_GLOBAL", cmd, 1);
		assert_int_equal(run("git config --global safe.directory "
				     "'%s/r'", dir), 0);
		assert_int_equal(head_of(sub, &commit, &branch, &e), 0);
		assert_string_equal(commit, head);
		free(commit);
		free(branch);
		assert_int_equal(run("git config --global --replace-all "
				     "safe.directory '%s/*'", dir), 0);
		assert_int_equal(gitdir_find(sub, &g, &e), 0);
		gitdir_free(&g);
		assert_int_equal(run("git config --global --replace-all "
				     "safe.directory '%s/other'", dir), 0);
		assert_int_equal(gitdir_find(sub, &g, &e), -1);
		unsetenv("GIT_CONFIG_GLOBAL");
		free(cmd);
		/* a worktree whose commondir is theirs */
		assert_int_equal(head_of(wt, &commit, &branch, &e), -1);
		assert_non_null(strstr(e.msg, "nobody"));
		/* only the .git directory is theirs */
		assert_int_equal(run("chown root '%s/r'", dir), 0);
		assert_int_equal(gitdir_find(sub, &g, &e), -1);
		assert_non_null(strstr(e.msg, "/r/.git'"));
	}
	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(head);
	free(sub);
	free(wt);
}

/* util/monoclock: one clock in two units, never going back. */
static void test_monoclock(void **state)
{
	int64_t a, b;
	double s;

	(void)state;
	a = monoclock_ns();
	s = monoclock_s();
	b = monoclock_ns();
	assert_true(a > 0 && b >= a);
	/* The seconds were read between the two nanosecond readings. */
	assert_true(s * 1e9 >= (double)a - 1e3 && s * 1e9 <= (double)b + 1e3);
	for (int i = 0; i < 1000; i++) {
		int64_t c = monoclock_ns();

		assert_true(c >= b);
		b = c;
	}
}

/* util/hashidx: values found by the caller's hash, several per hash,
 * every one kept through growth, a lookup about one hash match. */
static void test_hashidx(void **state)
{
	struct hashidx ix;
	uint64_t v, seen = 0;
	size_t pos, n = 0;

	(void)state;
	hashidx_init(&ix);
	assert_int_equal(hashidx_first(&ix, 7, &pos), 0);
	/* Three values under one hash, one under another. */
	hashidx_add(&ix, 7, 1);
	hashidx_add(&ix, 7, 2);
	hashidx_add(&ix, 8, 3);
	hashidx_add(&ix, 7, 4);
	for (v = hashidx_first(&ix, 7, &pos); v; v = hashidx_next(&ix, 7, &pos))
		seen |= 1u << v, n++;
	assert_int_equal(n, 3);
	assert_int_equal(seen, 2 | 4 | 16);
	assert_int_equal(hashidx_first(&ix, 8, &pos), 3);
	assert_int_equal(hashidx_next(&ix, 8, &pos), 0);
	assert_int_equal(hashidx_first(&ix, 9, &pos), 0);
	hashidx_free(&ix);

	/* Pointers as values, and ids from 1 to 100000 under hash_u64. */
	hashidx_add(&ix, hash_str("x"), (uint64_t)(uintptr_t)&ix);
	assert_ptr_equal((void *)(uintptr_t)hashidx_first(&ix, hash_str("x"),
							  &pos), &ix);
	assert_true(hash_str("x") != hash_str("y"));
	for (uint64_t i = 1; i <= 100000; i++)
		hashidx_add(&ix, hash_u64(i), i);
	assert_int_equal(ix.len, 100001);
	assert_true(ix.cap >= 2 * ix.len);
	/* 4 MiB of slots: mapped for huge pages (util/hugemem.h) */
	assert_true(ix.mapped >= ix.cap * sizeof(*ix.slots));
	for (uint64_t i = 1; i <= 100000; i++) {
		v = hashidx_first(&ix, hash_u64(i), &pos);
		assert_int_equal(v, i);
		assert_int_equal(hashidx_next(&ix, hash_u64(i), &pos), 0);
	}
	hashidx_free(&ix);
	assert_int_equal(ix.cap, 0);
}

/*
 * hashidx given hashes a traced program can choose (the heap replay's
 * site index is keyed by hash_u64 of the stack hash the program writes,
 * one-to-one, so it chooses the index's hash): 200,000 distinct hashes
 * with the same low 32 bits. Homed by those bits they made one run of
 * slots, each add and look-up a walk of it (20,000 such stack hashes
 * took 7 s of the replay); homed by a keyed mix (hash_secret), they are
 * spread. The test gives up past 3 s of CPU; each is found.
 */
static void test_hashidx_chosen(void **state)
{
	struct hashidx ix;
	const uint64_t n = 200000;
	struct timespec a, b;
	size_t pos;

	(void)state;
	hashidx_init(&ix);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (uint64_t j = 0; j < n; j++) {
		hashidx_add(&ix, (j + 1) << 32 | 0x12345, j + 1);
		if (j % 1000)
			continue;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		if ((double)(b.tv_sec - a.tv_sec) +
		    (b.tv_nsec - a.tv_nsec) * 1e-9 > 3)
			fail_msg("%" PRIu64 " of %" PRIu64 " hashes added in 3 s "
				 "of CPU: they share a run", j, n);
	}
	for (uint64_t j = 0; j < n; j++)
		assert_int_equal(hashidx_first(&ix, (j + 1) << 32 | 0x12345,
					       &pos), j + 1);
	assert_int_equal(hashidx_first(&ix, 0x12345, &pos), 0);
	assert_true(hash_secret() != 0 && hash_secret() == hash_secret());
	hashidx_free(&ix);
}

/* util/hugemem: below a huge page, calloc's; from one on, mapped in
 * whole huge pages; zeroed and writable either way; advice on any range
 * of a malloc'd block, aligned or not, changes nothing in it. */
static void test_hugemem(void **state)
{
	static const size_t sizes[][2] = {
		{ 1, 1 }, { HUGE_PAGE / 16 - 1, 16 }, { HUGE_PAGE / 16, 16 },
		{ HUGE_PAGE / 16 + 1, 16 }, { 3 * HUGE_PAGE / 8 + 5, 8 },
	};

	(void)state;
	assert_int_equal(huge_bytes(HUGE_PAGE - 1, 1), 0);
	assert_int_equal(huge_bytes(HUGE_PAGE, 1), HUGE_PAGE);
	assert_int_equal(huge_bytes(HUGE_PAGE + 1, 1), 2 * HUGE_PAGE);
	/* a product past the address space is calloc's (which refuses
	 * it), never a wrapped small mapping: 2^61 + 2^18 cells of 8 bytes
	 * wrap to 2 MiB */
	assert_int_equal(huge_bytes(((size_t)1 << 61) + (1 << 18), 8), 0);
	assert_int_equal(huge_bytes(SIZE_MAX, 2), 0);
	assert_int_equal(huge_bytes(SIZE_MAX / 2 + 1, 1), 0);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k][0], size = sizes[k][1], mapped;
		unsigned char *p = huge_calloc(n, size, &mapped);
		size_t sum = 0;

		assert_non_null(p);
		if (n * size < HUGE_PAGE) {
			assert_int_equal(mapped, 0);
		} else {
			assert_true(mapped >= n * size);
			assert_int_equal(mapped % HUGE_PAGE, 0);
			/* aligned: a huge page can back its first 2 MiB */
			assert_int_equal((uintptr_t)p % HUGE_PAGE, 0);
		}
		for (size_t i = 0; i < n * size; i++)
			sum += p[i];
		assert_int_equal(sum, 0);
		memset(p, 0xa5, n * size);
		assert_int_equal(p[n * size - 1], 0xa5);
		huge_free(p, mapped);
	}
	{
		size_t n = 3 * HUGE_PAGE + 123;
		unsigned char *p = xmalloc(n);

		memset(p, 7, n);
		huge_advise(p + 1, n - 1);
		huge_advise(p, 100);
		for (size_t i = 0; i < n; i += 4096)
			assert_int_equal(p[i], 7);
		free(p);
	}
}

/* strbuf: every put lands, in order, NUL-terminated, across growth; an
 * embedded NUL put with strbuf_put is kept in len. */
static void test_strbuf(void **state)
{
	struct strbuf b = { 0 };
	char want[3000];

	assert_null(b.s);
	for (int i = 0; i < 1000; i++) {
		char c = (char)('a' + i % 26);

		strbuf_putc(&b, c);
		want[i] = c;
	}
	strbuf_puts(&b, "xyz");
	memcpy(want + 1000, "xyz", 3);
	strbuf_put(&b, "a\0b", 3);
	memcpy(want + 1003, "a\0b", 3);
	assert_int_equal(b.len, 1006);
	assert_memory_equal(b.s, want, 1006);
	assert_int_equal(b.s[1006], '\0');
	assert_true(b.cap > b.len);
	strbuf_puts(&b, "");
	assert_int_equal(b.len, 1006);
	free(b.s);
}

/* A library loaded on first need: its functions through the table, once;
 * a missing library or function is an error naming it and its package,
 * given again by every later call. */
#define LIBC_FUNCTIONS(X) X(strlen) X(abs)
static DYNLIB_TABLE(libc_fns, LIBC_FUNCTIONS) libc;
#define MISSING_FUNCTIONS(X) X(strlen) X(ys_no_such_function)
int ys_no_such_function(void);
static DYNLIB_TABLE(missing_fns, MISSING_FUNCTIONS) missing;

static void test_dynlib(void **state)
{
	struct dynlib ok = DYNLIB(libc, LIBC_FUNCTIONS, "libc.so.6", "libc6",
				  "the C library");
	struct dynlib absent = DYNLIB(libc, LIBC_FUNCTIONS,
				      "libys-absent.so.1", "ys-absent",
				      "nothing");
	struct dynlib old = DYNLIB(missing, MISSING_FUNCTIONS, "libc.so.6",
				   "libc6", "the C library");
	struct error e;

	assert_int_equal(ok.n, 2);
	assert_int_equal(dynlib_load(&ok, &e), 0);
	assert_int_equal(libc.strlen("four"), 4);
	assert_int_equal(libc.abs(-3), 3);
	assert_int_equal(dynlib_load(&ok, &e), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(dynlib_load(&absent, &e), -1);
		assert_non_null(strstr(e.msg, "cannot load 'libys-absent.so.1' "
				       "(nothing): "));
		assert_non_null(strstr(e.msg, "(apt-get install ys-absent)"));
		assert_int_equal(dynlib_load(&old, &e), -1);
		assert_string_equal(e.msg, "cannot load 'libc.so.6' (the C "
				    "library): no function "
				    "'ys_no_such_function' in it, too old "
				    "(apt-get install libc6)");
	}
	(void)state;
}

/* The JSON printer's reals: the whole-number fast path gives, byte for
 * byte, what the general path (shortest of %.15g..%.17g that reads back,
 * ".0" when it would read back as an integer) gives. */
static void reference_real(double v, char *out, size_t n)
{
	char buf[40];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(out, n, "%s%s", buf, strpbrk(buf, ".eEn") ? "" : ".0");
}

static void check_real(double v)
{
	char want[64], *got = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&got, &len);
	json_t *j = json_real(v);

	assert_non_null(fp);
	assert_non_null(j);
	assert_int_equal(json_emit(j, fp), 0);
	fclose(fp);
	json_decref(j);
	reference_real(v, want, sizeof(want));
	if (strcmp(got, want))
		fail_msg("%.17g: got '%s', want '%s'", v, got, want);
	free(got);
}

static void test_json_reals(void **state)
{
	uint64_t x = 88172645463325252ull;

	for (int i = -3000; i <= 3000; i++)
		check_real(i);
	check_real(0.0);
	check_real(-0.0);
	for (double p = 1; p < 1e17; p *= 10) {
		check_real(p);
		check_real(p - 1);
		check_real(p + 1);
		check_real(-p);
		check_real(-p + 1);
		check_real(p / 3);
	}
	check_real(999999999999999.0);
	check_real(-999999999999999.0);
	check_real(9007199254740992.0);
	check_real(0.5);
	check_real(-2.5);
	check_real(1e-300);
	check_real(1.7976931348623157e308);
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check_real((double)(x >> (11 + i % 40)));	/* whole */
		check_real((double)(int64_t)(x >> 11) / (1 + (x & 1023)));
		check_real(-(double)(x >> (20 + i % 30)));
	}
}

/*
 * The one JSON number rule (fmt_json_number for text, json_number for a
 * tree printed by json_emit): each text is valid JSON (jansson reads it
 * strictly), null exactly when v is not finite, and otherwise reads back
 * as v, bit for bit (the sign of -0 included).
 */
static void check_json_number(double v)
{
	char text[JSON_NUMBER_MAX], *emitted = NULL;
	size_t len = 0;
	json_t *j = json_number(v), *back;
	FILE *fp = open_memstream(&emitted, &len);
	json_error_t err;

	fmt_json_number(v, text, sizeof(text));
	assert_non_null(fp);
	assert_int_equal(json_emit(j, fp), 0);
	fclose(fp);
	json_decref(j);
	for (int k = 0; k < 2; k++) {
		const char *s = k ? emitted : text;

		back = json_loads(s, JSON_DECODE_ANY, &err);
		if (!back)
			fail_msg("%a: '%s' is not JSON: %s", v, s, err.text);
		if (!isfinite(v)) {
			if (!json_is_null(back))
				fail_msg("%a: '%s', not null", v, s);
		} else {
			double r = json_number_value(back);

			if (!json_is_number(back) ||
			    memcmp(&r, &v, sizeof(r)))
				fail_msg("%a: '%s' reads back as %a", v, s, r);
		}
		json_decref(back);
	}
	free(emitted);
}

static void test_json_numbers(void **state)
{
	const double edges[] = {
		0.0, -0.0, 1.0, -1.0, 0.1, 1e-300, 5e-324, -5e-324,
		2.2250738585072009e-308, 2.2250738585072014e-308,
		1.7976931348623157e308, -1.7976931348623157e308,
		9007199254740992.0, 9007199254740994.0, -9007199254740994.0,
		18446744073709551616.0, 9223372036854775808.0, 1e300,
		123456789012345678.0, NAN, -NAN, INFINITY, -INFINITY,
	};
	uint64_t x = 0x9e3779b97f4a7c15ull;
	char text[JSON_NUMBER_MAX];
	json_t *j;

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(*edges); i++)
		check_json_number(edges[i]);
	/* every class of double: random bit patterns (subnormals, NaNs
	 * with payloads, infinities, huge and tiny), and the whole
	 * numbers around 2^53 */
	for (int i = 0; i < 20000; i++) {
		double v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&v, &x, sizeof(v));
		check_json_number(v);
	}
	for (int64_t k = -64; k <= 64; k++)
		check_json_number((double)((INT64_C(1) << 53) + k));
	/* the texts themselves, where they are fixed */
	fmt_json_number(-0.0, text, sizeof(text));
	assert_string_equal(text, "-0.0");
	fmt_json_number(NAN, text, sizeof(text));
	assert_string_equal(text, "null");
	fmt_json_number(-INFINITY, text, sizeof(text));
	assert_string_equal(text, "null");
	fmt_json_number(9007199254740994.0, text, sizeof(text));
	assert_string_equal(text, "9007199254740994");
	fmt_json_number(5e-324, text, sizeof(text));
	assert_string_equal(text, "4.94065645841247e-324");
	/* whole numbers within 2^53 are integers in a tree, others reals */
	j = json_number(3.0);
	assert_true(json_is_integer(j));
	json_decref(j);
	j = json_number(9007199254740994.0);
	assert_true(json_is_real(j));
	json_decref(j);
	j = json_number(-0.0);
	assert_true(json_is_real(j));
	json_decref(j);
}

/*
 * Seconds from nanoseconds (k / 1e9, as `load` writes its latencies) take
 * a path of their own in fmt_json_number, from k's digits: the same text,
 * byte for byte, as the snprintf and strtod path (fmt_roundtrip), at every
 * magnitude from 1 ns to 10^15 ns, either sign, with zeros anywhere; and
 * values next to them (not k / 1e9) still read back as themselves; and
 * every other double (any bits, whole ns past 10^15, products k x 1e-9)
 * the same text as fmt_roundtrip's.
 */
static void check_nanos(int64_t k)
{
	double v = (double)k / 1e9;
	char fast[JSON_NUMBER_MAX], slow[JSON_NUMBER_MAX];

	fmt_json_number(v, fast, sizeof(fast));
	fmt_roundtrip(v, slow, sizeof(slow));
	if (strcmp(fast, slow))
		fail_msg("%" PRId64 " ns: '%s', expected '%s'", k, fast, slow);
	check_json_number(v);
	check_json_number(nextafter(v, 0));
	check_json_number(nextafter(v, 2 * v));
}

static void test_json_number_nanos(void **state)
{
	static const int64_t edges[] = {
		1, 9, 10, 99, 100, 12345, 99999, 100000, 100001, 999999,
		1000000, 1000000000, 1000000001, 1234567890123, 999999999999999,
		100000000000000, 120000000, 1020304050607, 40000, 50000000,
	};
	uint64_t x = 0x2545f4914f6cdd1dull;
	char text[JSON_NUMBER_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(*edges); i++) {
		check_nanos(edges[i]);
		check_nanos(-edges[i]);
	}
	for (int i = 0; i < 200000; i++) {
		int64_t k;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 1 to 15 digits, a third of them with trailing zeros */
		k = 1 + (int64_t)((x >> 8) % (uint64_t)pow(10, 1 + x % 15));
		if (i % 3 == 0 && k >= 1000)
			k = k / 1000 * 1000;
		check_nanos(k);
		if (i % 7 == 0)
			check_nanos(-k);
	}
	/* what is not k / 1e9 for a whole k under 10^15, or looks like it:
	 * any bits, whole ns from 10^15 to 2^60 (beyond the digits' path),
	 * k x 1e-9 (a product, not the quotient), k / 1e9 a step off
	 * either way: the same text as fmt_roundtrip's, which reads back */
	for (int i = 0; i < 400000; i++) {
		char fast[JSON_NUMBER_MAX], slow[JSON_NUMBER_MAX];
		uint64_t r;
		double v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x;
		switch (i % 4) {
		case 0: memcpy(&v, &r, sizeof(v)); break;
		case 1: v = (double)(r >> 4) / 1e9; break;
		case 2: v = (double)(r % 1000000000000000ull) * 1e-9; break;
		default: v = nextafter((double)(r % 1000000000000000ull) / 1e9,
				       r >> 63 ? INFINITY : -INFINITY);
			break;
		}
		if (!isfinite(v) || v == 0)
			continue;
		fmt_json_number(v, fast, sizeof(fast));
		fmt_roundtrip(v, slow, sizeof(slow));
		if (strcmp(fast, slow) || strtod(fast, NULL) != v)
			fail_msg("%a: '%s', expected '%s'", v, fast, slow);
	}
	/* the texts, where they are fixed */
	fmt_json_number(12345e-9, text, sizeof(text));
	assert_string_equal(text, "1.2345e-05");
	fmt_json_number(123456e-9, text, sizeof(text));
	assert_string_equal(text, "0.000123456");
	fmt_json_number(1.5, text, sizeof(text));
	assert_string_equal(text, "1.5");
	fmt_json_number(-1e-9, text, sizeof(text));
	assert_string_equal(text, "-1e-09");
}

/* Optimal string alignment distances, by hand, against a brute-force
 * reference on every pair of short words over {a, b, c}. */
static size_t osa_ref(const char *a, size_t la, const char *b, size_t lb)
{
	size_t best;

	if (!la)
		return lb;
	if (!lb)
		return la;
	best = osa_ref(a, la - 1, b, lb) + 1;
	if (osa_ref(a, la, b, lb - 1) + 1 < best)
		best = osa_ref(a, la, b, lb - 1) + 1;
	if (osa_ref(a, la - 1, b, lb - 1) + (a[la - 1] != b[lb - 1]) < best)
		best = osa_ref(a, la - 1, b, lb - 1) + (a[la - 1] != b[lb - 1]);
	if (la > 1 && lb > 1 && a[la - 1] == b[lb - 2] &&
	    a[la - 2] == b[lb - 1] && osa_ref(a, la - 2, b, lb - 2) + 1 < best)
		best = osa_ref(a, la - 2, b, lb - 2) + 1;
	return best;
}

static void word_of(unsigned k, char *w)
{
	size_t n = 0;

	/* k in base 4: digit 0 ends the word, 1..3 are a, b, c */
	while (k && n < 4) {
		w[n++] = (char)('a' + (k % 4) - 1);
		k /= 4;
		if (w[n - 1] < 'a')
			n--;
	}
	w[n] = '\0';
}

static void test_suggest(void **state)
{
	static const char *const cmds[] = { "run", "compare", "gate", "history",
		"record", "load", "mem", "bench", "report", "trace" };
	char a[8], b[8];

	(void)state;
	assert_int_equal(suggest_distance("rnu", "run", 3), 1);
	assert_int_equal(suggest_distance("kitten", "sitting", 5), 3);
	/* OSA, not unrestricted Damerau: no edit of a transposed pair */
	assert_int_equal(suggest_distance("ca", "abc", 5), 3);
	assert_int_equal(suggest_distance("", "abc", 5), 3);
	assert_int_equal(suggest_distance("abcdef", "a", 2), 3);
	for (unsigned i = 0; i < 256; i++)
		for (unsigned j = 0; j < 256; j++) {
			size_t want;

			word_of(i, a);
			word_of(j, b);
			want = osa_ref(a, strlen(a), b, strlen(b));
			assert_int_equal(suggest_distance(a, b, 8), want);
			assert_int_equal(suggest_distance(a, b, 1),
					 want > 1 ? 2 : want);
		}
	assert_string_equal(suggest_closest("rnu", cmds, 10), "run");
	assert_string_equal(suggest_closest("hist", cmds, 10), "history");
	assert_string_equal(suggest_closest("reprot", cmds, 10), "report");
	assert_string_equal(suggest_closest("bnech", cmds, 10), "bench");
	/* "re" is a prefix of two: no guess; nothing near: none */
	assert_null(suggest_closest("re", cmds, 10));
	assert_null(suggest_closest("frobnicate", cmds, 10));
}

/* "NAME=A:B:C" (a range) parsed; the values, exactly, against integers
 * counted independently in 128 bits. Starts around 2^53 (where doubles
 * stop holding every integer), 2^62 and the ends of a long. */
static void check_int_range(__int128 start, __int128 end, __int128 step,
			    bool geometric)
{
	char spec[160], want[48];
	struct scan sc;
	struct error e;
	size_t n = 0;

	snprintf(spec, sizeof(spec), "k=%lld:%lld:%s%lld", (long long)start,
		 (long long)end, geometric ? "*" : "", (long long)step);
	if (scan_parse(&sc, spec, &e))
		fail_msg("%s: %s", spec, e.msg);
	for (__int128 v = start; v <= end;
	     v = geometric ? v * step : v + step) {
		snprintf(want, sizeof(want), "%lld", (long long)v);
		if (n >= sc.n || strcmp(sc.values[n], want))
			fail_msg("%s: value %zu is '%s', want '%s'", spec, n,
				 n < sc.n ? sc.values[n] : "(none)", want);
		n++;
	}
	if (sc.n != n)
		fail_msg("%s: %zu values, want %zu", spec, sc.n, n);
	assert_true(sc.numeric);
	scan_free(&sc);
}

static void test_scan_big_integers(void **state)
{
	const __int128 p53 = (__int128)1 << 53, p62 = (__int128)1 << 62;
	const __int128 max = INT64_MAX, min = INT64_MIN;
	struct scan sc;
	struct error e;

	(void)state;
	for (int d = -3; d <= 3; d++)
		for (int step = 1; step <= 3; step++) {
			check_int_range(p53 + d, p53 + d + 6, step, false);
			check_int_range(p62 + d, p62 + d + 9, step, false);
			check_int_range(-p53 + d, -p53 + d + 4, step, false);
			check_int_range(max - 9 + d, max, step, false);
			check_int_range(min, min + 9 + d, step, false);
		}
	check_int_range(3, max, 3, true);
	check_int_range(p53 + 1, max, 7, true);
	check_int_range(1000, 1000000, 10, true);
	/* the case: three names, three values */
	check_int_range(p53 + 1, p53 + 3, 1, false);
	/* a list keeps its values as written */
	assert_int_equal(scan_parse(&sc, "k=9007199254740993,"
				    "9223372036854775807", &e), 0);
	assert_string_equal(sc.values[0], "9007199254740993");
	assert_string_equal(sc.values[1], "9223372036854775807");
	scan_free(&sc);
	/* END before START, in integers a double cannot tell apart */
	assert_int_equal(scan_parse(&sc, "k=9007199254740993:"
				    "9007199254740992", &e), -1);
	assert_non_null(strstr(e.msg, "'9007199254740993:9007199254740992' "
				   "is not START:END"));
	scan_free(&sc);
	/* reals: 15 significant digits */
	assert_int_equal(scan_parse(&sc, "x=0:1:0.1", &e), 0);
	assert_int_equal(sc.n, 11);
	assert_string_equal(sc.values[1], "0.1");
	assert_string_equal(sc.values[3], "0.3");
	assert_string_equal(sc.values[10], "1");
	scan_free(&sc);
	assert_int_equal(scan_parse(&sc, "x=1.23456789012345:2", &e), 0);
	assert_string_equal(sc.values[0], "1.23456789012345");
	scan_free(&sc);
}

/* Issue 25 case 19: a message longer than the buffer (a --work
 * expression of 1 KB and more) lost its reason at the end. The quoted
 * input loses its middle instead; the reason and the start stay. */
static void test_error_long(void **state)
{
	static const size_t lens[] = { 900, 1010, 1020, 1024, 2000, 100000 };
	struct error e;

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(*lens); i++) {
		char *in = xmalloc(lens[i] + 1);

		for (size_t k = 0; k < lens[i]; k++)
			in[k] = k % 2 ? '+' : '1';
		in[lens[i]] = 0;
		error_set(&e, "invalid expression '%s': unknown name 'zz' "
			  "at the end", in);
		assert_true(strlen(e.msg) < sizeof(e.msg));
		assert_true(!strncmp(e.msg, "invalid expression '1+1", 23));
		assert_non_null(strstr(e.msg, "': unknown name 'zz' at the end"));
		assert_int_equal(strstr(e.msg, "at the end")[10], 0);
		if (lens[i] > 1000)
			assert_non_null(strstr(e.msg, "..."));
		else
			assert_null(strstr(e.msg, "..."));
		error_errno(&e, ENOENT, "cannot open '%s'", in);
		assert_true(strlen(e.msg) < sizeof(e.msg));
		assert_non_null(strstr(e.msg, "': No such file or directory"));
		/* nothing quoted: the middle goes, the end stays */
		error_set(&e, "%s: the reason", in);
		assert_non_null(strstr(e.msg, ": the reason"));
		assert_true(strlen(e.msg) < sizeof(e.msg));
		free(in);
	}
}

/*
 * A long message whose quoted input holds quotes of its own (a config
 * file's bytes, "don't"): the input loses its middle, never the file's
 * name before it nor the reason after it (fuzz_gate_config: a quote in
 * the value paired with the next and the path was cut). Generated: values
 * of 250 to 3000 bytes from an alphabet of letters, quotes inside words,
 * bytes that are not UTF-8 (error_set escapes them as \xNN) and spaces,
 * from a seed.
 */
static void test_error_long_quotes(void **state)
{
	static const char *const bits[] = { "ab", "don't", "\x83'", "'\x83",
					    "\xc3", "x'y", " ", "9'9", "gate",
					    "\x83'}", "= ", "'=", "}'" };
	uint64_t r = 0x9e3779b97f4a7c15u;
	struct error e;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t want, n = 0;
		char *v;

		/* most just past the buffer (the bytes escaped grow to four
		 * characters each), where the overflow is smaller than the
		 * file's name and fits in its middle */
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		want = round % 10 ? 250 + r % 750 : 1000 + r % 2000;
		v = xmalloc(want + 16);
		while (n < want) {
			const char *b;

			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			b = bits[r % (sizeof(bits) / sizeof(*bits))];
			memcpy(v + n, b, strlen(b));
			n += strlen(b);
		}
		v[n] = 0;
		error_set(&e, "'/tmp/fuzz-1234/gate.ini' [gate] max-increase: "
			  "'%s': not a threshold", v);
		assert_true(strlen(e.msg) < sizeof(e.msg));
		if (strncmp(e.msg, "'/tmp/fuzz-1234/gate.ini' [gate] ", 33) ||
		    !strstr(e.msg, ": not a threshold") ||
		    strstr(e.msg, ": not a threshold")[17])
			fail_msg("round %d: %s", round, e.msg);
		/* gate_config's own: the value, then a part of it, quoted,
		 * after a file's name as short as the fuzzer's */
		error_set(&e, "'/proc/self/fd/3' [gate] max-decrease: '%s': "
			  "'%s' is not a number", v, v + n / 3);
		assert_true(strlen(e.msg) < sizeof(e.msg));
		if (strncmp(e.msg, "'/proc/self/fd/3' [gate] ", 25) ||
		    !strstr(e.msg, "' is not a number"))
			fail_msg("round %d: %s", round, e.msg);
		free(v);
	}
}

/* The calls of test_error_class: each done to e; returns the exit code
 * e must give after it, from want, the one before. */
enum { OP_SET, OP_ERRNO, OP_ENV, OP_MARK_ENV, OP_MARK_INPUT, OP_PREFIX,
       OP_COUNT };

static int error_op(struct error *e, int op, int want)
{
	switch (op) {
	case OP_SET:
		assert_int_equal(error_set(e, "bad '%s'", "x"), -1);
		return 2;
	case OP_ERRNO:
		assert_int_equal(error_errno(e, EACCES, "cannot open 'f'"), -1);
		return 2;
	case OP_ENV:
		assert_int_equal(error_env(e, "'%s' is locked", "s.db"), -1);
		return 3;
	case OP_MARK_ENV:
		assert_int_equal(error_mark(e, ERROR_ENV), -1);
		return 3;
	case OP_MARK_INPUT:
		assert_int_equal(error_mark(e, ERROR_INPUT), -1);
		return 2;
	default:
		assert_int_equal(error_prefix(e, "--ceilings: "), -1);
		return want;
	}
}

/*
 * The exit class an error carries: error_set and error_errno make it
 * input (exit 2), error_env environment (3); a later error_set or
 * error_errno starts again from input, error_mark changes the class of
 * the message held, and error_prefix keeps it (a wrapped store error is
 * still the store's). Every sequence of three calls after a first
 * error_set is tried, the class followed by hand beside it.
 */
static void test_error_class(void **state)
{
	struct error e;

	(void)state;
	for (int n = 0; n < OP_COUNT * OP_COUNT * OP_COUNT; n++) {
		int want = 2;

		error_set(&e, "first");
		for (int i = 0, ops = n; i < 3; i++, ops /= OP_COUNT)
			want = error_op(&e, ops % OP_COUNT, want);
		assert_int_equal(error_exit_code(&e), want);
	}
	/* error_prefix puts its text, escaped, before the message held */
	error_env(&e, "cannot write to '%s'", "s.db");
	error_prefix(&e, "'%s': ", "a\033b");
	assert_string_equal(e.msg, "'a\\x1bb': cannot write to 's.db'");
	assert_int_equal(error_exit_code(&e), 3);
	/* NULL takes nothing and still fails */
	assert_int_equal(error_env(NULL, "x"), -1);
	assert_int_equal(error_mark(NULL, ERROR_ENV), -1);
	assert_int_equal(error_prefix(NULL, "x"), -1);
}

/* stop.h: a second stop signal within 50 ms of the first is the same
 * stop delivered twice (to the process, then to its group) and changes
 * nothing; one later exits at once with 128 + its number. In a child:
 * exit 130 from the later SIGINT, not 143 from the repeated SIGTERM. */
static int stop_twice_child(void *arg)
{
	struct timespec later = { 0, 150000000 };
	struct error e;

	(void)arg;
	if (stop_install(&e))
		return 5;
	raise(SIGTERM);
	raise(SIGTERM);
	if (stop_signal() != SIGTERM)
		return 6;
	nanosleep(&later, NULL);
	raise(SIGINT);
	return 7;
}

/*
 * procdir_mem (util/procdir.h): a child whose main thread has exited is
 * read through its first live thread, the leaver; once that one exits
 * too, the next read picks the other thread (one pick, seen by the next
 * reads), where it had failed for the rest of the run. The value read is
 * the child's: it set its own after the fork.
 */
static volatile unsigned long procdir_value = 1;
static int procdir_go[2], procdir_tids[2];

static void *procdir_leaver(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char c;

	if (write(procdir_tids[1], &tid, sizeof(tid)) != sizeof(tid) ||
	    read(procdir_go[0], &c, 1) != 1)
		_exit(3);
	return arg;
}

static void *procdir_stayer(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static void procdir_child(void)
{
	pthread_t a, b;

	procdir_value = 0x1122334455667788UL;
	if (pthread_create(&a, NULL, procdir_leaver, NULL) ||
	    pthread_create(&b, NULL, procdir_stayer, NULL))
		_exit(2);
	pthread_exit(NULL);
}

/* Whether /proc/PID/task/TID is there, after up to 20 s of waiting for
 * it to be as want says. */
static bool procdir_task(pid_t pid, pid_t tid, bool want)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	for (int i = 0; i < 2000 && (access(path, F_OK) == 0) != want; i++)
		usleep(10000);
	return access(path, F_OK) == 0;
}

static void test_procdir_mem(void **state)
{
	unsigned long v = 0;
	struct iovec local = { &v, sizeof(v) };
	struct iovec remote = { (void *)&procdir_value, sizeof(v) };
	struct procdir_mem m;
	pid_t child, leaver = 0;

	(void)state;
	assert_int_equal(pipe(procdir_go), 0);
	assert_int_equal(pipe(procdir_tids), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		procdir_child();
	close(procdir_go[0]);
	close(procdir_tids[1]);
	assert_int_equal(read(procdir_tids[0], &leaver, sizeof(leaver)),
			 sizeof(leaver));
	/* the main thread gone: a zombie leader, read through it fails */
	assert_true(process_gone(child));
	assert_int_equal(process_vm_readv(child, &local, 1, &remote, 1, 0), -1);
	procdir_mem_init(&m, (uint32_t)child);
	/* /proc/PID/task lists the threads in the order they started */
	assert_int_equal(m.tid, (uint32_t)leaver);
	assert_int_equal(procdir_mem_readv(&m, &local, &remote, 1), 0);
	assert_int_equal(v, 0x1122334455667788UL);
	assert_int_equal(m.repicks, 0);
	/* the leaver exits: the next read goes through the stayer */
	assert_int_equal(write(procdir_go[1], "x", 1), 1);
	assert_false(procdir_task(child, leaver, false));
	v = 0;
	assert_int_equal(procdir_mem_readv(&m, &local, &remote, 1), 0);
	assert_int_equal(v, 0x1122334455667788UL);
	assert_int_equal(m.repicks, 1);
	assert_true(m.tid != (uint32_t)leaver && m.tid != (uint32_t)child);
	v = 0;
	assert_int_equal(procdir_mem_readv(&m, &local, &remote, 1), 0);
	assert_int_equal(m.repicks, 1);
	/* an address not mapped: -1, and no other pick */
	remote.iov_base = (void *)8;
	assert_int_equal(procdir_mem_readv(&m, &local, &remote, 1), -1);
	assert_int_equal(m.repicks, 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* every thread gone: -1, after at most one more pick per read */
	remote.iov_base = (void *)&procdir_value;
	assert_int_equal(procdir_mem_readv(&m, &local, &remote, 1), -1);
	assert_true(m.repicks <= 2);
	assert_int_equal(procdir_mem_readv(&m, &local, &remote, 1), -1);
	assert_true(m.repicks <= 3);
	close(procdir_go[1]);
	close(procdir_tids[0]);
}

static void test_stop_twice(void **state)
{
	int status = forked(stop_twice_child, NULL);

	(void)state;
	assert_true(status != -1 && WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 130);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_reals),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_json_number_nanos),
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_split_plain),
		cmocka_unit_test(test_split_quotes),
		cmocka_unit_test(test_split_backslash),
		cmocka_unit_test(test_split_errors),
		cmocka_unit_test(test_join_roundtrip),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_plural),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_fmt_value),
		cmocka_unit_test(test_fmt_value_extremes),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_error_long),
		cmocka_unit_test(test_error_long_quotes),
		cmocka_unit_test(test_error_class),
		cmocka_unit_test(test_stop_twice),
		cmocka_unit_test(test_procdir_mem),
		cmocka_unit_test(test_atomic_file),
		cmocka_unit_test(test_atomic_hostile),
		cmocka_unit_test(test_atomic_errno),
		cmocka_unit_test(test_atomic_unlink_temps),
		cmocka_unit_test(test_read_all_bounded),
		cmocka_unit_test(test_ref_names),
		cmocka_unit_test(test_gitdir),
		cmocka_unit_test(test_monoclock),
		cmocka_unit_test(test_hashidx),
		cmocka_unit_test(test_hashidx_chosen),
		cmocka_unit_test(test_hugemem),
		cmocka_unit_test(test_dynlib),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_scan_big_integers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
