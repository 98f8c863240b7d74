/*
 * `load --push`: the live metrics of a load test pushed to a Prometheus
 * Pushgateway every --push-interval from the engine's live view
 * (load_config.live, called from the control thread, never from a load
 * thread), and once more with the final figures (docs/export.md).
 */
#ifndef YS_ENGINE_LOAD_PUSH_H
#define YS_ENGINE_LOAD_PUSH_H

#include <stdbool.h>
#include <stdint.h>

#include "load/load.h"
#include "util/error.h"

struct load_push {
	const char *url;
	char *benchmark;
	const char *machine;
	char segment[48];		/* "I/N" of --segment, or "" */
	struct hdr *prev, *prev_unc;	/* cumulative at the last push */
	uint64_t prev_ok, prev_requests;
	double prev_elapsed;
	unsigned pushes;		/* pushes that succeeded */
	bool warned;			/* a live push failed (said once) */
};

/* segment: "I/N" of --segment, NULL without. */
void load_push_init(struct load_push *p, const char *url,
		    const char *benchmark, const char *machine,
		    const char *segment);
void load_push_free(struct load_push *p);
/* load_config.live: push s; a failure is a warning on stderr (once). */
void load_push_live(void *arg, const struct load_stats *s);
/* The last push, of the run's final figures: 0, or -1 with a message. */
int load_push_final(struct load_push *p, const struct load_stats *s,
		    struct error *e);

#endif
