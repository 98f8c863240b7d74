/*
 * The spawner: a small helper process (yardstick-spawner, spawner_main.c)
 * that starts the commands `run` measures, waits for them and measures
 * them as spawn_measure would, so that they do not start in yardstick's
 * own address space — whose peak RSS the kernel would otherwise report as
 * theirs (spawner_main.c says how). It is started once per `run` and costs
 * one round trip over a pipe per command started alone (spawner_measure),
 * none per run of a batch (spawner_batch_begin).
 *
 * Every command is the spawner's child, not ours: perf counters that are
 * to count the commands must be opened on the spawner
 * (spawner_open_counters), and a pid from it is only good for signals.
 */
#ifndef YS_MEASURE_SPAWNER_H
#define YS_MEASURE_SPAWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/counters.h"
#include "measure/run_sample.h"
#include "util/error.h"

struct spawner;

/*
 * Where yardstick-spawner is: $YARDSTICK_SPAWNER if set, else next to the
 * running binary, in src/measure/ below it (a build tree), in
 * ../libdir/yardstick from it (an install, moved or not), or in the
 * configured libdir/yardstick. Returns a malloc'd path, or NULL with a
 * message saying where it looked.
 */
char *spawner_find(struct error *e);

/* Whether spawner_find finds a spawner to start (whether it then starts
 * is seen only then). */
bool spawner_present(void);

/*
 * Start the spawner at path. The commands' stdin, stdout and stderr
 * (spawn_opts) may later be -1 or one of fds[0..n), which are handed to it
 * once, here: they must stay open, on the same files, until spawner_stop.
 * Returns NULL with a message on failure.
 */
struct spawner *spawner_start(const char *path, const int *fds, size_t n,
			      struct error *e);

/*
 * spawner_start in two halves, so that the caller's own work overlaps the
 * spawner's exec and start-up: spawner_launch starts it and returns at
 * once; spawner_greet waits for its greeting and must come before any
 * other call on it but spawner_stop. spawner_greet returns s, or NULL with
 * a message (s reaped and freed); both take NULL.
 */
struct spawner *spawner_launch(const char *path, const int *fds, size_t n,
			       struct error *e);
struct spawner *spawner_greet(struct spawner *s, struct error *e);

/*
 * No more requests: the spawner exits on its own (its end of the
 * requests read) while the caller goes on; spawner_stop reaps it later.
 * Only spawner_stop may follow. NULL is allowed.
 */
void spawner_let_go(struct spawner *s);

/* Ask the spawner to exit, reap it and free s. NULL is allowed. */
void spawner_stop(struct spawner *s);

/* Pump d (spawn.h: a pumped drainer of the commands' stderr) whenever
 * the spawner's replies are awaited; NULL: none. */
struct drainer;
void spawner_set_drain(struct spawner *s, struct drainer *d);

/*
 * counters_open, or with emulated counters_open_emulated, on the spawner:
 * the set counts every command the spawner starts from its exec on, and
 * never the spawner itself. Returns as counters_open does.
 */
enum counters_result spawner_open_counters(struct spawner *s,
					   const char *const *events,
					   size_t n, bool emulated,
					   struct counters **out,
					   struct error *e);

/*
 * spawn_measure (spawn.h) through the spawner; o->via is ignored. Its
 * rss_floor is the spawner's own peak RSS, well under 1 MiB. Returns as
 * spawn_measure does; -1 also when the spawner is gone (message says so).
 */
int spawner_measure(struct spawner *s, const struct spawn_opts *o,
		    struct run_sample *out, struct error *e);

/*
 * A batch: up to count runs of one command, run by the spawner alone (no
 * round trip per run), each read as it ends (spawner_batch_next). It
 * stops early after a run that was interrupted or could not be started;
 * with stop_on_failure, after one that exited non-zero or timed out; with
 * min_wall > 0, once min_count runs or more took min_wall seconds or more
 * (a timed-out run counting its timeout at least) — never later than
 * that. With read_counters (the spawner must hold the counters:
 * spawner_reads_counters) each run comes with the counter reading taken
 * after its reap (counters_end_with).
 */
struct spawner_batch {
	size_t count, min_count;
	double min_wall;
	bool stop_on_failure, read_counters;
};

/* One run of a batch, as spawner_batch_next reads it. */
struct spawner_batch_run {
	int ret;		/* spawner_measure's for this run (-1: e says
				 * why; the run happened unless
				 * sample.spawn_failed, but its values are not
				 * to be used) */
	struct run_sample sample;
	const uint64_t *reading;	/* its n counter words, NULL when ret
					 * is -1; valid until the next call */
	size_t n;
};

/*
 * The caller pulls a batch's runs, so that it reads each as it comes and
 * nothing calls back into it: spawner_batch_begin sends batch b of o
 * (o->via is ignored; 0, or -1 with a message when the spawner is gone);
 * spawner_batch_next reads the next run into *run (1), or says the batch
 * is over (0) or the spawner gone (-1, e); spawner_batch_stop ends it
 * early: no more runs start (the one under way is interrupted), the
 * replies left are read and dropped (0, or -1 when the spawner is gone).
 * One batch at a time, read to its end (0) or stopped.
 */
int spawner_batch_begin(struct spawner *s, const struct spawn_opts *o,
			const struct spawner_batch *b, struct error *e);
int spawner_batch_next(struct spawner *s, const struct spawn_opts *o,
		       struct spawner_batch_run *run, struct error *e);
int spawner_batch_stop(struct spawner *s, const struct spawn_opts *o,
		       struct error *e);

/* Whether the spawner holds the counters opened on it (a set of more than
 * SPAWNER_MAX_GROUPS groups stays with us: no batch reads it). */
bool spawner_reads_counters(const struct spawner *s);

/* The spawner's pid, the parent of the commands. */
pid_t spawner_pid(const struct spawner *s);

/* The latest rss_floor (bytes) the spawner reported. */
double spawner_rss_floor(const struct spawner *s);

#endif
