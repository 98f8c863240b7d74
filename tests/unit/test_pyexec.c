/*
 * py_argv_runs_python (src/profile/python_exec.c): every chain of
 * wrappers, up to three deep, generated from the kinds a user starts
 * Python through (env, nice, a shell's -c string, a script passing "$@"
 * on, a script naming the command in its text, a venv-style symlink),
 * ending in a program: the answer is true exactly when that program is
 * CPython. The interpreter is reached through a symlink named "interp"
 * to /usr/bin/python3.11 (an ELF importing Py_BytesMain; installed by
 * scripts/deps.sh), so no name gives it away; the control is the same
 * chain ending in /bin/true under the same name.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/python_proc.h"
#include "util/strutil.h"

#define MAXW 32

enum wrap { W_ENV, W_NICE, W_SHC, W_ARGS, W_TEXT, W_LINK, NWRAP };

static const char *const wrap_names[NWRAP] = {
	"env", "nice", "sh -c", "script \"$@\"", "script text", "symlink",
};

struct cmd {
	char *w[MAXW];
	int n;
};

static char dir[PATH_MAX];
static int nfiles;

static void cmd_free(struct cmd *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->w[i]);
	c->n = 0;
}

static void push(struct cmd *c, const char *w)
{
	assert_true(c->n < MAXW - 1);
	c->w[c->n++] = xstrdup(w);
	c->w[c->n] = NULL;
}

static char *joined(const struct cmd *c)
{
	char *s = xstrdup("");

	for (int i = 0; i < c->n; i++) {
		char *t = xasprintf("%s%s%s", s, i ? " " : "", c->w[i]);

		free(s);
		s = t;
	}
	return s;
}

static char *new_script(const char *body)
{
	char *path = xasprintf("%s/w%d", dir, nfiles++);
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fprintf(fp, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/* inner wrapped in kind k, into out */
static void wrap(enum wrap k, const struct cmd *inner, struct cmd *out)
{
	char *s, *path;

	out->n = 0;
	switch (k) {
	case W_ENV:
		push(out, "/usr/bin/env");
		push(out, "FOO=1");
		break;
	case W_NICE:
		push(out, "/usr/bin/nice");
		push(out, "-n");
		push(out, "5");
		break;
	case W_SHC:
		push(out, "/bin/sh");
		push(out, "-c");
		s = joined(inner);
		push(out, s);
		free(s);
		return;
	case W_ARGS:
		path = new_script("set -e\nexec \"$@\"");
		push(out, path);
		free(path);
		break;
	case W_TEXT:
		s = joined(inner);
		path = new_script(s);
		push(out, path);
		free(s);
		free(path);
		return;
	case W_LINK:
		/* a link to the program under another name: a venv's
		 * bin/python is one; "prog" hides what it is */
		path = xasprintf("%s/l%d", dir, nfiles++);
		assert_int_equal(symlink(inner->w[0], path), 0);
		push(out, path);
		free(path);
		for (int i = 1; i < inner->n; i++)
			push(out, inner->w[i]);
		return;
	default:
		fail();
	}
	for (int i = 0; i < inner->n; i++)
		push(out, inner->w[i]);
}

/* Every chain of depth up to 3 over the kinds, around target. */
static void check_chains(const char *target, bool want)
{
	char *interp = xasprintf("%s/interp", dir);
	int checked = 0;

	unlink(interp);
	assert_int_equal(symlink(target, interp), 0);
	for (int depth = 0; depth <= 3; depth++) {
		int combos = 1;

		for (int d = 0; d < depth; d++)
			combos *= NWRAP;
		for (int code = 0; code < combos; code++) {
			struct cmd a = { 0 }, b = { 0 };
			char trail[256] = "";

			push(&a, interp);
			push(&a, "prog");
			for (int d = 0, c = code; d < depth; d++, c /= NWRAP) {
				enum wrap k = (enum wrap)(c % NWRAP);

				wrap(k, &a, &b);
				cmd_free(&a);
				a = b;
				b = (struct cmd){ 0 };
				snprintf(trail + strlen(trail),
					 sizeof(trail) - strlen(trail),
					 "%s%s", d ? " < " : "", wrap_names[k]);
			}
			if (py_argv_runs_python(a.w) != want)
				fail_msg("%s through [%s]: expected %s", target,
					 trail, want ? "true" : "false");
			cmd_free(&a);
			checked++;
		}
	}
	assert_int_equal(checked, 1 + 6 + 36 + 216);
	free(interp);
}

static void test_chains_to_python(void **state)
{
	(void)state;
	check_chains("/usr/bin/python3.11", true);
}

static void test_chains_to_other(void **state)
{
	(void)state;
	check_chains("/bin/true", false);
}

/* The names that give it away, and the cases a user hits first. */
static void test_named(void **state)
{
	char *const venv[] = { "/nonexistent/.venv/bin/python3", "x", NULL };
	char *const mod[] = { "python3", "-m", "json.tool", NULL };
	char *const uv[] = { "timeout", "10", "app.py", NULL };
	char *const shc[] = { "sh", "-c", "cd /tmp && exec python3 -u x", NULL };
	char *const ls[] = { "/bin/ls", "-l", NULL };
	char *const shls[] = { "sh", "-c", "ls -l | wc -l", NULL };
	char *const none[] = { NULL };

	(void)state;
	assert_true(py_argv_runs_python(venv));
	assert_true(py_argv_runs_python(mod));
	assert_true(py_argv_runs_python(uv));
	assert_true(py_argv_runs_python(shc));
	assert_false(py_argv_runs_python(ls));
	assert_false(py_argv_runs_python(shls));
	assert_false(py_argv_runs_python(none));
}

/* A script that calls itself: the chain's bound ends it. */
static void test_loop(void **state)
{
	char *path = xasprintf("%s/self", dir), *body;
	char *argv[2] = { path, NULL };
	FILE *fp;

	(void)state;
	body = xasprintf("#!/bin/sh\nexec %s \"$@\"\n", path);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(body, fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(path, 0755), 0);
	assert_false(py_argv_runs_python(argv));
	free(body);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ys-pyexec-XXXXXX");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chains_to_python),
		cmocka_unit_test(test_chains_to_other),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_loop),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
