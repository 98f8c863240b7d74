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


#endif
