/*
 * Whether a command line will run CPython (python_proc.h's
 * py_argv_runs_python), decided before it starts: `record` and `trace`
 * must choose then how they unwind (CPython has no frame pointers: a
 * CPython process is unwound from a copy of its stack, -g dwarf) and
 * whether the reader wakes at every sample, for the whole run — a perf
 * event's sample type cannot change when a process execs.
 *
 * So the exec chain is followed as far as it can be read from outside:
 * the program itself (an ELF with the interpreter's entry points, or a
 * file named python*: venv symlinks, pyenv's shims), `env` and the other
 * programs that run their arguments (nice, timeout, uv run ...), a
 * shell's `-c` string, and scripts: their #! interpreter, and the words
 * of their text (a shell script that runs `python3 app.py`, or passes
 * its arguments on with "$@"). A word names Python when its base name
 * starts with "python" or ends in ".py". What cannot be seen from
 * outside (a program that picks its interpreter at run time) is not
 * guessed: the summary then names the cause (pystacks.h).
 */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/python_proc.h"
#include "util/fileio.h"
#include "util/strutil.h"

/* How deep wrappers may nest, and how many files one decision may open:
 * a bound on the work, whatever scripts call each other. */
#define CHAIN_DEPTH 8
#define CHAIN_FILES 64
/* The part of a script read for the words it runs. */
#define SCRIPT_MAX 65536

struct chain {
	int files;		/* files opened so far */
};

static bool runs_python(struct chain *c, char *const *argv, int argc,
			int depth);

static const char *base_of(const char *w)
{
	const char *b = strrchr(w, '/');

	return b ? b + 1 : w;
}

/* A word that names Python: python, python3.11, .venv/bin/python,
 * app.py. */
static bool word_is_python(const char *w)
{
	const char *b = base_of(w);
	size_t n = strlen(b);

	return !strncmp(b, "python", 6) || (n > 3 && !strcmp(b + n - 3, ".py"));
}

/* PATH's executable named name (a name with a slash: itself), into buf
 * (PATH_MAX): 0, or -1. */
static int resolve(const char *name, char *buf)
{
	const char *p = getenv("PATH");

	if (!*name)
		return -1;
	if (strchr(name, '/')) {
		snprintf(buf, PATH_MAX, "%s", name);
		return access(buf, X_OK);
	}
	for (p = p ? p : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t len = strcspn(p, ":");

		snprintf(buf, PATH_MAX, "%.*s/%s", (int)len, p, name);
		p += len;
		if (!access(buf, X_OK))
			return 0;
	}
	return -1;
}

static bool in_list(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, list[i]))
			return true;
	return false;
}

#define IN_LIST(w, list) in_list(w, list, sizeof(list) / sizeof(list[0]))

/* Programs whose operands are (mostly) a command they run: the first
 * operand that is not an option or an assignment is followed. */
static bool is_runner(const char *b)
{
	static const char *const runners[] = {
		"env", "nice", "nohup", "time", "timeout", "stdbuf", "taskset",
		"chrt", "ionice", "setsid", "exec", "command", "xargs", "sudo",
		"doas", "runuser", "unshare", "flock", "strace", "ltrace",
		"valgrind", "uv", "uvx", "poetry", "pipenv", "pdm", "hatch",
		"rye", "conda", "mamba", "micromamba", "pixi", "pyenv", "tox",
		"nox", "make", "just", "npx", "yarn",
	};

	return IN_LIST(b, runners);
}

static bool is_shell(const char *b)
{
	static const char *const shells[] = {
		"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox",
		"fish",
	};

	return IN_LIST(b, shells);
}

/* Shell words after which the next word is a command still. */
static bool keeps_command_position(const char *w)
{
	static const char *const kw[] = {
		"exec", "command", "then", "do", "else", "elif", "if", "while",
		"until", "!", "time", "nohup", "nice",
	};

	return IN_LIST(w, kw) || strchr(w, '=') != NULL;	/* VAR=value cmd */
}

/* Split s into words (whitespace, quotes and the shell's operators
 * separate them; nothing is expanded) and say whether one names Python,
 * or is a program that runs it: a word with a slash, or one in a
 * command's place (first, after ; & | ( ` or a newline) found in PATH. */
static bool text_runs_python(struct chain *c, const char *s, int depth)
{
	static const char seps[] = " \t\r\n;&|()<>`'\"{}$";
	bool cmdpos = true;
	char word[PATH_MAX];

	while (*s) {
		size_t n = strcspn(s, seps);
		bool follow = cmdpos;

		if (n && n < sizeof(word)) {
			char *one[2] = { word, NULL };

			memcpy(word, s, n);
			word[n] = '\0';
			if (word_is_python(word))
				return true;
			cmdpos = keeps_command_position(word);
			if ((follow || strchr(word, '/')) &&
			    !strchr(word, '=') &&
			    runs_python(c, one, 1, depth + 1))
				return true;
		}
		s += n;
		if (*s && strchr(";&|(`\n", *s))
			cmdpos = true;
		s += *s != '\0';
	}
	return false;
}

