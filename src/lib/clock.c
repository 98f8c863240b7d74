/*
 * The clock of the timed regions: CLOCK_MONOTONIC (the vDSO, no system
 * call) by default; the TSC read with rdtscp on request, only where it is
 * invariant (CPUID leaf 0x80000007, EDX bit 8: a constant rate across
 * P-, C- and T-states), calibrated against CLOCK_MONOTONIC.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/lib_internal.h"
#include "stats/stats.h"
#include "util/zonebuf.h"

struct lib_clock lib_clock = { LIB_CLOCK_MONOTONIC, 1e-9, 0, false };

static bool lib_tsc_invariant(void)
{
	return zb_tsc_invariant();
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Seconds per TSC tick: five windows of 10 ms, the median. */
static double tsc_calibrate(void)
{
	double r[5];

	for (int i = 0; i < 5; i++) {
		double s0 = mono_s(), s1;
		uint64_t t0 = lib_now(), t1;

		do {
			s1 = mono_s();
		} while (s1 - s0 < 0.01);
		t1 = lib_now();
		r[i] = (s1 - s0) / (double)(t1 - t0);
	}
	stats_sort(r, 5);
	return r[2];
}

/* The median of 101 steps between two readings that differ. */
static double resolution(void)
{
	double d[101];

	for (int i = 0; i < 101; i++) {
		uint64_t t0 = lib_now(), t1;

		do {
			t1 = lib_now();
		} while (t1 == t0);
		d[i] = (double)(t1 - t0) * lib_clock.tick;
	}
	stats_sort(d, 101);
	return d[50];
}

int lib_clock_setup(bool tsc, struct error *e)
{
	lib_clock.tsc_invariant = lib_tsc_invariant();
	lib_clock.kind = LIB_CLOCK_MONOTONIC;
	lib_clock.tick = 1e-9;
	if (tsc) {
		if (!lib_clock.tsc_invariant)
			return error_set(e, "--clock tsc: this CPU's TSC is "
					 "not invariant (CPUID 0x80000007 "
					 "EDX bit 8): its rate changes with "
					 "the frequency; use --clock "
					 "monotonic");
		lib_clock.kind = LIB_CLOCK_TSC;
		lib_clock.tick = tsc_calibrate();
	}
	lib_clock.resolution = resolution();
	return 0;
}
