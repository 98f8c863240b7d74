/*
 * Options that several commands share and that name things of the
 * modules above util (profile formats, Python frames): their tables and
 * the entries of the commands' option tables.
 */
#ifndef YS_CMD_CMDOPTS_H
#define YS_CMD_CMDOPTS_H

#include "util/options.h"

/* The format of the profilers' -o files whose names say nothing. */
extern const struct opt_enum opt_profile_formats[];
#define OPT_PROFILE_FORMAT(f) OPT_ENUM(0, "format", f, \
	opt_profile_formats), .metavar = "FMT", .help = "the format of -o " \
	"files whose name says nothing"
/* record and trace (and mem): a CPython program's own frames in place of
 * the interpreter's (profile/pystacks.h), or its raw C frames. */
extern const struct opt_enum opt_python_modes[];
#define OPT_PYTHON(f) OPT_ENUM(0, "python", f, opt_python_modes), \
	.help = "on: a CPython program's functions, files and lines in " \
	"place of the interpreter's evaluation frames; off: the " \
	"interpreter's own C frames (its code no symbol names, in a " \
	"stripped python3, as [CPython interpreter])"

/* record and trace: a running process in place of a program (struct
 * attach_opts, commands.h); VERB what the command does to it ("profile",
 * "trace") */
#define OPT_ATTACH_PID(f, VERB) OPT_COUNT('p', "pid", f, 1, INT_MAX), \
	.metavar = "PID", \
	.help = VERB " the running process PID (every thread it has, " \
	"every child process it has, theirs too, and what they start) in " \
	"place of a program, without stopping or restarting it: until " \
	"--duration, Ctrl-C or its exit; it keeps running"
#define OPT_ATTACH_DURATION(f, VERB) OPT_DURATION('d', "duration", f), \
	.flags = OPT_MIN_EXCL, \
	.help = "with --pid: how long to " VERB "; units s, ms, us, ns " \
	"(default: until Ctrl-C or the process exits)"
#define OPT_ATTACH_NO_CHILDREN(f) OPT_FLAG(0, "no-children", f), \
	.help = "with --pid: PID alone, not the child processes it had at " \
	"the attach (those it starts later are still followed)"


#endif
