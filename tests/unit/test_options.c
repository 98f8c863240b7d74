/*
 * Unit tests of src/cmd/options: every type of option with good,
 * out-of-range and garbage values and the exact message naming the
 * option; --opt=V and --opt V; bundled short options; repeatable, enum
 * and callback options; unknown options, missing values, abbreviations;
 * the three ways operands and "--" mix; the generated help and the
 * completion scripts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/options.h"
#include "result/result.h"

struct t_args {
	bool flag, quiet, count_given;
	long count;
	int small;
	uint32_t mult;
	double num, dur, pct, alpha;
	uint64_t size;
	int color;
	bool yes;
	const char *str, *name, *path, *out;
	char **list;
	size_t nlist;
	const char *cb_val;
	int cb_calls;
	unsigned long long seed;
	long resamples;
};

static int t_callback(void *args, const struct opt_entry *o, const char *arg,
		      struct error *e)
{
	struct t_args *a = args;

	if (strncmp(arg, "ok", 2))
		return error_set(e, "'%s' is not ok", arg);
	a->cb_val = arg;
	a->cb_calls += (int)o->data;
	return 0;
}

static const struct opt_enum t_colors[] = {
	{ "red", 0 }, { "green", 1 }, { "blue", 2 }, { NULL, 0 },
};

static const struct opt_enum t_yesno[] = {
	{ "off", false }, { "on", true }, { NULL, 0 },
};

#define OPT_STRUCT struct t_args
static const struct opt_entry t_opts[] = {
	OPT_GROUP("Numbers"),
	{ OPT_FLAG('f', "flag", flag), .help = "a flag" },
	{ OPT_COUNT('c', "count", count, 1, 100), OPT_SETS(count_given),
	  .defval = "10", .help = "a count" },
	{ OPT_COUNT(0, "small", small, 0, 2000000000), .help = "an int" },
	{ OPT_COUNT(0, "mult", mult, 64, 128), .step = 8,
	  .help = "a multiple" },
	{ OPT_NUMBER(0, "num", num, 0, 1), .flags = OPT_MIN_EXCL |
	  OPT_MAX_EXCL, .metavar = "X", .help = "a number" },
	{ OPT_DURATION('d', "dur", dur), .flags = OPT_MIN_EXCL,
	  .help = "a duration" },
	{ OPT_SIZE(0, "size", size), .help = "a size" },
	{ OPT_PERCENT(0, "pct", pct, 0, INFINITY), .help = "a percentage" },
	OPT_GROUP("Words"),
	{ OPT_ENUM(0, "color", color, t_colors), .help = "a color" },
	{ OPT_ENUM(0, "yes", yes, t_yesno), .metavar = "SWITCH",
	  .help = "a bool enum" },
	{ OPT_STRING('s', "str", str), .metavar = "TEXT", .help = "a string" },
	{ OPT_STRING(0, "name", name), .flags = OPT_NONEMPTY,
	  .metavar = "NAME", .help = "a name" },
	{ OPT_PATH(0, "path", path), .help = "an input file" },
	{ OPT_OUTPUT('o', "out", out), .help = "an output file" },
	{ OPT_LIST('l', "list", list, nlist), .metavar = "ITEM",
	  .help = "repeatable" },
	{ OPT_CALLBACK(0, "cb", t_callback), .data = 1, .metavar = "OK",
	  .help = "a callback" },
	{ OPT_SEED(seed, "the seed") },
	{ OPT_RESAMPLES(resamples, "resamples") },
	{ OPT_ALPHA(alpha, 1e-5, 0, "a level") },
	{ OPT_QUIET(quiet, "quiet") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static const char *const t_usage[] = { "[OPTIONS] ARGS", "--other", NULL };

static struct opt_cmd t_cmd = {
	.name = "t",
	.summary = "a test command",
	.usage = t_usage,
	.description = "The description.\n",
	.epilog = "The epilog.\n",
	.mode = OPT_PERMUTE,
	.opts = t_opts,
};

static struct t_args a;
static struct opt_rest rest;
static struct error err;
static char **args;

/* parse(mode, argc, argv): 0, 1 or -1; the result in a, rest, err */
static int parse(enum opt_mode mode, int argc, char **argv)
{
	free(a.list);
	memset(&a, 0, sizeof(a));
	memset(&err, 0, sizeof(err));
	t_cmd.mode = mode;
	args = argv;
	return opt_parse(&t_cmd, argc, argv, &a, &rest, &err);
}

#define ARGV(...) ((char *[]){ "t", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "t", __VA_ARGS__ }) / \
			 sizeof(char *)))
