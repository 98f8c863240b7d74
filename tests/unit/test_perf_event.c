/*
 * Tests for the perf-event layer (measure/perf_event.h): the one strerror
 * of a failed perf_event_open for every errno it knows (with the sysctls
 * given, so the messages do not depend on this machine's settings, and
 * once with this machine's), the kernel-level fallback of an open (through
 * a stand-in system call), the attributes counting and sampling share,
 * scaling for multiplexing and group reads (fed through a pipe), and real
 * opens: a software event opens and counts here; a hardware event on a
 * machine without a PMU (this project's KVM guests) is reported as
 * unsupported, not as a failure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/perf_event.h"

#define has(msg, s) assert_non_null(strstr((msg), (s)))
#define hasnt(msg, s) assert_null(strstr((msg), (s)))

static const struct pe_sysctls paranoid3 = { "3", "100000" };
static const struct pe_sysctls paranoid2 = { "2", "100000" };
static const struct pe_sysctls paranoid_m1 = { "-1", "100000" };
static const struct pe_sysctls unreadable = { "?", "?" };

static enum pe_result why(int err, const char *event, int cpu, bool sampling,
			  int freq, const struct pe_sysctls *sys,
			  struct error *e)
{
	const struct pe_context ctx = { event, cpu, sampling, freq };

	e->msg[0] = '\0';
	return perf_event_open_strerror_with(err, NULL, &ctx, sys, e);
}

/* ---- the strerror ---- */

static void test_strerror_denied_by_sysctl(void **state)
{
	struct error e;
	int errs[] = { EACCES, EPERM };

	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(why(errs[i], "cycles", -1, false, 0,
				     &paranoid3, &e), PE_DENIED);
		has(e.msg, "perf events are not permitted: the sysctl "
			   "kernel.perf_event_paranoid is 3 and counting a "
			   "program needs 2 or lower (sysctl -w "
			   "kernel.perf_event_paranoid=2), or grant the "
			   "capability CAP_PERFMON");
		assert_int_equal(why(errs[i], "cpu-clock", 0, true, 999,
				     &paranoid3, &e), PE_DENIED);
		has(e.msg, "is 3 and sampling a program needs 2 or lower");
		has(e.msg, "CAP_PERFMON");
		/* an unreadable sysctl: still the sysctl that is named */
		assert_int_equal(why(errs[i], "cpu-clock", 0, true, 999,
				     &unreadable, &e), PE_DENIED);
		has(e.msg, "kernel.perf_event_paranoid is ? and sampling");
	}
}

/* At 2 or lower the sysctl allows it: something else refuses. */
static void test_strerror_denied_by_seccomp(void **state)
{
	const struct pe_sysctls *levels[] = { &paranoid2, &paranoid_m1 };
	struct error e;

	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(why(EPERM, "task-clock", -1, false, 0,
				     levels[i], &e), PE_DENIED);
		has(e.msg, "perf events are not permitted although the sysctl "
			   "kernel.perf_event_paranoid is ");
		has(e.msg, "(2 or lower suffices): a seccomp filter or "
			   "security module forbids them (in a container, "
			   "allow perf_event_open), or grant CAP_PERFMON");
		hasnt(e.msg, "sysctl -w");
	}
}

static void test_strerror_no_perf(void **state)
{
	struct error e;

	assert_int_equal(why(ENOSYS, "cpu-clock", 0, true, 999, &paranoid2,
			     &e), PE_NO_PERF);
	assert_string_equal(e.msg, "no perf support in this kernel "
				   "(perf_event_open is missing)");
	assert_int_equal(why(ENOSYS, "task-clock", -1, false, 0, &paranoid2,
			     &e), PE_NO_PERF);
	has(e.msg, "no perf support in this kernel");
}

