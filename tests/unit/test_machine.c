/* Unit tests of src/measure/machine: the fingerprint and the git state,
 * the latter in throwaway repositories made by the real git. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/machine.h"
#include "util/strutil.h"

static void test_machine(void **state)
{
	struct machine m;
	char host[HOST_NAME_MAX + 1];

	machine_detect(&m);
	assert_int_equal(m.cores, (int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(m.memory_bytes >= 64ULL << 20);
	assert_non_null(m.os);
	assert_true(!strncmp(m.os, "Linux ", 6));
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	assert_string_equal(m.hostname, host);
	free(m.hostname);
	free(m.os);
	free(m.cpu);
	free(m.governor);
}

/* The CPU's name and the hypervisor bit machine_detect gives, against
 * what the kernel shows in /proc/cpuinfo (the first "model name", the
 * "hypervisor" flag), read here independently: the kernel's, where a
 * program's cpuid says otherwise (a PVM guest: machine.c). */
static void test_cpu_as_cpuinfo(void **state)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[8192], *name = NULL;
	bool hyper = false, flags = false;
	struct machine m;

	(void)state;
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) && !(name && flags)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 2;
		v[strcspn(v, "\n")] = '\0';
		if (!name && !strncmp(line, "model name", 10))
			name = strdup(v);
		if (!flags && !strncmp(line, "flags", 5)) {
			flags = true;
			hyper = strstr(v, "hypervisor") != NULL;
		}
	}
	fclose(fp);
	machine_detect(&m);
	assert_non_null(name);
	assert_string_equal(m.cpu, name);
	if (access("/sys/hypervisor/type", F_OK))
		assert_int_equal(m.virtualized, hyper);
	else
		assert_true(m.virtualized);
	free(name);
	free(m.hostname);
	free(m.os);
	free(m.cpu);
	free(m.governor);
}

/* The kernel's trimming of a brand string: leading spaces, trailing
 * white space, the first NUL ends it; all blank is nothing. */
static void test_brand_name(void **state)
{
	static const struct { const char *raw, *want; } cases[] = {
		{ "       Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz" },
		{ "AMD EPYC 7B13 64-Core Processor                ", "AMD EPYC 7B13 64-Core Processor" },
		{ "QEMU Virtual CPU version 2.5+", "QEMU Virtual CPU version 2.5+" },
		{ "  two  spaces\tinside \t ", "two  spaces\tinside" },
		{ "\tleading tab kept", "\tleading tab kept" },
		{ "                                                ", NULL },
		{ "", NULL },
	};
	char raw[48];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got;

		memset(raw, 0, sizeof(raw));
		memcpy(raw, cases[i].raw, strlen(cases[i].raw) < 48
		       ? strlen(cases[i].raw) : 48);
		got = machine_brand_name(raw);
		if (!cases[i].want) {
			assert_null(got);
			continue;
		}
		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
	/* 48 bytes and no NUL: all 48 kept */
	memset(raw, 'x', sizeof(raw));
	{
		char *got = machine_brand_name(raw);

		assert_int_equal(strlen(got), 48);
		free(got);
	}
}

/* machine_read_cpuinfo on files made here: the first block's model name
 * and hypervisor flag, never a later CPU's; none on an ARM kernel's. */
static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void test_read_cpuinfo(void **state)
{
	static const struct {
		const char *text, *cpu;
		bool hyper;
	} cases[] = {
		{ "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
		  "model name\t: AMD EPYC\nflags\t\t: fpu vme hypervisor "
		  "lahf_lm\n\nprocessor\t: 1\nmodel name\t: Other\n"
		  "flags\t\t: fpu\n", "AMD EPYC", true },
		/* a name with spaces and an @, no hypervisor; a later
		 * block's flag does not count */
		{ "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) CPU "
		  "E5-2690 v4 @ 2.60GHz\nflags\t\t: fpu sse2\n\n"
		  "processor\t: 1\nflags\t\t: fpu hypervisor\n",
		  "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", false },
		/* "hypervisor" only as part of another word */
		{ "model name\t: X\nflags\t\t: fpu nothypervisor\n", "X",
		  false },
		/* arm64: no model name */
		{ "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n"
		  "CPU part\t: 0xd0c\n\n", NULL, false },
		{ "", NULL, false },
	};
	char dir[] = "/tmp/ys-cpuinfo-XXXXXX", path[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cpuinfo", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *cpu = (char *)"unset";
		bool hyper = !cases[i].hyper;

		write_file(path, cases[i].text);
		machine_read_cpuinfo(path, &cpu, &hyper);
		if (cases[i].cpu)
			assert_string_equal(cpu, cases[i].cpu);
		else
			assert_null(cpu);
		assert_int_equal(hyper, cases[i].hyper);
		free(cpu);
	}
	unlink(path);
	{
		char *cpu = (char *)"unset";
		bool hyper = true;

		/* no file: nothing, nothing claimed */
		machine_read_cpuinfo(path, &cpu, &hyper);
		assert_null(cpu);
		assert_false(hyper);
	}
	rmdir(dir);
}

static void test_timestamp(void **state)
{
	char *t = utc_timestamp();

	/* 2026-11-22T10:00:00Z */
	assert_int_equal(strlen(t), 20);
	assert_int_equal(t[4], '-');
	assert_int_equal(t[10], 'T');
	assert_int_equal(t[19], 'Z');
	free(t);
}

static char *sh_out(const char *cmd)
{
	char buf[256] = "";
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = '\0';
	pclose(p);
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

static void free_git(struct git_info *g)
{
	free(g->commit);
	free(g->branch);
}

static void test_git(void **state)
{
	char dir[] = "/tmp/ys-git-XXXXXX", old[PATH_MAX];
	struct git_info g;
	char *head;

	assert_non_null(getcwd(old, sizeof(old)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);

	/* Outside a repository: nothing. */
	git_detect(&g);
	assert_null(g.commit);
	assert_null(g.branch);

	assert_int_equal(system("git init -q -b trunk . && echo a > f && "
		"git add f && git -c user.name=t -c user.email=t@t "
		"commit -qm one"), 0);
	head = sh_out("git rev-parse HEAD");
	git_detect(&g);
	assert_string_equal(g.commit, head);
	assert_string_equal(g.branch, "trunk");
	assert_false(g.dirty);
	free_git(&g);

	/* A changed tracked file makes it dirty; packed refs still resolve. */
	assert_int_equal(system("echo b > f && git pack-refs --all"), 0);
	git_detect(&g);
	assert_string_equal(g.commit, head);
	assert_true(g.dirty);
	free_git(&g);

	/* From a subdirectory, and with a detached HEAD: no branch. */
	assert_int_equal(system("git checkout -q -- f && git checkout -q "
				"--detach && mkdir -p sub"), 0);
	assert_int_equal(chdir("sub"), 0);
	git_detect(&g);
	assert_string_equal(g.commit, head);
	assert_null(g.branch);
	assert_false(g.dirty);
	free_git(&g);

	assert_int_equal(chdir(old), 0);
	free(head);
	{
		char *rm = xasprintf("rm -rf '%s'", dir);

		assert_int_equal(system(rm), 0);
		free(rm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_cpu_as_cpuinfo),
		cmocka_unit_test(test_brand_name),
		cmocka_unit_test(test_read_cpuinfo),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_git),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