#define P(mode, ...) parse(mode, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))
/* parses, or fails with exactly the message want */
#define OK(...) assert_int_equal(P(OPT_PERMUTE, __VA_ARGS__), 0)
#define BAD(want, ...) do { \
		assert_int_equal(P(OPT_PERMUTE, __VA_ARGS__), -1); \
		assert_string_equal(err.msg, want); \
	} while (0)

static void test_count(void **state)
{
	OK("--count=5");
	assert_int_equal(a.count, 5);
	assert_true(a.count_given);
	OK("--count", "7");
	assert_int_equal(a.count, 7);
	OK("-c9");
	assert_int_equal(a.count, 9);
	OK("-c", "100");
	assert_int_equal(a.count, 100);
	OK("--flag");
	assert_false(a.count_given);
	BAD("--count: '0' is not a whole number from 1 to 100", "--count=0");
	BAD("--count: '101' is not a whole number from 1 to 100", "-c", "101");
	BAD("--count: 'abc' is not a whole number from 1 to 100", "-cabc");
	BAD("--count: '5x' is not a whole number from 1 to 100", "--count",
	    "5x");
	BAD("--count: '' is not a whole number from 1 to 100", "--count=");
	BAD("--count: '-1' is not a whole number from 1 to 100", "--count",
	    "-1");
	/* into an int: 4 bytes written, the neighbours untouched */
	OK("--small", "2000000000", "--count", "3");
	assert_int_equal(a.small, 2000000000);
	assert_int_equal(a.count, 3);
	OK("--mult", "72");
	assert_int_equal(a.mult, 72);
	BAD("--mult: '12' is not a multiple of 8 from 64 to 128", "--mult",
	    "12");
	BAD("--mult: '65' is not a multiple of 8 from 64 to 128", "--mult=65");
	BAD("--seed: '-1' is not a whole number >= 0", "--seed", "-1");
	OK("--seed", "9223372036854775807");
	assert_true(a.seed == 9223372036854775807ULL);
	BAD("--resamples: '50' is not a whole number from 100 to 1000000",
	    "--resamples=50");
	BAD("--resamples: '2000000' is not a whole number from 100 to 1000000",
	    "--resamples=2000000");
}

static void test_number(void **state)
{
	OK("--num", "0.5");
	assert_true(a.num == 0.5);
	BAD("--num: '1' is not a number > 0 and < 1", "--num=1");
	BAD("--num: '0' is not a number > 0 and < 1", "--num", "0");
	BAD("--num: 'nan' is not a number > 0 and < 1", "--num", "nan");
	BAD("--num: 'x' is not a number > 0 and < 1", "--num", "x");
	OK("--alpha", "1e-5");
	assert_true(a.alpha == 1e-5);
	BAD("--alpha: '1e-06' is not a number >= 1e-05 and < 1", "--alpha",
	    "1e-06");
	OK("--pct", "2");
	assert_true(a.pct == 0.02);
	BAD("--pct: '-1' is not a percentage >= 0", "--pct", "-1");
	BAD("--pct: '2%x' is not a percentage >= 0", "--pct=2%x");
	/* a percentage may carry its sign: "2.5%" is 2.5 */
	OK("--pct", "2.5%");
	assert_true(a.pct == 0.025);
	BAD("--pct: '2%%' is not a percentage >= 0", "--pct=2%%");
	BAD("--pct: '%' is not a percentage >= 0", "--pct=%");
}

static void test_duration(void **state)
{
	OK("--dur", "15ms");
	assert_true(a.dur == 15e-3);
	OK("-d2");
	assert_true(a.dur == 2);
	OK("--dur=10us");
	assert_true(fabs(a.dur - 10e-6) < 1e-15);
	BAD("--dur: '5h' is not a duration > 0 (a number of seconds, or with "
	    "a unit s, ms, us, ns)", "--dur", "5h");
	BAD("--dur: '0' is not a duration > 0 (a number of seconds, or with "
	    "a unit s, ms, us, ns)", "-d", "0");
	BAD("--dur: '-1s' is not a duration > 0 (a number of seconds, or "
	    "with a unit s, ms, us, ns)", "--dur=-1s");
}

static void test_size(void **state)
{
	OK("--size", "512k");
	assert_true(a.size == 524288);
	OK("--size=1M");
	assert_true(a.size == 1048576);
	OK("--size", "1.5KiB");
	assert_true(a.size == 1536);
	OK("--size", "2g");
	assert_true(a.size == 2147483648ULL);
	OK("--size", "100B");
	assert_true(a.size == 100);
	BAD("--size: '0' is not a size in bytes (e.g. 524288 or 512k)",
	    "--size", "0");
	BAD("--size: '12x' is not a size in bytes (e.g. 524288 or 512k)",
	    "--size=12x");
	BAD("--size: '2e15' is not a size in bytes (e.g. 524288 or 512k)",
	    "--size=2e15");
}