/* A script (its first line #!, unless a shell was given it): its
 * interpreter and its text. */
static bool script_runs_python(struct chain *c, const char *path,
			       char *const *argv, int argc, int depth,
			       bool shebang)
{
	char *text = xmalloc(SCRIPT_MAX + 1), *body = text, *interp[4] = { 0 };
	char *save = NULL, *w;
	bool is = false;
	ssize_t n;
	int fd, k = 0;

	fd = file_open_regular(path);
	n = fd < 0 ? -1 : read(fd, text, SCRIPT_MAX);
	if (fd >= 0)
		close(fd);
	if (n < 0)
		goto out_free;
	text[n] = '\0';
	if (!strncmp(text, "#!", 2)) {
		body = strchr(text, '\n');
		if (body)
			*body++ = '\0';
		for (w = strtok_r(text + 2, " \t", &save); w && k < 3;
		     w = strtok_r(NULL, " \t", &save))
			interp[k++] = w;
		/* the #! line: python, or env python, or a shell */
		if (k && runs_python(c, interp, k, depth + 1)) {
			is = true;
			goto out_free;
		}
	} else if (shebang) {
		goto out_free;
	}
	/* the rest: the words it runs, and the script's own arguments
	 * when it passes them on */
	if (body)
		is = text_runs_python(c, body, depth) ||
		     (argc > 1 && (strstr(body, "\"$@\"") ||
				   strstr(body, "$*")) &&
		      runs_python(c, argv + 1, argc - 1, depth + 1));
out_free:
	free(text);
	return is;
}

/* env's options that take a value as the next word */
static bool env_takes_value(const char *o)
{
	return !strcmp(o, "-u") || !strcmp(o, "-C") || !strcmp(o, "-S") ||
	       !strcmp(o, "--unset") || !strcmp(o, "--chdir") ||
	       !strcmp(o, "--split-string") || !strcmp(o, "-k") ||
	       !strcmp(o, "-s") || !strcmp(o, "-n") || !strcmp(o, "-p");
}

/* A runner's operands: the first that is neither an option nor an
 * assignment is the command; `env -S STRING` splits STRING. Every later
 * word is looked at as well (uv run app.py, make PY=python3). */
static bool runner_runs_python(struct chain *c, char *const *argv, int argc,
			       int depth)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (word_is_python(w))
			return true;
		if (!strcmp(w, "-S") && i + 1 < argc &&
		    text_runs_python(c, argv[i + 1], depth))
			return true;
		if (w[0] == '-') {
			i += env_takes_value(w) && i + 1 < argc;
			continue;
		}
		if (strchr(w, '=') && w[0] != '/')
			continue;
		if (runs_python(c, argv + i, argc - i, depth + 1))
			return true;
	}
	return false;
}

/* A shell: its -c string, or its script and the script's arguments. */
static bool shell_runs_python(struct chain *c, char *const *argv, int argc,
			      int depth)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (w[0] == '-' && w[1] != '-' && strchr(w + 1, 'c'))
			return i + 1 < argc &&
			       text_runs_python(c, argv[i + 1], depth);
		if (w[0] == '-' || w[0] == '+')
			continue;
		return runs_python(c, argv + i, argc - i, depth + 1) ||
		       script_runs_python(c, w, argv + i, argc - i, depth,
					  false);
	}
	return false;
}

static bool elf_runs_python(const char *path)
{
	static const char *const names[] = {
		"_PyRuntime", "Py_BytesMain", "Py_Main", "Py_Initialize",
	};
	uint64_t v[4], sz[4];

	return !py_elf_imports(path, names, 4, v, sz) &&
	       (v[0] || v[1] || v[2] || v[3]);
}

static bool runs_python(struct chain *c, char *const *argv, int argc,
			int depth)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *b;

	if (argc < 1 || !argv[0] || depth > CHAIN_DEPTH ||
	    c->files >= CHAIN_FILES)
		return false;
	if (word_is_python(argv[0]))
		return true;
	if (resolve(argv[0], path))
		return false;
	c->files++;
	/* a link behaves as what it links to: /bin/sh is dash, a link
	 * named otherwise to env is env */
	b = base_of(realpath(path, real) ? real : path);
	if (is_shell(b))
		return shell_runs_python(c, argv, argc, depth);
	if (elf_runs_python(path))
		return true;
	if (is_runner(b))
		return runner_runs_python(c, argv, argc, depth);
	return script_runs_python(c, path, argv, argc, depth, true);
}

bool py_argv_runs_python(char *const *argv)
{
	struct chain c = { 0 };
	int argc = 0;

	while (argv && argv[argc])
		argc++;
	return runs_python(&c, argv, argc, 0);
}