static void test_strerror_unsupported(void **state)
{
	int errs[] = { ENOENT, EOPNOTSUPP, ENODEV };
	struct error e;

	for (size_t i = 0; i < 3; i++) {
		for (int sampling = 0; sampling < 2; sampling++) {
			assert_int_equal(why(errs[i], "cycles", 1, sampling,
					     999, &paranoid2, &e),
					 PE_UNSUPPORTED);
			assert_string_equal(e.msg, "event 'cycles' is not "
				"supported on this machine (a virtual machine "
				"often has no hardware counters): try "
				"cpu-clock");
			/* no advice to try what failed */
			assert_int_equal(why(errs[i], "CPU-Clock", 1,
					     sampling, 999, &paranoid2, &e),
					 PE_UNSUPPORTED);
			assert_string_equal(e.msg, "event 'CPU-Clock' is not "
					    "supported on this machine");
		}
	}
	assert_int_equal(perf_event_other_cpu_error("INST_RETIRED:ANY_P", &e),
			 PE_UNSUPPORTED);
	assert_string_equal(e.msg, "event 'INST_RETIRED:ANY_P' is not "
			    "supported on this machine (its CPU has no such "
			    "counter): try cpu-clock");
}

/* A counter the PMU cannot take is unsupported; a sampling event that
 * cannot be opened so is an error (or the frequency is too high). */
static void test_strerror_einval_ebusy_e2big(void **state)
{
	int errs[] = { EINVAL, EBUSY, E2BIG };
	struct error e;

	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(why(errs[i], "r01c2", -1, false, 0,
				     &paranoid2, &e), PE_UNSUPPORTED);
		has(e.msg, "event 'r01c2' is not supported on this machine");
		assert_int_equal(why(errs[i], "r01c2", 2, true, 999,
				     &paranoid2, &e), PE_FAILED);
		has(e.msg, "cannot open perf event 'r01c2' on cpu 2: ");
		has(e.msg, strerror(errs[i]));
	}
	assert_int_equal(why(EINVAL, "cpu-clock", 0, true, 200000, &paranoid2,
			     &e), PE_FAILED);
	assert_string_equal(e.msg, "sampling frequency 200000 is above the "
			    "sysctl kernel.perf_event_max_sample_rate "
			    "(100000)");
	/* at the limit: not the frequency's fault */
	assert_int_equal(why(EINVAL, "cpu-clock", 0, true, 100000, &paranoid2,
			     &e), PE_FAILED);
	has(e.msg, "cannot open perf event 'cpu-clock' on cpu 0");
	/* limit unreadable: no guess */
	assert_int_equal(why(EINVAL, "cpu-clock", 0, true, 200000,
			     &unreadable, &e), PE_FAILED);
	hasnt(e.msg, "max_sample_rate");
}

static void test_strerror_other(void **state)
{
	char want[256];
	struct error e;

	assert_int_equal(why(EMFILE, "task-clock", -1, false, 0, &paranoid2,
			     &e), PE_FAILED);
	snprintf(want, sizeof(want), "cannot open perf event 'task-clock': "
		 "%s", strerror(EMFILE));
	assert_string_equal(e.msg, want);
	assert_int_equal(why(ENOMEM, "cpu-clock", 3, true, 999, &paranoid2,
			     &e), PE_FAILED);
	snprintf(want, sizeof(want), "cannot open perf event 'cpu-clock' on "
		 "cpu 3: %s", strerror(ENOMEM));
	assert_string_equal(e.msg, want);
}

/* perf_event_open_strerror quotes this machine's sysctl. */
static void test_strerror_reads_sysctl(void **state)
{
	const struct pe_context ctx = { "cycles", -1, false, 0 };
	char level[32], want[64];
	struct error e;

	perf_event_sysctl("perf_event_paranoid", level, sizeof(level));
	assert_int_equal(perf_event_open_strerror(EACCES, NULL, &ctx, &e),
			 PE_DENIED);
	snprintf(want, sizeof(want), "kernel.perf_event_paranoid is %s ",
		 level);
	has(e.msg, want);
	perf_event_sysctl("no_such_sysctl_here", level, sizeof(level));
	assert_string_equal(level, "?");
}

/* ---- opening: the kernel-level fallback ---- */