static void test_enum_string(void **state)
{
	OK("--color", "blue");
	assert_int_equal(a.color, 2);
	OK("--color=green", "--yes=on");
	assert_int_equal(a.color, 1);
	assert_true(a.yes);
	BAD("--color: 'pink' is not red, green or blue", "--color", "pink");
	BAD("--color: '' is not red, green or blue", "--color=");
	BAD("--yes: 'maybe' is not off or on", "--yes", "maybe");
	OK("--str", "x", "--path", "in.txt", "-o", "out.json");
	assert_string_equal(a.str, "x");
	assert_string_equal(a.path, "in.txt");
	assert_string_equal(a.out, "out.json");
	OK("--str=", "--out=-");
	assert_string_equal(a.str, "");
	assert_string_equal(a.out, "-");
	/* the last one wins */
	OK("-s", "a", "--str", "b");
	assert_string_equal(a.str, "b");
	BAD("--name: an empty value", "--name=");
	BAD("--out: an empty value", "--out=");
	BAD("--path: an empty value", "--path", "");
	/* a value may start with '-' */
	OK("--str", "-x", "--name", "--flag");
	assert_string_equal(a.str, "-x");
	assert_string_equal(a.name, "--flag");
	assert_false(a.flag);
}

static void test_list_callback(void **state)
{
	OK("-l", "a", "--list", "b", "--list=c", "-ld");
	assert_int_equal(a.nlist, 4);
	assert_string_equal(a.list[0], "a");
	assert_string_equal(a.list[1], "b");
	assert_string_equal(a.list[2], "c");
	assert_string_equal(a.list[3], "d");
	assert_null(a.list[4]);
	OK("--cb", "okay", "--cb=ok2");
	assert_string_equal(a.cb_val, "ok2");
	assert_int_equal(a.cb_calls, 2);
	BAD("--cb: 'bad' is not ok", "--cb", "bad");
}

static void test_short_bundles(void **state)
{
	OK("-fq");
	assert_true(a.flag && a.quiet);
	OK("-fc5");
	assert_true(a.flag);
	assert_int_equal(a.count, 5);
	OK("-qfc", "6");
	assert_true(a.flag && a.quiet);
	assert_int_equal(a.count, 6);
	BAD("unknown option '-z'", "-fz");
	BAD("--count: '5q' is not a whole number from 1 to 100", "-c5q");
}

static void test_errors(void **state)
{
	BAD("unknown option '--nope'", "--nope");
	BAD("unknown option '--nope'", "--nope=3");
	BAD("unknown option '-z'", "-z");
	BAD("--count: needs a value", "--count");
	BAD("--count: needs a value", "-f", "-c");
	BAD("--str: needs a value", "-s");
	BAD("--flag: takes no value", "--flag=1");
	BAD("--help: takes no value", "--help=x");
	/* an unambiguous prefix is the option; an ambiguous one is named */
	OK("--cou", "4", "--fl");
	assert_int_equal(a.count, 4);
	assert_true(a.flag);
	BAD("ambiguous option '--s' (--small, --size, --str, --seed)", "--s",
	    "1");
	/* an exact name wins over the longer ones it begins */
	OK("--str", "v");
	assert_string_equal(a.str, "v");
	/* what a terminal would obey is escaped in the message */
	assert_int_equal(P(OPT_PERMUTE, "--count", "\033[31m"), -1);
	assert_null(strchr(err.msg, '\033'));
	assert_non_null(strstr(err.msg, "--count: '"));
	/* the first error wins; options after it are not looked at */
	BAD("--count: 'x' is not a whole number from 1 to 100", "--count=x",
	    "--nope");
}

static void test_operands_permute(void **state)
{
	OK("a", "--count", "2", "b", "--", "--flag", "-c", "c");
	assert_int_equal(a.count, 2);
	assert_false(a.flag);
	assert_int_equal(rest.end - rest.first, 5);
	assert_string_equal(args[rest.first], "a");
	assert_string_equal(args[rest.first + 1], "b");
	assert_string_equal(args[rest.first + 2], "--flag");
	assert_string_equal(args[rest.first + 3], "-c");
	assert_string_equal(args[rest.first + 4], "c");
	assert_int_equal(rest.end, 9);
	/* "-" is an operand; a value may be "--" */
	OK("-", "--str", "--", "x");
	assert_string_equal(a.str, "--");
	assert_int_equal(rest.end - rest.first, 2);
	assert_string_equal(args[rest.first], "-");
	assert_string_equal(args[rest.first + 1], "x");
	OK("--flag");
	assert_int_equal(rest.first, rest.end);
}

