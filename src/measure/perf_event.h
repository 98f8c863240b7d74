/*
 * The perf-event layer: the one place that calls perf_event_open, sets up
 * the attributes counting (counters.c) and sampling (profile/sampler.c)
 * share, resolves event names (perf's and libpfm4's, libpfm4 loaded with
 * dlopen on first need), reads counter groups and scales them for
 * multiplexing, and turns a failed open into the message that says what to
 * change (perf_event_open_strerror, after perf's evsel__open_strerror).
 *
 * Prefix perf_event_ for functions, pe_ for types and constants.
 */
#ifndef YS_MEASURE_PERF_EVENT_H
#define YS_MEASURE_PERF_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

/* What a call of this layer came to. */
enum pe_result {
	PE_OK = 0,
	PE_FAILED = -1,		/* a system error (message says which) */
	PE_UNKNOWN_EVENT = -2,	/* a name neither perf nor libpfm4 knows */
	PE_DENIED = -3,		/* not permitted: the sysctl, a capability,
				 * a seccomp filter or security module */
	PE_NO_PERF = -4,	/* the kernel has no perf_event_open */
	PE_UNSUPPORTED = -5,	/* this machine cannot count this event */
};

/* ---- opening ---- */

/*
 * perf_event_open(attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC): a
 * descriptor, or -1 with errno set. arg is unused (it makes the function a
 * pe_open_fn).
 */
int perf_event_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, void *arg);

/*
 * Keep the kernel's perf scheduler hooks on while this process lives: a
 * disabled software event (PERF_COUNT_SW_DUMMY, user level, counting
 * nothing) on the calling process, never closed (close-on-exec). The
 * first per-task event opened while the hooks are off waits for an RCU
 * grace period (kernel/events/core.c, account_event: 10-20 ms), and the
 * kernel turns them off a second after the last such event closes,
 * whenever none is open at that moment. In a loop of short invocations
 * (hyperfine's, a script's) that moment falls between a program's exit
 * and the next one's counters about half the time; held from early on,
 * only in the gaps between invocations. hardware: hold them with a
 * disabled cycles event instead, which a machine without hardware
 * counters refuses before the wait (for the default counters, which open
 * nothing there: counters.c). Returns the descriptor, or -1 (nothing
 * held).
 */
int perf_event_hold_hooks(bool hardware);

/* A stand-in for perf_event_sys_open (tests, an emulated PMU). */
typedef int pe_open_fn(struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group_fd, void *arg);

/*
 * Open attr with fn (NULL: perf_event_sys_open), counting or sampling
 * kernel level too unless attr excludes it; when that is refused (EACCES,
 * EPERM), once more for user level only, leaving exclude_kernel and
 * exclude_hv set in *attr so the caller can ask that way from then on.
 * Returns the descriptor or -errno.
 */
int perf_event_open_attr(pe_open_fn *fn, void *arg,
			 struct perf_event_attr *attr, pid_t pid, int cpu,
			 int group_fd);

/*
 * Attributes shared by every event opened on a process to be followed from
 * its exec on: size, disabled, inherit, enable_on_exec — counting adds a
 * group read with both times, sampling a frequency, a time in every record
 * (CLOCK_MONOTONIC) and the side-band records (mmap2, comm, task).
 */
void perf_event_attr_counting(struct perf_event_attr *a);
void perf_event_attr_sampling(struct perf_event_attr *a, int freq);

/* ---- why an open failed ---- */

/* What was being opened, for the message. */
struct pe_context {
	const char *event;	/* its name as the user gave it */
	int cpu;		/* -1: any */
	bool sampling;		/* sampling (record), else counting (run) */
	int freq;		/* sampling frequency asked for, 0 if none */
};

/* The sysctls a message quotes ("?" when unreadable). */
struct pe_sysctls {
	char paranoid[32];		/* kernel.perf_event_paranoid */
	char max_sample_rate[32];	/* kernel.perf_event_max_sample_rate */
};

/* Read /proc/sys/kernel/NAME into buf, "?" when unreadable. */
void perf_event_sysctl(const char *name, char *buf, size_t len);

/*
 * The one strerror of perf_event_open: sets the message for a failure with
 * errno err while opening attr in ctx and returns its class —
 *   EACCES, EPERM: PE_DENIED, naming the sysctl kernel.perf_event_paranoid
 *     and the capability CAP_PERFMON (above 2) or, at 2 or lower where the
 *     sysctl allows it, a seccomp filter or security module (container);
 *   ENOSYS: PE_NO_PERF ("no perf support in this kernel");
 *   ENOENT, EOPNOTSUPP, ENODEV: PE_UNSUPPORTED ("event '...' is not
 *     supported on this machine ... try cpu-clock"), and so are EINVAL,
 *     EBUSY and E2BIG when counting (a counter this PMU cannot take);
 *   EINVAL when sampling above kernel.perf_event_max_sample_rate:
 *     PE_FAILED naming that sysctl;
 *   anything else: PE_FAILED, "cannot open perf event '...'[ on cpu N]".
 * perf_event_open_strerror reads the sysctls; _with takes them.
 */
