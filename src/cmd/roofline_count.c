/*
 * `yardstick roofline --count [--runs N] -- PROGRAM [ARGS...]`: count the
 * program's floating-point operations and the bytes it loads and stores
 * where no PMU can (a virtual machine, a CPU without FP events), then
 * time it natively with run's machinery, and place it on the roofline.
 *
 * The counting is one run of PROGRAM under valgrind with ysflops, a
 * valgrind tool of our own (src/roofline/ysflops/ysflops.c, its policy
 * there and in --help). valgrind's launcher finds a tool only as
 * $VALGRIND_LIB/TOOL-PLATFORM, next to the core's files
 * (vgpreload_core-amd64-linux.so, default.supp ...): so each count makes
 * a private directory holding a link to ysflops (next to yardstick in a
 * build tree, in libdir/yardstick once installed: find_helper) and links
 * to every file of the system's valgrind directory, and points
 * VALGRIND_LIB at it. Every process of the program's tree runs under the
 * tool (--trace-children=yes, forks too) and writes its totals at its
 * exit to a file of its own there; the totals are their sum.
 *
 * Then run's engine (engine/run.h, through run_plan_execute) times
 * PROGRAM --runs times, as `run` would,
 * and the result (kind "run") gets the counted work: metrics work_flops
 * and work_bytes (one value per timed run) and the settings work_flops
 * and work_bytes = "counted: ysflops" (docs/result-format.md). It is
 * saved, written to --json, and placed (roofline_place_result).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/roofline.h"
#include "engine/run.h"
#include "engine/roofline_count.h"
#include "result/metrics.h"
#include "result/result.h"
#include "util/child.h"
#include "util/fileio.h"
#include "util/monoclock.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

#define TOOL ROOFLINE_COUNT_TOOL

/* The last lines of a file the count left (valgrind's log, the
 * program's stderr), on stderr under a heading. */
static void show_tail(const char *path, const char *what)
{
	char *data = NULL, *start;
	size_t len = 0;
	struct error e;
	int lines = 0;

	if (file_read_all(path, &data, &len, &e) || !len) {
		free(data);
		return;
	}
	start = data + len;
	while (start > data && lines < 12)
		if (*--start == '\n' && start + 1 < data + len)
			lines++;
	if (*start == '\n')
		start++;
	fprintf(stderr, "yardstick roofline: the end of %s:\n", what);
	/* the program's own bytes: escaped, line by line */
	for (char *save = NULL, *line = strtok_r(start, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		term_puts(stderr, line);
		fputc('\n', stderr);
	}
	free(data);
}

/*
 * The logs of the processes valgrind ran (valgrind.PID.log in dir) that
 * say how one died, their tails on stderr. Returns whether one says
 * valgrind could not run an instruction.
 */
static bool show_logs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool unhandled = false;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		char *p, *data = NULL;
		struct error e;

		if (strncmp(de->d_name, "valgrind.", 9))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (!file_read_all(p, &data, NULL, &e) &&
		    (strstr(data, "Process terminating") ||
		     strstr(data, "unhandled instruction bytes"))) {
			unhandled |= strstr(data, "unhandled instruction "
					    "bytes") != NULL;
			show_tail(p, "valgrind's messages");
		}
		free(data);
		free(p);
	}
	closedir(d);
	return unhandled;
}

struct count_state {
	const struct roofline_args *a;
	struct roofline_counts c;
};

/* run_hooks.measured: the counted work, one value per timed run. */
static void add_work(struct result *r, void *arg)
{
	const struct count_state *st = arg;

	roofline_count_add_work(r, &st->c);
}

/* run_hooks.done: place the timed result under the stored ceilings. */
static int place(const struct result *r, void *arg)
{
	const struct count_state *st = arg;
	struct roofline_args pa = *st->a;
	int ret;

	pa.json = NULL;		/* --json is the run's result */
	ret = roofline_place_result(r, &pa);
	if (ret == 3) {
		fprintf(stderr, "yardstick roofline: counted and timed, but "
			"not placed (above); `yardstick roofline --measure` "
			"measures this machine's ceilings\n");
		return 0;
	}
	return ret;
}

static int noop_write(const char *path, void *ctx, struct error *e)
{
	(void)path;
	(void)ctx;
	(void)e;
	return 0;
}

/* --json and -o checked before the count, which takes long. No format:
 * their names are told apart when they are written (a name that says
 * another format is warned of once, then). */
static int check_outputs(const struct roofline_args *a)
{
	struct output_set s;
	int ret;

	outputs_init(&s);
	outputs_add(&s, "--json", a->json, NULL, noop_write, NULL);
	for (size_t i = 0; i < a->nouts; i++)
		outputs_add(&s, "-o", a->outs[i], NULL, noop_write, NULL);
	ret = check_output_set(&s, "yardstick roofline");
	outputs_free(&s);
	return ret;
}

