/*
 * `yardstick roofline`: how far each benchmark is from what this machine
 * can do. --measure measures the machine's ceilings (peak FLOP/s per
 * instruction set and precision, bandwidth per memory level and access
 * pattern, one thread and all cores) and keeps them in the store as a
 * result of kind "roofline"; REFS places stored or JSON results under
 * those ceilings with a verdict each; --count counts a program's
 * floating-point operations and bytes where no PMU can, and times it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "util/options.h"
#include "cmd/roofline.h"

static const char *const roofline_usage[] = {
	"[OPTIONS] [REF...]",
	"--measure [OPTIONS]",
	"--machine [OPTIONS]",
	"--count [OPTIONS] -- PROGRAM [ARGS...]",
	NULL,
};

static const char roofline_description[] =
"Place benchmarks on this machine's roofline: for each, the FLOP rate it\n"
"attained, its arithmetic intensity (FLOPs per byte), the ceiling that\n"
"binds it (a memory level or a compute ceiling), the share of that\n"
"ceiling it reached and how far the next one is. --measure measures the\n"
"ceilings first and keeps them in the store for this machine.\n"
"\n"
"REF... are result sets as compare takes them (a JSON file, latest, an id,\n"
"@COMMIT, branch:NAME); each benchmark is placed under this machine's\n"
"newest stored ceilings (or --ceilings): a run benchmark by its work\n"
"(run --work, --count, else the PMU's flops and dram_bytes) over its\n"
"median wall time, a libyardstick benchmark by its declared FLOPs and\n"
"bytes. A benchmark without work is listed as not placed, with why. A\n"
"parameter 'threads' or 'precision' (fp64, fp32) of a benchmark chooses\n"
"its ceilings; the compute roof is the fastest instruction set measured,\n"
"the slower ones are ceilings below it. --machine lists the ceilings.\n"
"The report goes to stdout; to stderr when an output is stdout (- as a\n"
"FILE), so that stdout holds that output alone.\n";

static const char roofline_epilog[] =
"--measure: peak FLOP/s, FP64 and FP32, of each instruction set cpuid\n"
"reports (scalar, sse2, avx2_fma, avx512), and bandwidth (load, copy,\n"
"triad) of each cache level sysfs describes (half of it per thread, or\n"
"per instance when shared) and of DRAM (4 x the last level cache, at\n"
"least 256 MiB), with 1 thread and with --threads (threads pinned, one per\n"
"CPU, each on its own buffers). Bytes are those the kernel moves (copy:\n"
"read + write, triad: 2 reads + 1 write), without write-allocate traffic,\n"
"as likwid-bench counts them. Each ceiling is the best of its\n"
"repetitions; the table gives beside each compute ceiling the\n"
"theoretical peak: threads x the clock measured x the FLOPs per cycle of\n"
"the core's FMA pipes, where the core is known. Warned on stderr and in\n"
"the ceilings' warnings: a cache sysfs reports larger than this machine\n"
"can have (over 16 MiB a CPU sharing it, or 1/8 of the memory: a virtual\n"
"machine reporting its host's), then measured with 2 MiB a CPU sharing\n"
"it; a cache measured slower than DRAM. --quick (3 short repetitions,\n"
"DRAM at least 64 MiB) measures each ceiling once after 10 s.\n"
"YARDSTICK_SYSFS=DIR reads the caches under DIR instead of /sys.\n"
"\n"
"--count runs PROGRAM once under valgrind with ysflops, yardstick's own\n"
"valgrind tool (every process of its tree), then times it natively as\n"
"`yardstick run --runs N` would, and keeps a result of kind run whose\n"
"metrics work_flops and work_bytes hold the counts. What it counts:\n"
"  FLOPs   by precision (fp64, fp32, fp16) and width (scalar, 128-,\n"
"          256-bit), every lane of a packed op: add, subtract, multiply\n"
"          1 each; divide and square root 1 each (also shown apart); a\n"
"          fused multiply-add 2. Not counted: comparisons, min, max,\n"
"          conversions, negation, absolute value, reciprocal estimates,\n"
"          x87 transcendentals (fsin ...), integer arithmetic.\n"
"  bytes   every load and store by its size (the stack, spills and\n"
"          libc included).\n"
"Error on kernels of known counts (tests/fixtures/flopkern.c: scalar,\n"
"SSE2, AVX, AVX2 FMA, FP64 and FP32): FLOPs exact; bytes exact beyond\n"
"the start-up's (ld.so and libc: about 155 KB loaded, 93 KB stored).\n"
"Cost: valgrind's own (ysflops adds 2-4% to --tool=none): the counted\n"
"run takes 6 to 7 times the native CPU time on SSE and AVX code, 90 to\n"
"190 times on FMA code, which valgrind runs one lane at a time in\n"
"software (bench/RESULTS.md). AVX-512 code cannot be counted:\n"
"valgrind 3.19 does not run it, and code chosen by the CPU (cpuid) is\n"
"chosen under valgrind for a CPU without AVX-512.\n"
"\n"
"Exit status: 0 success; 1 the counted or timed program failed\n"
"(--count: its partial counts are shown, nothing is kept); 2 bad usage\n"
"or input; 3 the environment refused (no valgrind, a set-user-ID\n"
"program; REF... and --machine: no ceilings stored for this machine);\n"
"130 interrupted by SIGINT, 143 by SIGTERM (the program and what it\n"
"started killed).\n";

static const struct opt_enum roofline_precisions[] = {
	{ "fp64", 0 }, { "fp32", 1 }, { NULL, 0 },
};

static const struct opt_enum roofline_patterns[] = {
	{ "triad", 0 }, { "copy", 1 }, { "load", 2 }, { NULL, 0 },
};

#define OPT_STRUCT struct roofline_args
static const struct opt_entry roofline_options[] = {
	{ OPT_FLAG(0, "measure", measure),
	  .help = "measure this machine's ceilings and keep them in the store" },
	{ OPT_FLAG(0, "machine", machine),
	  .help = "show the ceilings stored for this machine" },
	{ OPT_FLAG(0, "count", count),
	  .help = "count PROGRAM's floating-point operations and bytes, time "
	  "it, and place it" },
	{ OPT_COUNT('t', "threads", threads, 0, 65536), .metavar = "N",
	  .help = "threads of the all-cores ceilings (0: every core)" },
	{ OPT_FLAG(0, "quick", quick),
	  .help = "--measure: 3 repetitions of 2 ms per ceiling and DRAM at "
	  "4 x the last level cache (a few seconds, for tests) instead of "
	  "20 of 5 ms and at least 256 MiB (about 25 s)" },
	{ OPT_COUNT('r', "runs", runs, 1, 1000000), OPT_SETS(runs_given),
	  .metavar = "N",
	  .help = "timed runs of PROGRAM (--count)" },
	{ OPT_STRING(0, "ceilings", ceilings), OPT_SETS(place_given), .metavar = "REF|FILE",
	  .help = "place under the ceilings of this result of kind roofline "
	  "(a store reference or a JSON file) instead of this machine's "
	  "newest" },
	{ OPT_COUNT(0, "point-threads", point_threads, 1, 1 << 20), OPT_SETS(place_given),
	  .metavar = "N", .help = "the ceilings of N threads for benchmarks "
	  "without a parameter 'threads'" },
	{ OPT_ENUM(0, "precision", precision, roofline_precisions), OPT_SETS(place_given),
	  .help = "the compute ceilings of benchmarks without a parameter "
	  "'precision'" },
	{ OPT_ENUM(0, "pattern", pattern, roofline_patterns), OPT_SETS(place_given),
	  .help = "the bandwidth of every memory level: triad (2 loads, 1 "
	  "store), copy or load" },
	{ OPT_LIST('o', "output", outs, nouts), .metavar = "FILE",
	  .flags = OPT_FILES, .help = "write the chart (.svg; repeatable)" },
	{ OPT_OUTPUT(0, "json", json),
	  .help = "the ceilings and points as JSON; with --count, the timed "
	  "result (- for stdout)" },
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(quiet, "no terminal report") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void roofline_init_args(void *args)
{
	struct roofline_args *a = args;

	a->runs = 10;
	a->point_threads = 1;
}

const struct opt_cmd roofline_cmd = {
	.name = "roofline",
	.summary = "this machine's FLOP/s and bandwidth ceilings; benchmarks "
		   "placed under them",
	.usage = roofline_usage,
	.description = roofline_description,
	.epilog = roofline_epilog,
	.mode = OPT_PROGRAM,
	.opts = roofline_options,
	.args_size = sizeof(struct roofline_args),
	.init = roofline_init_args,
};

int cmd_roofline(int argc, char **argv)
{
	struct roofline_args a;
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&roofline_cmd, argc, argv, &a, &rest, &ret))
		goto out;
	if (a.measure + a.machine + a.count > 1) {
		fprintf(stderr, "yardstick roofline: --measure, --machine and "
			"--count go one at a time\n");
		ret = 2;
		goto out;
	}
	if (a.quick && !a.measure) {
		fprintf(stderr, "yardstick roofline: --quick goes with "
			"--measure\n");
		ret = 2;
		goto out;
	}
	if (a.count) {
		ret = program_and_outputs("roofline", argc, argv, rest.first,
					  rest.dashdash, NULL, &a.argv);
		if (ret == 0)
			ret = roofline_count(&a);
		goto out;
	}
	if (a.runs_given) {
		fprintf(stderr, "yardstick roofline: --runs times the program "
			"of --count\n");
		ret = 2;
		goto out;
	}
	if (rest.dashdash < argc) {
		fprintf(stderr, "yardstick roofline: a program after '--' "
			"needs --count\n");
		ret = 2;
		goto out;
	}
	a.refs = argv + rest.first;
	a.nrefs = (size_t)(rest.end - rest.first);
	if (a.measure && a.place_given) {
		fprintf(stderr, "yardstick roofline: --ceilings, "
			"--point-threads, --precision and --pattern place "
			"benchmarks, not with --measure\n");
		ret = 2;
	} else if (a.measure) {
		ret = roofline_measure(&a);
	} else {
		ret = roofline_place(&a);
	}
out:
	free(a.outs);
	return ret;
}
