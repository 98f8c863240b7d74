/*
 * What yardstick and its spawner (spawner_main.c) say to each other over
 * a request socket (a stream socketpair, read as a pipe is) and a reply
 * pipe. Both ends are built from this tree for the same machine, so
 * the structures go as they are; the hello's magic and version catch a
 * spawner from another build.
 *
 * The spawner is started as
 *     yardstick-spawner BASE NSLOTS PARENT_PID
 * with the request socket's end at descriptor BASE, the reply pipe's
 * write end at BASE + 1, and the descriptors the commands' stdin, stdout
 * and stderr may be at BASE + 2 + slot, slot < NSLOTS. It writes one
 * struct spawner_hello, then answers each request with its replies (one
 * per run, the last flagged SPAWNER_LAST), and exits when the request
 * socket is closed.
 *
 * A request may ask for a batch of runs of one command (count > 1): the
 * spawner runs them one after the other by itself and streams a reply per
 * run, several to a write, so that a run costs no round trip with
 * yardstick. It stops early at an interrupt, at a failure (with
 * SPAWNER_STOP_ON_FAILURE) or, adaptive, once min_count runs took
 * min_wall_ns together. The perf counter groups that count the commands
 * are handed over once (a SPAWNER_COUNTERS request: a uint32_t per group,
 * the words of its read, with the leaders' descriptors in SCM_RIGHTS);
 * with SPAWNER_READ_COUNTERS each reply then carries the groups' reading
 * taken after that run's reap, in their order.
 *
 * An interrupt is asked for with SIGUSR1 sent by sigqueue with the seq of
 * the request it is for (spawner_main.c says why).
 */
#ifndef YS_MEASURE_SPAWNER_PROTO_H
#define YS_MEASURE_SPAWNER_PROTO_H

#include <sched.h>
#include <stdint.h>

#define SPAWNER_MAGIC 0x59535350u	/* "YSSP" */
#define SPAWNER_VERSION 3
#define SPAWNER_NAME "yardstick-spawner"
/* Bound on a request's strings: what execve itself accepts at most. */
/* Bounds on the counters handed over; a larger set is read by yardstick
 * itself, one run per request. */
#define SPAWNER_MAX_GROUPS 32
#define SPAWNER_MAX_WORDS 256
#define SPAWNER_MAX_STRINGS (64u << 20)

struct spawner_hello {
	uint32_t magic;
	uint32_t version;
	int64_t hwm_kib;	/* the spawner's own peak RSS so far */
};

enum {
	SPAWNER_PIN = 1,		/* request: run on the CPUs in pin */
	SPAWNER_STOP_ON_FAILURE = 2,	/* request: end the batch at a run
					 * that exits non-zero or times out */
	SPAWNER_READ_COUNTERS = 4,	/* request: a reading in each reply */
	SPAWNER_COUNTERS = 8,		/* request: take these counters (no
					 * command; one reply) */
	SPAWNER_TIMED_OUT = 1,		/* reply: killed at the timeout */
	SPAWNER_INTERRUPTED = 2,	/* reply: killed on an interrupt */
	SPAWNER_PIN_FAILED = 4,		/* reply: err is of --pin */
	SPAWNER_SETUP_FAILED = 8,	/* reply: err is of the set-up */
	SPAWNER_LAST = 16,		/* reply: the request's last */
};

/* Followed by len bytes: path NUL argv[0] NUL ... argv[argc - 1] NUL. */
struct spawner_request {
	uint32_t len;
	uint32_t argc;
	int32_t seq;		/* > 0, one more than the last request's */
	int32_t fd[3];		/* stdin, stdout, stderr: slot, -1: null */
	uint32_t flags;
	uint32_t count;		/* runs: at most this many, at least 1 */
	uint32_t min_count;	/* with min_wall_ns: at least this many */
	int64_t timeout_ns;	/* 0: none */
	int64_t min_wall_ns;	/* > 0: stop once the batch's wall times
				 * (a timed-out run: at least timeout_ns)
				 * add up to this, after min_count runs */
	cpu_set_t pin;
};

struct spawner_reply {
	int32_t seq;
	int32_t err;		/* 0, or the errno of a spawn that failed
				 * (or of what flags name) */
	int32_t status;		/* raw wait status */
	uint32_t flags;		/* SPAWNER_TIMED_OUT, ... */
	int32_t ctr_err;	/* errno of a counter read that failed */
	uint32_t nwords;	/* words of counter reading that follow */
	int64_t start_ns;	/* CLOCK_MONOTONIC just before the spawn */
	int64_t wall_ns;	/* from just before the spawn to the reap */
	/*
	 * The spawner's own peak RSS, read after a run that may have raised
	 * it: at least what it was when the command exec'd. A command's
	 * ru_maxrss at or below it is the spawner's, not the command's.
	 */
	int64_t hwm_kib;
	int64_t utime_us, stime_us;
	int64_t maxrss_kib, minflt, majflt, nvcsw, nivcsw;
	/* processes the command left running (spawner_main.c: leftovers),
	 * killed once it had exited or been killed */
	int64_t strays;
};

#endif