static void test_operands_stop(void **state)
{
	assert_int_equal(P(OPT_STOP_AT_OPERAND, "--count", "2", "url",
			   "--flag"), 0);
	assert_int_equal(a.count, 2);
	assert_false(a.flag);
	assert_int_equal(rest.first, 3);
	assert_int_equal(rest.end, 5);
	assert_string_equal(args[rest.first], "url");
	assert_int_equal(P(OPT_STOP_AT_OPERAND, "-f", "--", "-x"), 0);
	assert_true(a.flag);
	assert_string_equal(args[rest.first], "-x");
	assert_int_equal(rest.end - rest.first, 1);
	assert_int_equal(P(OPT_STOP_AT_OPERAND, "-f"), 0);
	assert_int_equal(rest.first, 2);
	assert_int_equal(rest.end, 2);
}

static void test_operands_program(void **state)
{
	assert_int_equal(P(OPT_PROGRAM, "a", "--flag", "--", "prog", "--count",
			   "x"), 0);
	assert_true(a.flag);
	assert_int_equal(a.count, 0);
	assert_int_equal(rest.dashdash, 3);
	assert_int_equal(rest.end, 3);
	assert_int_equal(rest.end - rest.first, 1);
	assert_string_equal(args[rest.first], "a");
	assert_string_equal(args[rest.dashdash + 1], "prog");
	assert_string_equal(args[rest.dashdash + 2], "--count");
	/* a value cannot reach beyond "--" */
	assert_int_equal(P(OPT_PROGRAM, "--str", "--", "p"), -1);
	assert_string_equal(err.msg, "--str: needs a value");
	assert_int_equal(P(OPT_PROGRAM, "-q"), 0);
	assert_int_equal(rest.dashdash, 2);
	assert_int_equal(rest.first, rest.end);
	/* options after operands, before "--" */
	assert_int_equal(P(OPT_PROGRAM, "x", "y", "-c", "3", "--", "p"), 0);
	assert_int_equal(a.count, 3);
	assert_int_equal(rest.end - rest.first, 2);
	assert_string_equal(args[rest.first], "x");
	assert_string_equal(args[rest.first + 1], "y");
}

/* Not inlined: GCC 12 at -O3, seeing &buf handed to open_memstream in
 * test_help's own frame, took every pointer into the text for one into
 * the local buf itself (-Wdangling-pointer), which it never is. */
static __attribute__((noinline)) char *help_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	opt_help(&t_cmd, fp);
	fclose(fp);
	return buf;
}