struct fake {
	int refuse_kernel;	/* errno for an attr counting kernel level */
	int refuse_all;		/* errno for any attr, 0: open */
	int calls, with_kernel;
	pid_t pid;
	int cpu, group_fd;
};

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, void *arg)
{
	struct fake *f = arg;

	f->calls++;
	f->with_kernel += !attr->exclude_kernel;
	f->pid = pid;
	f->cpu = cpu;
	f->group_fd = group_fd;
	if (f->refuse_all || (!attr->exclude_kernel && f->refuse_kernel)) {
		errno = f->refuse_all ? f->refuse_all : f->refuse_kernel;
		return -1;
	}
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void test_open_kernel_fallback(void **state)
{
	struct perf_event_attr a;
	struct fake f = { EACCES, 0, 0, 0, 0, 0, 0 };
	int fd;

	memset(&a, 0, sizeof(a));
	fd = perf_event_open_attr(fake_open, &f, &a, 1234, 5, 7);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(f.calls, 2);
	assert_int_equal(f.with_kernel, 1);
	assert_true(a.exclude_kernel && a.exclude_hv);
	assert_int_equal(f.pid, 1234);
	assert_int_equal(f.cpu, 5);
	assert_int_equal(f.group_fd, 7);

	/* EPERM too; asked for user level from the start: one call */
	f = (struct fake){ EPERM, 0, 0, 0, 0, 0, 0 };
	fd = perf_event_open_attr(fake_open, &f, &a, 0, -1, -1);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(f.calls, 1);

	/* refused at every level: -errno after two tries */
	memset(&a, 0, sizeof(a));
	f = (struct fake){ 0, EACCES, 0, 0, 0, 0, 0 };
	assert_int_equal(perf_event_open_attr(fake_open, &f, &a, 0, -1, -1),
			 -EACCES);
	assert_int_equal(f.calls, 2);

	/* other errors are not retried */
	memset(&a, 0, sizeof(a));
	f = (struct fake){ 0, ENOENT, 0, 0, 0, 0, 0 };
	assert_int_equal(perf_event_open_attr(fake_open, &f, &a, 0, -1, -1),
			 -ENOENT);
	assert_int_equal(f.calls, 1);
	assert_false(a.exclude_kernel);
}

static void test_attrs(void **state)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	perf_event_attr_counting(&a);
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(a.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_GROUP);
	assert_true(a.disabled && a.inherit && a.enable_on_exec);
	assert_false(a.freq || a.sample_id_all);

	memset(&a, 0, sizeof(a));
	perf_event_attr_sampling(&a, 997);
	assert_int_equal(a.size, sizeof(a));
	assert_true(a.disabled && a.inherit && a.enable_on_exec);
	assert_true(a.freq);
	assert_int_equal(a.sample_freq, 997);
	assert_true(a.mmap && a.mmap2 && a.comm && a.comm_exec && a.task);
	assert_true(a.sample_id_all && a.use_clockid);
	assert_int_equal(a.clockid, CLOCK_MONOTONIC);
	assert_int_equal(a.read_format, 0);
}

/* ---- scaling and group reads ---- */

static void test_scale(void **state)
{
	struct pe_scaled v;

	v = perf_event_scale(1000, 100, 100);	/* ran all the time */
	assert_true(v.counted);
	assert_false(v.multiplexed);
	assert_true(v.value == 1000.0);

	v = perf_event_scale(1000, 200, 100);	/* half the time: x2 */
	assert_true(v.counted);
	assert_true(v.multiplexed);
	assert_true(v.value == 2000.0);

	v = perf_event_scale(750, 300, 200);	/* 750 * 3/2 */
	assert_true(v.multiplexed);
	assert_true(v.value == 1125.0);

	v = perf_event_scale(0, 500, 0);	/* enabled, never ran */
	assert_false(v.counted);
	assert_false(v.multiplexed);
	assert_true(v.value == 0.0);

	v = perf_event_scale(0, 0, 0);		/* never enabled */
	assert_false(v.counted);

	v = perf_event_scale(0, 40, 40);	/* ran, counted nothing */
	assert_true(v.counted);
	assert_true(v.value == 0.0);
}

/* Two reads of a group of three: nr, enabled, running, values. */
static void test_group_delta(void **state)
{
	const uint64_t before[] = { 3, 1000, 600, 50, 7, 1u << 20 };
	const uint64_t after[] = { 3, 1400, 800, 250, 7, (1u << 20) + 30 };
	/* the times did not move: nothing ran between the reads */
	const uint64_t idle[] = { 3, 1000, 600, 50, 7, 1u << 20 };
	struct pe_scaled v;

	/* 200 counted in 200 of 400 ns enabled: 400, multiplexed */
	v = perf_event_group_delta(after, before, 0);
	assert_true(v.counted && v.multiplexed);
	assert_true(v.value == 400.0);
	v = perf_event_group_delta(after, before, 1);
	assert_true(v.counted && v.multiplexed);
	assert_true(v.value == 0.0);
	v = perf_event_group_delta(after, before, 2);
	assert_true(v.value == 60.0);

	v = perf_event_group_delta(idle, before, 0);
	assert_false(v.counted);
	assert_true(v.value == 0.0);

	/* a group that ran the whole time is not scaled */
	const uint64_t full[] = { 3, 1400, 1000, 250, 7, 1u << 20 };

	v = perf_event_group_delta(full, before, 0);
	assert_true(v.counted);
	assert_false(v.multiplexed);
	assert_true(v.value == 200.0);
}

