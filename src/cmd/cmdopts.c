/* The tables of the options several commands share (cmdopts.h). */
#include <stdbool.h>

#include "cmd/cmdopts.h"
#include "profile/output.h"

const struct opt_enum opt_profile_formats[] = {
	{ "folded", PROFILE_FMT_FOLDED },
	{ "svg", PROFILE_FMT_SVG },
	{ "speedscope", PROFILE_FMT_SPEEDSCOPE },
	{ "pprof", PROFILE_FMT_PPROF },
	{ NULL, 0 },
};

const struct opt_enum opt_python_modes[] = {
	{ "on", true }, { "off", false }, { NULL, 0 },
};