static void test_help(void **state)
{
	char *h = help_text();
	FILE *saved = stdout;
	char *buf = NULL;
	size_t len = 0;

	assert_non_null(strstr(h, "usage: yardstick t [OPTIONS] ARGS\n"
				  "       yardstick t --other\n\n"
				  "The description.\n"));
	assert_non_null(strstr(h, "\nThe epilog.\n"));
	assert_non_null(strstr(h, "\nNumbers\n"));
	assert_non_null(strstr(h, "\nWords\n"));
	/* every option, with its metavar */
	for (const struct opt_entry *o = t_opts; o->type; o++) {
		static const char *const mv[] = {
			"--flag", "--count N", "--small N", "--mult N",
			"--num X", "--dur T", "--size BYTES", "--pct P",
			"--color red|green|blue", "--yes SWITCH",
			"--str TEXT", "--name NAME", "--path FILE",
			"--out FILE", "--list ITEM", "--cb OK", "--seed N",
			"--resamples N", "--alpha A", "--quiet", "--help",
		};
		size_t n = o->long_name ? strlen(o->long_name) : 0;
		bool found = false;

		if (o->type == OPT_T_GROUP)
			continue;
		for (size_t i = 0; i < sizeof(mv) / sizeof(mv[0]); i++) {
			const char *at;

			if (strncmp(mv[i] + 2, o->long_name, n) ||
			    (mv[i][n + 2] && mv[i][n + 2] != ' '))
				continue;
			/* "  -c, --count N" or "      --count N", then
			 * spaces or a new line */
			at = strstr(h, mv[i]);
			assert_non_null(at);
			assert_true(at[-1] == ' ');
			at += strlen(mv[i]);
			assert_true(*at == ' ' || *at == '\n');
			found = true;
		}
		assert_true(found);
	}
	assert_non_null(strstr(h, "  -c, --count N "));
	assert_non_null(strstr(h, "      --small N "));
	assert_non_null(strstr(h, "a count (default 10; from 1 to 100)"));
	assert_non_null(strstr(h, "a multiple (a multiple of 8 from 64 to "
				  "128)"));
	assert_non_null(strstr(h, "a number (above 0 and below 1)"));
	assert_non_null(strstr(h, "a duration (above 0)"));
	assert_non_null(strstr(h, "a bool enum (one of off, on)"));
	assert_non_null(strstr(h, "a level (at least 1e-05 and "
				  "below 1)"));
	/* no line beyond 79 columns but for a long option name */
	for (char *p = h, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		assert_true(nl - p <= 79);
	free(h);

	/* -h and --help print that text on stdout, and parsing ends */
	stdout = open_memstream(&buf, &len);
	assert_int_equal(P(OPT_PERMUTE, "-fh", "--nope"), 1);
	fclose(stdout);
	stdout = saved;
	h = help_text();
	assert_string_equal(buf, h);
	free(buf);
	free(h);
}

static void test_completion(void **state)
{
	const struct opt_cmd *cmds[] = { &t_cmd };
	static const char *const shells[] = { "bash", "zsh", "fish" };
	struct error e;

	for (size_t s = 0; s < 3; s++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);

		assert_int_equal(opt_completion(shells[s], cmds, 1, fp, &e),
				 0);
		fclose(fp);
		for (const struct opt_entry *o = t_opts; o->type; o++)
			if (o->long_name)
				assert_non_null(strstr(buf, o->long_name));
		/* enum values, file completion of file options */
		assert_non_null(strstr(buf, "red green blue"));
		assert_non_null(strstr(buf, s == 0 ? "--path|-o|--out)"
				       : s == 1 ? "--out=}'[an output file]:"
						  "FILE:_files'"
				       : "-s o -l out -r -F"));
		free(buf);
	}
	assert_int_equal(opt_completion("csh", cmds, 1, stdout, &e), -1);
	assert_string_equal(e.msg, "'csh' is not bash, zsh or fish");
}

static int teardown(void **state)
{
	free(a.list);
	a.list = NULL;
	return 0;
}

/* The defaults come from the command's init, once: opt_parse starts from
 * them (what is not given keeps them), and the help shows them, each in
 * its type's words; zeros and NULLs show nothing, .defval wins. */
static void d_init(void *p)
{
	struct t_args *d = p;

	d->count = 10;		/* .defval says "10" too: it wins */
	d->small = 7;
	d->dur = 0.25;
	d->pct = 0.02;
	d->size = 4096;
	d->color = 2;
	d->str = "hello";
	d->seed = 1;
	d->resamples = 1000;
	d->alpha = 0.01;
}

static void test_defaults(void **state)
{
	char *h;

	t_cmd.args_size = sizeof(struct t_args);
	t_cmd.init = d_init;
	a.dur = 9;		/* opt_parse starts from zero, then init */
	OK("--small", "3");
	assert_int_equal(a.small, 3);
	assert_int_equal(a.count, 10);
	assert_true(a.dur == 0.25);
	assert_true(a.pct == 0.02);
	assert_int_equal(a.size, 4096);
	assert_int_equal(a.color, 2);
	assert_string_equal(a.str, "hello");
	assert_null(a.path);
	h = help_text();
	assert_non_null(strstr(h, "(default 7;"));
	assert_non_null(strstr(h, "a duration (default 250ms"));
	assert_non_null(strstr(h, "a percentage (default 2"));
	assert_non_null(strstr(h, "a size (default 4096"));
	assert_non_null(strstr(h, "(default blue"));
	assert_non_null(strstr(h, "a string (default hello"));
	assert_non_null(strstr(h, "the seed (default 1)"));
	assert_non_null(strstr(h, "resamples (default 1000;"));
	assert_non_null(strstr(h, "a count (default 10;"));
	assert_non_null(strstr(h, "a level (default 0.01; at least 1e-05 "
				  "and below 1)"));
	assert_null(strstr(h, "a number (default"));
	assert_null(strstr(h, "an input file (default"));
	free(h);
	t_cmd.args_size = 0;
	t_cmd.init = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_number),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_enum_string),
		cmocka_unit_test(test_list_callback),
		cmocka_unit_test(test_short_bundles),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_operands_permute),
		cmocka_unit_test(test_operands_stop),
		cmocka_unit_test(test_operands_program),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_completion),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