/* A pipe plays the group leader's descriptor. */
static enum pe_result read_fed(const uint64_t *words, size_t n, size_t nr,
			       uint64_t *buf, struct error *e)
{
	int p[2];
	enum pe_result r;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], words, n * sizeof(*words)),
			 (ssize_t)(n * sizeof(*words)));
	close(p[1]);
	r = perf_event_read_group(p[0], buf, nr, e);
	close(p[0]);
	return r;
}

static void test_read_group(void **state)
{
	const uint64_t two[] = { 2, 500, 250, 11, 22 };
	uint64_t buf[8] = { 0 };
	struct error e;
	int bad = open("/dev/null", O_WRONLY | O_CLOEXEC);

	assert_int_equal(read_fed(two, 5, 2, buf, &e), PE_OK);
	assert_memory_equal(buf, two, sizeof(two));

	/* fewer words than the group has */
	e.msg[0] = '\0';
	assert_int_equal(read_fed(two, 4, 2, buf, &e), PE_FAILED);
	has(e.msg, "cannot read perf counters: short read of 32 bytes");
	/* a group of another size */
	assert_int_equal(read_fed(two, 5, 1, buf, &e), PE_FAILED);
	has(e.msg, "short read");
	/* read() fails */
	assert_true(bad >= 0);
	assert_int_equal(perf_event_read_group(bad, buf, 2, &e), PE_FAILED);
	has(e.msg, "cannot read perf counters: ");
	close(bad);
}

/* ---- real opens on this machine ---- */

/* Spin until this thread has had 20 ms of CPU (not of wall time: the
 * machine may be loaded). */
static void spin(void)
{
	struct timespec t0, t;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
		 (t.tv_nsec - t0.tv_nsec) < 20000000L);
	(void)x;	/* only written: the loop's work (clang 14 says so) */
}

/* Open ev on ourselves, counting now (not from an exec). */
static int open_now(const char *ev, int group_fd, struct perf_event_attr *a,
		    struct error *e)
{
	memset(a, 0, sizeof(*a));
	assert_int_equal(perf_event_resolve(ev, a, e), PE_OK);
	perf_event_attr_counting(a);
	a->disabled = 0;
	a->inherit = 0;
	a->enable_on_exec = 0;
	return perf_event_open_attr(NULL, NULL, a, 0, -1, group_fd);
}

/* cpu-clock and task-clock, one group: both count our own spinning. */
static void test_open_software(void **state)
{
	struct perf_event_attr a;
	struct error e;
	uint64_t buf[PE_READ_HEADER + 2];
	int lead, member;
	struct pe_scaled tc, cc;
	const uint64_t zero[PE_READ_HEADER + 2] = { 2, 0, 0, 0, 0 };

	lead = open_now("task-clock", -1, &a, &e);
	if (lead < 0) {
		const struct pe_context ctx = { "task-clock", -1, false, 0 };
		enum pe_result r = perf_event_open_strerror(-lead, &a, &ctx,
							    &e);

		/* only an environment that refuses perf events may skip */
		assert_true(r == PE_DENIED || r == PE_NO_PERF);
		print_message("skipped: %s\n", e.msg);
		skip();
	}
	member = open_now("cpu-clock", lead, &a, &e);
	assert_true(member >= 0);
	spin();
	assert_int_equal(perf_event_read_group(lead, buf, 2, &e), PE_OK);
	assert_int_equal(buf[0], 2);
	tc = perf_event_group_delta(buf, zero, 0);
	cc = perf_event_group_delta(buf, zero, 1);
	/* software events are always scheduled: never multiplexed */
	assert_true(tc.counted && !tc.multiplexed);
	assert_true(cc.counted && !cc.multiplexed);
	/* at least the 20 ms of CPU spent spinning (ns), a margin below */
	print_message("task-clock %.0f ns, cpu-clock %.0f ns\n", tc.value,
		      cc.value);
	assert_true(tc.value >= 15e6);
	/* cpu-clock is brought up to date only at a tick or a switch (seen:
	 * 0 and 16 to 20 ms here), but never counts more than the time */
	assert_true(cc.value >= 0 && cc.value <= 2 * tc.value);
	close(member);
	close(lead);
}

