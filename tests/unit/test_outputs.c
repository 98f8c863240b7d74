/* Unit tests of src/util/outputs: the output set every command uses —
 * the check before any work (stdout taken twice, paths that cannot be
 * written, one file twice), the stdout rule, and the atomic write at the
 * end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/outputs.h"
#include "util/strutil.h"
#include "testfiles.h"

static char dir[] = "/tmp/ys-outputs-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int r = system(cmd);

	(void)state;
	free(cmd);
	return r;
}

/* dir/name, malloc'd */
static char *in_dir(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* Writers: the text of ctx to path, atomically; or half of it, then a
 * failure, as a full disk would. */
static int write_text(const char *path, void *ctx, struct error *e)
{
	struct atomic_file af;

	if (atomic_open(&af, path, e))
		return -1;
	fputs(ctx, af.fp);
	return atomic_commit(&af, e);
}

static int write_then_fail(const char *path, void *ctx, struct error *e)
{
	struct atomic_file af;

	if (atomic_open(&af, path, e))
		return -1;
	fputs(ctx, af.fp);
	fflush(af.fp);
	return atomic_fail(&af, e);
}

static int n_calls;

static int count_calls(const char *path, void *ctx, struct error *e)
{
	(void)path;
	(void)ctx;
	(void)e;
	n_calls++;
	return 0;
}

static void test_null_path_adds_nothing(void **state)
{
	struct output_set s;
	struct error e;

	(void)state;
	outputs_init(&s);
	outputs_add(&s, "--json", NULL, "json", write_text, "x");
	assert_int_equal(s.n, 0);
	assert_int_equal(outputs_check(&s, &e), 0);
	assert_false(outputs_stdout(&s));
	assert_ptr_equal(outputs_report_fp(&s), stdout);
	assert_int_equal(outputs_write(&s), 0);
	outputs_free(&s);
}

/* A name that says another format than the output holds: a warning's
 * message, never a refusal (outputs_check passes); the names that say
 * nothing, or the same format, or .json for a JSON format, none. */
static void test_name_mismatch(void **state)
{
	static const struct {
		const char *flag, *name, *format, *msg;
	} cases[] = {
		{ "--json", "r.md", "json", "--json '%s/r.md': its name says "
		  "Markdown (.md); it is written as JSON" },
		{ "--markdown", "R.JSON", "markdown", "--markdown '%s/R.JSON': "
		  "its name says JSON (.JSON); it is written as Markdown" },
		{ "--timeline", "t.json", "svg", "--timeline '%s/t.json': its "
		  "name says JSON (.json); it is written as SVG" },
		{ "--json", "p.speedscope.json", "json", "--json "
		  "'%s/p.speedscope.json': its name says a speedscope profile "
		  "(.speedscope.json); it is written as JSON" },
		{ "-o", "t.json", "perfetto", "-o '%s/t.json': its name says "
		  "JSON (.json); it is written as a Perfetto trace" },
		{ "--csv", "r.pb.gz", "csv", "--csv '%s/r.pb.gz': its name says "
		  "a pprof profile (.pb.gz); it is written as CSV" },
		/* nothing said */
		{ "--json", "r.json", "json", NULL },
		{ "--bmf", "b.json", "bmf", NULL },
		{ "-o", "p.speedscope.json", "speedscope", NULL },
		{ "-o", "t.json", "json", NULL },
		{ "--junit", "j.xml", "junit", NULL },
		{ "--markdown", "c.markdown", "markdown", NULL },
		{ "--json", "r.txt", "json", NULL },
		{ "--json", "result", "json", NULL },
		{ "--json", ".json", "json", NULL },
		{ "--json", "r.json.gz", "json", NULL },
		{ "--csv", "r.csv", NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *path = in_dir(cases[i].name);
		struct output_set s;
		struct error e, w;

		outputs_init(&s);
		outputs_add(&s, cases[i].flag, path, cases[i].format,
			    write_text, "x");
		assert_int_equal(outputs_check(&s, &e), 0);
		if (cases[i].msg) {
			char *want = xasprintf(cases[i].msg, dir);

			assert_true(outputs_name_mismatch(&s, 0, &w));
			assert_string_equal(w.msg, want);
			free(want);
		} else {
			assert_false(outputs_name_mismatch(&s, 0, &w));
		}
		outputs_free(&s);
		free(path);
	}
}

static void test_two_on_stdout(void **state)
{
	struct output_set s;
	struct error e;

	(void)state;
	outputs_init(&s);
	outputs_add(&s, "--json", "-", "json", write_text, "x");
	outputs_add(&s, "--csv", "-", "csv", write_text, "x");
	assert_int_equal(outputs_check(&s, &e), -1);
	assert_string_equal(e.msg, "--json - and --csv - both want stdout");
	outputs_free(&s);

	/* /dev/stdout is stdout too, whatever stdout is (here a pipe or a
	 * file of the test runner) */
	outputs_init(&s);
	outputs_add(&s, "--bmf", "-", "bmf", write_text, "x");
	outputs_add(&s, "-o", "/dev/stdout", "folded", write_text, "x");
	assert_int_equal(outputs_check(&s, &e), -1);
	assert_string_equal(e.msg, "--bmf - and -o '/dev/stdout' both want "
			    "stdout");
	outputs_free(&s);

	/* a claim that is not an output (--show-output) */
	outputs_init(&s);
	outputs_add(&s, "--json", "-", "json", write_text, "x");
	outputs_claim_stdout(&s, "--show-output");
	assert_int_equal(outputs_check(&s, &e), -1);
	assert_string_equal(e.msg, "--json - and --show-output both want "
			    "stdout");
	outputs_free(&s);
}

static void test_stdout_rule(void **state)
{
	struct output_set s;
	struct error e;
	char *file = in_dir("a.json");

	(void)state;
	/* one output on stdout: the report goes to stderr */
	outputs_init(&s);
	outputs_add(&s, "--csv", file, "csv", write_text, "x");
	outputs_add(&s, "--bmf", "-", "bmf", write_text, "x");
	assert_int_equal(outputs_check(&s, &e), 0);
	assert_true(outputs_stdout(&s));
	assert_int_equal(s.on_stdout, 1);
	assert_ptr_equal(outputs_report_fp(&s), stderr);
	outputs_free(&s);

	/* a claim alone leaves the report on stdout */
	outputs_init(&s);
	outputs_add(&s, "--csv", file, "csv", write_text, "x");
	outputs_claim_stdout(&s, "--show-output");
	assert_int_equal(outputs_check(&s, &e), 0);
	assert_false(outputs_stdout(&s));
	assert_ptr_equal(outputs_report_fp(&s), stdout);
	outputs_free(&s);
	/* the check made nothing */
	assert_int_equal(count_entries(dir), 0);
	free(file);
}

/* Refused by the check, the message naming the option and the path. */
static void expect_refused(const char *flag, const char *path)
{
	struct output_set s;
	struct error e;
	char *want = xasprintf("%s: ", flag);

	outputs_init(&s);
	n_calls = 0;
	outputs_add(&s, flag, path, "json", count_calls, NULL);
	assert_int_equal(outputs_check(&s, &e), -1);
	assert_true(!strncmp(e.msg, want, strlen(want)));
	assert_non_null(strstr(e.msg, path));
	assert_int_equal(n_calls, 0);
	outputs_free(&s);
	free(want);
}

static void test_unwritable(void **state)
{
	char *missing = in_dir("no/such/dir/r.json");
	char *file = in_dir("plain");
	char *under_file = in_dir("plain/r.json");
	char *subdir = in_dir("sub");
	char *ro = in_dir("ro");
	char *in_ro = in_dir("ro/r.json");

	(void)state;
	put(file, "x");
	assert_int_equal(mkdir(subdir, 0755), 0);
	expect_refused("--json", missing);
	expect_refused("--csv", under_file);	/* ENOTDIR, even as root */
	expect_refused("--markdown", subdir);	/* a directory */
	expect_refused("-o", "/proc/ys-no-files-here.folded");
	if (geteuid() != 0) {
		/* root may write in a read-only directory */
		assert_int_equal(mkdir(ro, 0555), 0);
		expect_refused("--bmf", in_ro);
		rmdir(ro);
	}
	/* the file is left as it was, the directory holds nothing new */
	assert_content(file, "x");
	assert_int_equal(count_entries(dir), 2);
	assert_int_equal(count_entries(subdir), 0);
	unlink(file);
	rmdir(subdir);
	free(missing);
	free(file);
	free(under_file);
	free(subdir);
	free(ro);
	free(in_ro);
}

/* Outputs --json A and --csv B: refused as one file (MSG), or not. */
static void expect_same(const char *a, const char *b, const char *msg)
{
	struct output_set s;
	struct error e;

	outputs_init(&s);
	outputs_add(&s, "--json", a, "json", write_text, "x");
	outputs_add(&s, "--csv", b, "csv", write_text, "x");
	if (msg) {
		assert_int_equal(outputs_check(&s, &e), -1);
		assert_string_equal(e.msg, msg);
	} else {
		assert_int_equal(outputs_check(&s, &e), 0);
	}
	outputs_free(&s);
}

static void test_same_file_twice(void **state)
{
	char *a = in_dir("r.json");
	char *b = xasprintf("%s/./r.json", dir);
	char *link = in_dir("link.json");
	char *msg = xasprintf("--json '%s' and --csv '%s' are the same file",
			      a, b);
	char *msg_link = xasprintf("--json '%s' and --csv '%s' are the same "
				   "file", a, link);

	(void)state;
	expect_same(a, b, msg);			/* a file still to be made */
	put(a, "old");
	expect_same(a, b, msg);			/* one that exists */
	assert_int_equal(symlink(a, link), 0);
	expect_same(a, link, msg_link);		/* through a symlink */
	expect_same("/dev/null", "/dev/null", NULL);	/* a device: fine */
	assert_content(a, "old");
	unlink(link);
	unlink(a);
	free(a);
	free(b);
	free(link);
	free(msg);
	free(msg_link);
}

static void test_write_atomic(void **state)
{
	struct output_set s;
	struct error e;
	char *a = in_dir("a.json"), *b = in_dir("b.csv");
	char *c = in_dir("c.md");

	(void)state;
	put(a, "old a\n");
	outputs_init(&s);
	outputs_add(&s, "--json", a, "json", write_then_fail, "new a, half");
	outputs_add(&s, "--csv", b, "csv", write_text, "new b\n");
	outputs_add(&s, "--markdown", c, "markdown", write_text, "new c\n");
	assert_int_equal(outputs_check(&s, &e), 0);
	assert_int_equal(outputs_write(&s), 1);
	/* the one that failed: its old file intact, its message naming it */
	assert_true(s.v[0].failed);
	assert_non_null(strstr(s.v[0].err.msg, a));
	assert_content(a, "old a\n");
	/* the others still written */
	assert_false(s.v[1].failed);
	assert_false(s.v[2].failed);
	assert_content(b, "new b\n");
	assert_content(c, "new c\n");
	/* no temporary file left behind */
	assert_int_equal(count_entries(dir), 3);
	outputs_free(&s);
	unlink(a);
	unlink(b);
	unlink(c);
	free(a);
	free(b);
	free(c);
}

/* stdout redirected to a file: that file is stdout, by any name. */
static void test_stdout_through_redirect(void **state)
{
	char *file = in_dir("out.txt"), *other = in_dir("other.txt");
	char *alias = xasprintf("%s/../%s/out.txt", dir, strrchr(dir, '/') + 1);
	struct output_set s;
	struct error e;
	int saved, fd;

	(void)state;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	put(other, "");

	assert_true(output_is_stdout(file));
	assert_true(output_is_stdout(alias));
	assert_true(output_is_stdout("/dev/stdout"));
	assert_true(output_is_stdout("/proc/self/fd/1"));
	assert_false(output_is_stdout(other));
	assert_false(output_is_stdout("/dev/null"));
	assert_false(output_is_stdout(NULL));

	outputs_init(&s);
	outputs_add(&s, "--json", alias, "json", write_text, "x");
	assert_int_equal(outputs_check(&s, &e), 0);
	assert_true(outputs_stdout(&s));
	assert_ptr_equal(outputs_report_fp(&s), stderr);
	outputs_add(&s, "--markdown", "-", "markdown", write_text, "x");
	assert_int_equal(outputs_check(&s, &e), -1);
	assert_non_null(strstr(e.msg, "both want stdout"));
	outputs_free(&s);

	/* stdout on /dev/null: nothing can mix there, /dev/null is no
	 * stdout (--json /dev/null --csv /dev/null >/dev/null is fine) */
	fflush(stdout);
	fd = open("/dev/null", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	assert_false(output_is_stdout("/dev/null"));
	assert_false(output_is_stdout("/dev/stdout"));
	assert_true(output_is_stdout("-"));
	outputs_init(&s);
	outputs_add(&s, "--json", "/dev/null", "json", write_text, "x");
	outputs_add(&s, "--csv", "/dev/stdout", "csv", write_text, "x");
	assert_int_equal(outputs_check(&s, &e), 0);
	assert_false(outputs_stdout(&s));
	outputs_free(&s);

	fflush(stdout);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	unlink(file);
	unlink(other);
	free(file);
	free(other);
	free(alias);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_path_adds_nothing),
		cmocka_unit_test(test_name_mismatch),
		cmocka_unit_test(test_two_on_stdout),
		cmocka_unit_test(test_stdout_rule),
		cmocka_unit_test(test_unwritable),
		cmocka_unit_test(test_same_file_twice),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_stdout_through_redirect),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