/* Everything found before the count: 0, or the exit code (printed). */
struct count_env {
	char *prog, *valgrind, *tool, *vglib;
};

static int find_everything(const struct roofline_args *a,
			   struct count_env *env)
{
	struct error e;

	if (spawn_resolve_program(a->argv[0], &env->prog, &e)) {
		fprintf(stderr, "yardstick roofline: %s\n", e.msg);
		return 2;
	}
	if (spawn_exec_privileged(env->prog, &e) == 1) {
		fprintf(stderr, "yardstick roofline: cannot count it: %s, and "
			"under valgrind it would run without its privileges "
			"(count a copy without the set-ID bits or "
			"capabilities)\n", e.msg);
		return 3;
	}
	if (spawn_resolve_program("valgrind", &env->valgrind, &e)) {
		fprintf(stderr, "yardstick roofline: --count runs the program "
			"under valgrind, which is not installed (apt-get "
			"install valgrind): %s\n", e.msg);
		return 3;
	}
	env->tool = find_helper(ROOFLINE_COUNT_TOOL_FILE, "YARDSTICK_YSFLOPS",
				X_OK, &e);
	if (!env->tool) {
		fprintf(stderr, "yardstick roofline: cannot count: %s (it is "
			"built where valgrind's tool files are installed: "
			"apt-get install valgrind, and rebuild)\n", e.msg);
		return 3;
	}
	env->vglib = roofline_valgrind_libdir(env->valgrind, &e);
	if (!env->vglib) {
		fprintf(stderr, "yardstick roofline: %s\n", e.msg);
		return 3;
	}
	return 0;
}

/* valgrind's argument for the program: a path it cannot take for one of
 * its options. */
static char *program_arg(const char *path)
{
	return path[0] == '-' ? xasprintf("./%s", path) : xstrdup(path);
}

/* One run of the program under ysflops, in dir. Returns 0 with c filled
 * (the program exited with 0), or the exit code (printed). */
static int count_program(const struct roofline_args *a,
			 const struct count_env *env, const char *dir,
			 struct roofline_counts *c, FILE *fp)
{
	char *esc = roofline_count_pct_escape(dir);
	char *out = xasprintf("--ys-out=%s/counts", dir);
	/* one log per process (%p): they would overwrite one another */
	char *log = xasprintf("--log-file=%s/valgrind.%%p.log", esc);
	char *lib = xasprintf("VALGRIND_LIB=%s", dir);
	char *errpath = xasprintf("%s/stderr", dir);
	char *prog = program_arg(env->prog);
	char *name = term_safe(a->argv[0]);
	const char *envs[] = { lib, NULL };
	size_t n = 0;
	char **argv;
	struct child ch = { 0 };
	struct error e;
	int errfd, ret = 0, code;
	bool unhandled;
	double secs;