/*
 * A hardware event: counts where there is a PMU; where there is none (a
 * KVM guest) the failure is classed unsupported, with the pointer to
 * cpu-clock — for counting and for sampling — never as an error.
 */
static void test_hardware_event(void **state)
{
	const char *names[] = { "cycles", "instructions", "branch-misses" };
	struct perf_event_attr a;
	struct error e;

	for (size_t i = 0; i < 3; i++) {
		for (int sampling = 0; sampling < 2; sampling++) {
			const struct pe_context ctx = { names[i], -1,
							sampling != 0, 99 };
			int fd;

			memset(&a, 0, sizeof(a));
			assert_int_equal(perf_event_resolve(names[i], &a, &e),
					 PE_OK);
			if (sampling)
				perf_event_attr_sampling(&a, 99);
			else
				perf_event_attr_counting(&a);
			fd = perf_event_open_attr(NULL, NULL, &a, 0, -1, -1);
			print_message("%s (%s): %s\n", names[i],
				      sampling ? "sampling" : "counting",
				      fd >= 0 ? "opens" : strerror(-fd));
			if (fd >= 0) {
				close(fd);
				continue;
			}
			if (fd == -EACCES || fd == -EPERM || fd == -ENOSYS)
				skip();	/* perf refused as a whole */
			assert_int_equal(perf_event_open_strerror(-fd, &a,
								  &ctx, &e),
					 PE_UNSUPPORTED);
			has(e.msg, "is not supported on this machine");
			has(e.msg, "try cpu-clock");
		}
	}
}

/* A held descriptor: a perf event, close-on-exec (a program started
 * later must not get it). */
static void check_held(int fd)
{
	char link[64], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "anon_inode:[perf_event]");
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

/* The hooks' hold: a perf event descriptor on this process, counting
 * nothing. */
static void test_hold_hooks(void **state)
{
	int fd = perf_event_hold_hooks(false);

	(void)state;
	if (fd < 0) {
		/* only an environment that refuses perf events may skip */
		assert_true(errno == EACCES || errno == EPERM ||
			    errno == ENOSYS || errno == ENOENT);
		skip();
	}
	check_held(fd);
}

/* Held by a hardware event: exactly where a cycles counter opens (a
 * machine without one holds nothing, and pays no wait for it). */
static void test_hold_hooks_hardware(void **state)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(a),
		.config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	int cycles = perf_event_open_attr(NULL, NULL, &a, 0, -1, -1);
	int fd = perf_event_hold_hooks(true);
	int err = errno;

	(void)state;
	print_message("cycles: %s, hold: %s\n",
		      cycles >= 0 ? "opens" : strerror(-cycles),
		      fd >= 0 ? "held" : strerror(err));
	assert_int_equal(fd >= 0, cycles >= 0);
	if (cycles >= 0) {
		close(cycles);
		check_held(fd);
	} else {
		assert_int_equal(err, -cycles);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strerror_denied_by_sysctl),
		cmocka_unit_test(test_strerror_denied_by_seccomp),
		cmocka_unit_test(test_strerror_no_perf),
		cmocka_unit_test(test_strerror_unsupported),
		cmocka_unit_test(test_strerror_einval_ebusy_e2big),
		cmocka_unit_test(test_strerror_other),
		cmocka_unit_test(test_strerror_reads_sysctl),
		cmocka_unit_test(test_open_kernel_fallback),
		cmocka_unit_test(test_attrs),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_group_delta),
		cmocka_unit_test(test_read_group),
		cmocka_unit_test(test_open_software),
		cmocka_unit_test(test_hardware_event),
		cmocka_unit_test(test_hold_hooks),
		cmocka_unit_test(test_hold_hooks_hardware),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
