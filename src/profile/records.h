/*
 * Parsing the perf records of the sampler's events (the sample_type
 * sampler.c asks for) into the sampler_callbacks, internal to profile/.
 */
#ifndef YS_PROFILE_RECORDS_H
#define YS_PROFILE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/famfilter.h"
#include "profile/sampler.h"

/* The most callchain entries a record can hold: the size of ips. */
#define RECORDS_MAX_IPS (65536 / 8)

struct records {
	bool dwarf;			/* dwarf-mode sample layout */
	uint32_t chain_max;		/* the kernel's most callchain entries
					 * (sample_max_stack): a chain this
					 * long was cut at its root side */
	struct sampler_callbacks cb;
	struct sampler_stats *stats;	/* samples and lost counted here */
	uint64_t *ips;			/* RECORDS_MAX_IPS, reused */
	uint32_t child;			/* the first process; 0: none */
	/* with page faults or switches: every record carries PERF_SAMPLE_IDENTIFIER
	 * (first in a sample, last in the trailer); samples of the events
	 * whose ids are fault_ids are page faults */
	bool identifier;
	const uint64_t *fault_ids;
	size_t nfault_ids;
	const uint64_t *off_ids;	/* ... and these, switches out */
	size_t noff_ids;
	const uint64_t *wake_ids;	/* ... and these, sched_wakeup
					 * (identifier, tid, time, raw) */
	size_t nwake_ids;
	uint32_t wake_pid_offset;	/* the wakee's pid (4 bytes) in the
					 * raw record */
	/* sampler_attach: the records of a task two of our events follow
	 * kept from one of them (famfilter.h; needs identifier); NULL: all */
	struct famfilter *fam;
	uint64_t exec_time, exit_time;	/* the child's exec, its last thread's
					 * exit; 0 until seen */
};

/* Hand one whole record to the callbacks of rp (a struct records); a
 * record too short for what it claims is dropped. A ring_record_fn. */
void records_dispatch(void *rp, const uint8_t *rec, size_t size);

#endif