	for (n = 0; a->argv[n]; n++)
		;
	argv = xcalloc(n + 9, sizeof(char *));
	argv[0] = env->valgrind;
	/* not the user's ~/.valgrindrc, ./.valgrindrc nor VALGRIND_OPTS:
	 * another tool's options there would stop ours */
	argv[1] = "--command-line-only=yes";
	argv[2] = "--tool=" TOOL;
	argv[3] = "--trace-children=yes";
	/* no gdbserver: its FIFOs in TMPDIR outlive a killed valgrind */
	argv[4] = "--vgdb=no";
	argv[5] = log;
	argv[6] = out;
	argv[7] = prog;
	for (size_t i = 1; i < n; i++)
		argv[7 + i] = a->argv[i];
	errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (errfd < 0) {
		fprintf(stderr, "yardstick roofline: cannot create '%s': %s\n",
			errpath, strerror(errno));
		ret = 3;
		goto out;
	}
	ch.path = env->valgrind;
	ch.argv = argv;
	ch.env_add = envs;
	ch.io[0] = CHILD_IO_NULL;
	ch.io[1] = CHILD_IO_NULL;
	ch.io[2] = CHILD_IO_FD;
	ch.fd[2] = errfd;
	ch.own_group = true;
	ch.die_with_us = true;
	ch.interrupt = stop_flag();
	if (!a->quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "yardstick roofline: counting '%s' under "
			"valgrind, some 6 to 200 times slower than natively "
			"(Ctrl-C stops it)\n", name);
	if (child_start(&ch, &e) || child_wait(&ch, &e)) {
		fprintf(stderr, "yardstick roofline: %s\n", e.msg);
		ret = 3;
		goto out;
	}
	if (ch.interrupted || stop_signal()) {
		fprintf(stderr, "yardstick roofline: interrupted by %s while "
			"counting: nothing kept\n", stop_signal_name());
		ret = stop_exit_code();
		goto out;
	}
	secs = (double)(ch.end_ns - ch.start_ns) / 1e9;
	if (roofline_counts_read(dir, c, &e)) {
		fprintf(stderr, "yardstick roofline: %s\n", e.msg);
		ret = 3;
		goto out;
	}
	code = spawn_exit_code(ch.status);
	if (!c->processes) {
		/* valgrind never ran the tool, or could not start the
		 * program: the launcher says why on stderr */
		show_tail(errpath, "valgrind's messages");
		show_logs(dir);
		fprintf(stderr, "yardstick roofline: valgrind did not count "
			"'%s' (exit code %d)%s\n", name, code,
			code == 126 || code == 127 ? "" : "; ysflops holds the "
			"valgrind it was built with: rebuild yardstick after an "
			"upgrade of valgrind");
		ret = code == 126 || code == 127 ? 2 : 3;
		goto out;
	}
	if (code != 0) {
		roofline_counts_print(stderr, c, secs, ": PARTIAL, the program failed");
		show_tail(errpath, "its stderr");
		unhandled = show_logs(dir);
		print_program_status("yardstick roofline", "count", ch.status);
		if (unhandled)
			fprintf(stderr, "yardstick roofline: valgrind cannot run "
				"an instruction of it (above): AVX-512 and some "
				"newer extensions are beyond valgrind 3.19; count "
				"a build without them (-mno-avx512f, or -march "
				"for an older CPU)\n");
		fprintf(stderr, "yardstick roofline: '%s' failed under "
			TOOL ": nothing timed nor kept\n", name);
		ret = 1;
		goto out;
	}
	if (!a->quiet)
		roofline_counts_print(fp, c, secs, c->incomplete
			     ? ": some processes left no totals" : "");
	if (c->incomplete)
		fprintf(stderr, "yardstick roofline: warning: %zu of %zu "
			"processes did not finish their totals: the counts "
			"are short of theirs\n", c->incomplete, c->processes);
out:
	if (errfd >= 0)
		close(errfd);
	free(argv);
	free(out);
	free(log);
	free(lib);
	free(errpath);
	free(esc);
	free(name);
	free(prog);
	return ret;
}

/* Time the program with run's engine, as `run --runs N -- PROGRAM`
 * would, the counts added (run_plan_execute: the report, --json, the
 * store). */
static int time_program(const struct roofline_args *a, struct count_state *st)
{
	struct run_plan p;
	struct run_hooks h = { add_work, place, st };

	run_plan_init(&p);
	p.argv = a->argv;
	p.runs = a->runs;
	if (a->runs == 1)
		p.warmup = 0;	/* as run's --runs 1: a quick look */
	p.progress = !a->quiet;
	p.all_cis = a->json != NULL;
	p.record_git = a->json || !a->no_store;
	return run_plan_execute(&p, &(struct run_outputs){
		.json = a->json, .store = a->store, .no_store = a->no_store,
		.quiet = a->quiet, .command = "yardstick roofline" }, &h);
}

/* The count, in a private directory made and removed here. */
static int count_in_dir(const struct roofline_args *a,
			const struct count_env *env, struct roofline_counts *c)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/yardstick-count-XXXXXX",
			      tmp && *tmp ? tmp : "/tmp");
	struct error e;
	FILE *fp;
	int ret;

	if (!mkdtemp(dir)) {
		fprintf(stderr, "yardstick roofline: cannot make a directory "
			"'%s': %s\n", dir, strerror(errno));
		free(dir);
		return 3;
	}
	if (roofline_count_libdir(dir, env->tool, env->vglib, &e)) {
		fprintf(stderr, "yardstick roofline: %s\n", e.msg);
		ret = 3;
	} else {
		/* with --json on stdout, the report goes to stderr */
		fp = a->json && output_is_stdout(a->json) ? stderr : stdout;
		ret = count_program(a, env, dir, c, fp);
		fflush(fp);
	}
	roofline_count_remove_dir(dir);
	free(dir);
	return ret;
}

int roofline_count(const struct roofline_args *a)
{
	struct count_env env = { 0 };
	struct count_state st = { .a = a };
	struct error e;
	int ret;

	/* Ctrl-C from here to the end: nothing left behind (util/stop.h) */
	if (stop_install_kept(&e))
		fprintf(stderr, "yardstick roofline: warning: %s\n", e.msg);
	ret = check_outputs(a);
	if (!ret)
		ret = find_everything(a, &env);
	if (!ret)
		ret = count_in_dir(a, &env, &st.c);
	if (!ret && stop_signal()) {
		fprintf(stderr, "yardstick roofline: interrupted by %s: nothing "
			"kept\n", stop_signal_name());
		ret = stop_exit_code();
	}
	if (!ret)
		ret = time_program(a, &st);
	free(env.prog);
	free(env.valgrind);
	free(env.tool);
	free(env.vglib);
	return ret;
}