enum pe_result perf_event_open_strerror(int err,
					const struct perf_event_attr *attr,
					const struct pe_context *ctx,
					struct error *e);
enum pe_result perf_event_open_strerror_with(int err,
					     const struct perf_event_attr *attr,
					     const struct pe_context *ctx,
					     const struct pe_sysctls *sys,
					     struct error *e);

/* The message for an event libpfm4 knows only for other CPUs. */
enum pe_result perf_event_other_cpu_error(const char *event,
					  struct error *e);

/* ---- event names ---- */

/*
 * Fill *attr (type, config, config1, config2, exclude bits) for an event
 * name known to perf ("cycles", "L1-dcache-load-misses", "r01c2") or to
 * libpfm4 ("INST_RETIRED:ANY_P"). Returns PE_OK, PE_UNSUPPORTED when
 * libpfm4 knows the event only for a CPU other than this one (no message),
 * or PE_UNKNOWN_EVENT for a name nobody knows (message names it).
 */
enum pe_result perf_event_resolve(const char *name,
				  struct perf_event_attr *attr,
				  struct error *e);

/* Most floating point events one CPU adds up (Intel: eight umasks). */
#define PE_MAX_FP_EVENTS 8

/* One floating point arithmetic event and how many flops one count is. */
struct pe_fp_event {
	const char *name;	/* any name perf_event_resolve accepts */
	int lanes;
};

/*
 * Find this CPU's floating point arithmetic events through libpfm4. Fills
 * up to max attrs and lanes and returns how many; 0 when the CPU has none
 * that libpfm4 knows.
 */
size_t perf_event_fp_discover(struct perf_event_attr *attrs, int *lanes,
			      size_t max);

/* ---- memory traffic (perf_dram.c) ---- */

/* Most memory-controller events one machine adds up (sockets x channels
 * x read and write). */
#define PE_MAX_DRAM_EVENTS 32

/* One memory-controller event: an uncore PMU's, counted system-wide on
 * one CPU (of its socket or die). */
struct pe_dram_event {
	struct perf_event_attr attr;	/* type and config* */
	int cpu;
	int bytes;			/* per count: 64 for a CAS command */
	char name[96];			/* "uncore_imc_0/cas_count_read/" */
};

/*
 * Find this machine's memory-controller read and write events in sysfs
 * (sysfs NULL: /sys), as perf does: Intel's uncore_imc* PMUs, AMD's
 * amd_umc_* (perf_dram.c lists them). Fills up to max events and returns
 * how many; 0 when there is no such PMU (a VM, most laptops' kernels).
 * Their counts are system-wide: every process's traffic, not one
 * command's.
 */
size_t perf_event_dram_discover(const char *sysfs, struct pe_dram_event *out,
				size_t max);
/* Attributes of a system-wide counting event (pid -1, one CPU): enabled
 * at once, not inherited, no exclude bits, a group read with times. */
void perf_event_attr_system_wide(struct perf_event_attr *a);

/* ---- reading groups ---- */

/* A group read (PERF_FORMAT_GROUP with both times) is nr, time_enabled,
 * time_running, then value[nr]. */
#define PE_READ_HEADER 3

/* One counter's change over a run. */
struct pe_scaled {
	double value;		/* count scaled by enabled / running */
	bool multiplexed;	/* running < enabled */
	bool counted;		/* running > 0; value 0 otherwise */
};

/* count scaled for multiplexing by enabled / running. */
struct pe_scaled perf_event_scale(uint64_t count, uint64_t enabled,
				  uint64_t running);

/*
 * The change of value[slot] between two reads of one group, before and
 * after, scaled by the change of its times. The counts and times only grow
 * (a child's counts fold into the parent's), so unsigned differences.
 */
struct pe_scaled perf_event_group_delta(const uint64_t *after,
					const uint64_t *before, size_t slot);

/*
 * One read() of the group led by fd, nr events, into buf (PE_READ_HEADER
 * + nr words). Returns PE_OK, or PE_FAILED for an error or a read whose
 * size or nr is not the group's.
 */
enum pe_result perf_event_read_group(int fd, uint64_t *buf, size_t nr,
				     struct error *e);

#endif
