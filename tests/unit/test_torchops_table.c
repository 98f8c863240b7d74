/*
 * Unit tests of the operator table (profile/torchops_table.c,
 * torchops.h), a library's own names of its `at::_ops` structs:
 * - a string table of the forms torch 1.13's libtorch_cpu.so holds
 *   (schemas with and without "aten::", one merged into another's tail,
 *   padding, strings that only look like schemas), with struct names
 *   whose splits the rule gets wrong or two schemas make ambiguous,
 *   checked name by name;
 * - generated string tables, shuffled, against a brute-force reading of
 *   the same strings (every whole string and every tail tried for every
 *   struct);
 * - the real library (Debian's python3-torch): the name of every
 *   exported `at::_ops::<struct>::call`, from the table read through
 *   the symbolizer, equals the name tests/data/torchops-strings.py
 *   computes the other way round with nm and strings, and the name
 *   torch gives it at run time (its schemas); how many the rule
 *   alone gets wrong, and what reading the table costs, printed;
 * - hostile files: this test's own executable holds a schema; read
 *   whole, the table knows it; cut short anywhere and with its section
 *   headers damaged, it is read without a fault (the sanitizer build
 *   checks every access), and a .rodata the file does not hold gives no
 *   table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile/symbolize.h"
#include "profile/torchops.h"
#include "stats/stats.h"
#include "util/strutil.h"

/* The operator frame of struct st by t, into buf ("" for none); whether
 * t named it in *exact. */
static const char *named_by(const struct torchops_table *t, const char *st,
			    char *buf, size_t cap, bool *exact)
{
	char fn[512];

	snprintf(fn, sizeof(fn), "at::_ops::%.400s::call(at::Tensor const&)",
		 st);
	if (!torchops_frame_name(fn, t, buf, cap, exact))
		buf[0] = '\0';
	return buf;
}

static const char *named(const struct torchops_table *t, const char *st,
			 char *buf, size_t cap)
{
	bool exact;

	return named_by(t, st, buf, cap, &exact);
}

/* ---- a string table of the forms found ---- */

#define S(x) x "\0"
static const char synthetic[] =
	S("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
	"\0\0\0\0\0"	/* padding, as between aligned strings */
	S("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) "
	  "out) -> Tensor(a!)")
	S("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> "
	  "Tensor(a!)")
	S("aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False,"
	  " *, ScalarType? dtype=None) -> Tensor")
	S("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
	  "Tensor? running_mean, Tensor? running_var, bool training, float "
	  "momentum, float eps) -> (Tensor, Tensor, Tensor)")
	S("conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
	  "int[2] stride=1, str padding=\"valid\", int[2] dilation=1, int "
	  "groups=1) -> Tensor")
	S("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool "
	  "descending=False) -> (Tensor values, Tensor indices)")
	/* erf.out(...) merged into its tail by the linker */
	S("special_erf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
	S("_cast_Byte(Tensor self, bool non_blocking=False) -> Tensor")
	S("unique_dim(Tensor self, int dim, bool sorted=True) -> (Tensor, "
	  "Tensor)")
	/* two schemas split amb_x_y differently */
	S("amb_x.y(Tensor a) -> Tensor") S("amb.x_y(Tensor a) -> Tensor")
	/* a tail's split (conv, pad_ding) where a whole string says
	 * (conv_pad, ding) */
	S("q_conv.pad_ding(Tensor a) -> Tensor")
	S("conv_pad.ding(Tensor a) -> Tensor")
	/* not schemas */
	S("notaschema.Tensor") S("looks_like(x)") S("9bad.x(y) -> z")
	S("two.dots.x(a) -> b") S("empty.(a) -> b") S("-> (Tensor)")
	S("error: gone.Tensor(a) -> b") S("prim::add.int(int a, int b) -> int")
	/* the last string, without its NUL */
	"last_op.Last(Tensor a) -> Tensor";

static void test_synthetic(void **state)
{
	static const char *const want[][3] = {
		/* struct, by the table, by the rule */
		{ "add_Tensor", "aten::add", "aten::add" },
		{ "add_out", "aten::add", "aten::add" },
		{ "add__Tensor", "aten::add_", "aten::add_" },
		{ "sum_dim_IntList", "aten::sum", "aten::sum" },
		{ "native_batch_norm", "aten::native_batch_norm",
		  "aten::native_batch_norm" },
		{ "conv2d_padding", "aten::conv2d", "aten::conv2d_padding" },
		{ "sort_stable", "aten::sort", "aten::sort_stable" },
		{ "special_erf_out", "aten::special_erf", "aten::special_erf" },
		{ "erf_out", "aten::erf", "aten::erf" },
		{ "_cast_Byte", "aten::_cast_Byte", "aten::_cast" },
		{ "unique_dim", "aten::unique_dim", "aten::unique" },
		/* ambiguous: the rule's */
		{ "amb_x_y", "aten::amb_x_y", "aten::amb_x_y" },
		{ "conv_pad_ding", "aten::conv_pad", "aten::conv_pad_ding" },
		{ "q_conv_pad_ding", "aten::q_conv", "aten::q_conv_pad_ding" },
		{ "last_op_Last", "aten::last_op", "aten::last_op" },
	};
	/* structs the table does not know */
	static const char *const unknown[] = {
		"amb_x_y", "notaschema_Tensor", "looks_like", "9bad_x",
		"two_dots_x", "dots_x", "empty_", "gone_Tensor", "add_int",
		"int", "last_op_Las", "add_Tenso", "",
	};
	struct torchops_table *t = torchops_table_new(synthetic,
						      sizeof(synthetic) - 1);
	char a[256], b[256];

	(void)state;
	/* 15 schemas (the strings up to "conv_pad.ding", and the last) */
	assert_int_equal(torchops_table_schemas(t), 15);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		assert_string_equal(named(t, want[i][0], a, sizeof(a)),
				    want[i][1]);
		assert_string_equal(named(NULL, want[i][0], b, sizeof(b)),
				    want[i][2]);
	}
	for (size_t i = 0; i < sizeof(unknown) / sizeof(*unknown); i++)
		assert_int_equal(torchops_table_op(t, unknown[i],
						   strlen(unknown[i])), 0);
	assert_int_equal(torchops_table_op(t, "add_Tensor", 10), 3);
	/* which named it: the table, else the rule */
	{
		bool exact = false;

		named_by(t, "conv2d_padding", a, sizeof(a), &exact);
		assert_true(exact);
		named_by(t, "amb_x_y", a, sizeof(a), &exact);
		assert_false(exact);
		named_by(NULL, "conv2d_padding", a, sizeof(a), &exact);
		assert_false(exact);
	}
	assert_int_equal(torchops_table_op(NULL, "add_Tensor", 10), 0);
	torchops_table_free(t);
	/* every prefix of the table: the strings it cuts are read as far
	 * as they go, nothing past the end (the sanitizer build checks) */
	for (size_t n = 0; n < sizeof(synthetic); n += 7) {
		char *copy = xmalloc(n + 1);

		memcpy(copy, synthetic, n);
		t = torchops_table_new(copy, n);
		assert_true(torchops_table_schemas(t) <= 15);
		torchops_table_free(t);
		free(copy);
	}
	torchops_table_free(NULL);
}

/* ---- generated tables against a brute-force reading ---- */

struct schema {
	char name[64], ov[64];	/* as written: NAME[.OV]( */
};

static const char *const words[] = {
	"add", "sum", "dim", "int", "out", "Tensor", "Scalar", "conv2d",
	"pad", "x", "names", "batch", "norm", "native", "IntList", "self",
	"a", "b", "stable", "values",
};
#define NWORDS (sizeof(words) / sizeof(*words))

/* 1 to most words joined by '_' into out (cap bytes: always room) */
static void gen_words(struct rng *r, char *out, size_t cap, int most)
{
	int k = 1 + (int)rng_below(r, (uint64_t)most);
	size_t at = 0;

	out[0] = '\0';
	for (int i = 0; i < k && at < cap; i++)
		at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? "_" : "",
				       words[rng_below(r, NWORDS)]);
}

static void gen_schema(struct rng *r, struct schema *s)
{
	char w[48];

	gen_words(r, w, sizeof(w), 3);
	snprintf(s->name, sizeof(s->name), "%s%s%s",
		 rng_below(r, 5) ? "" : "_", w, rng_below(r, 5) ? "" : "_");
	s->ov[0] = '\0';
	if (rng_below(r, 3))
		gen_words(r, s->ov, sizeof(s->ov), 2);
}

/* The struct name of s's tail from byte k of its name. */
static void struct_of(const struct schema *s, size_t k, char *out,
		      size_t cap)
{
	snprintf(out, cap, "%s%s%s", s->name + k, s->ov[0] ? "_" : "",
		 s->ov);
}

/* What the table should say of struct st: the length of the op of the
 * one split whole strings give it, else of the one its tails give, 0
 * for none or several. */
static size_t oracle(const struct schema *v, size_t n, const char *st)
{
	char buf[160];

	for (int tails = 0; tails < 2; tails++) {
		size_t found = 0;
		bool several = false;

		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(v[i].name);

			for (size_t k = tails; k < (tails ? len : 1); k++) {
				size_t op = len - k;

				if (v[i].name[k] >= '0' && v[i].name[k] <= '9')
					continue;
				struct_of(&v[i], k, buf, sizeof(buf));
				if (strcmp(buf, st))
					continue;
				several |= found && found != op;
				found = op;
			}
		}
		if (found)
			return several ? 0 : found;
	}
	return 0;
}

/* Not schemas, between the schemas. */
static const char *const noise[] = {
	"", "Tensor", "-> Tensor", "bad(x)", "1x.y(a) -> b", "a.b.c(d) -> e",
	"x.(a) -> b", ".out(a) -> b", "error: add.Tensor(a) -> b",
	"aten::", "aten::(x) -> y", "torch::add.out(a) -> b",
};

static void test_generated(void **state)
{
	struct rng r;

	(void)state;
	rng_seed(&r, 2013);
	for (int round = 0; round < 30; round++) {
		size_t n = 20 + rng_below(&r, 120);
		struct schema *v = xcalloc(n, sizeof(*v));
		struct strbuf buf = { 0 };
		struct torchops_table *t;
		size_t checked = 0, ambiguous = 0;
		char st[160];

		for (size_t i = 0; i < n; i++) {
			char *str;

			gen_schema(&r, &v[i]);
			/* the previous string's end, noise, padding; the
			 * last schema ends the buffer without a NUL */
			strbuf_putc(&buf, '\0');
			if (rng_below(&r, 3)) {
				strbuf_puts(&buf, noise[rng_below(
					&r, sizeof(noise) / sizeof(*noise))]);
				strbuf_putc(&buf, '\0');
			}
			for (uint64_t z = rng_below(&r, 4); z; z--)
				strbuf_putc(&buf, '\0');
			str = xasprintf("%s%s%s%s(Tensor self) -> Tensor",
					rng_below(&r, 4) ? "" : "aten::",
					v[i].name, v[i].ov[0] ? "." : "",
					v[i].ov);
			strbuf_puts(&buf, str);
			free(str);
		}
		t = torchops_table_new(buf.s, buf.len);
		assert_int_equal(torchops_table_schemas(t), n);
		/* every struct of every string and of its tails */
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < strlen(v[i].name); k++) {
				size_t want;

				struct_of(&v[i], k, st, sizeof(st));
				want = oracle(v, n, st);
				assert_int_equal(torchops_table_op(t, st,
								   strlen(st)),
						 want);
				checked++;
				ambiguous += !want;
			}
		assert_true(checked > ambiguous);
		torchops_table_free(t);
		free(buf.s);
		free(v);
	}
}

/* ---- the real library ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* symtab and the table of path, mapped whole at 0x10000000 of pid 1. */
static const struct torchops_table *table_of(struct symtab *s,
					     const char *path)
{
	FILE *fp = fopen(path, "rb");
	long size;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	if (size <= 0)
		return NULL;
	symtab_mmap(s, 1, 0x10000000, (uint64_t)size, 0, path);
	return symtab_torchops(s, 1, 0x10000000 + (uint64_t)size / 2, false);
}

static unsigned char *read_file(const char *path, size_t *len);
static Elf64_Shdr *section(unsigned char *buf, size_t len, const char *name);

/* What the scan of lib's .rodata alone costs: the median of 5, in ms. */
static double scan_ms(const char *lib)
{
	size_t len;
	unsigned char *buf = read_file(lib, &len);
	Elf64_Shdr *ro = section(buf, len, ".rodata");
	double ms[5];

	assert_non_null(ro);
	assert_true(ro->sh_offset + ro->sh_size <= len);
	for (int i = 0; i < 5; i++) {
		double t0 = now();
		struct torchops_table *t = torchops_table_new(
			(const char *)buf + ro->sh_offset, ro->sh_size);

		ms[i] = 1e3 * (now() - t0);
		torchops_table_free(t);
	}
	free(buf);
	for (int i = 1; i < 5; i++)	/* sorted: the median is ms[2] */
		for (int k = i; k > 0 && ms[k] < ms[k - 1]; k--) {
			double x = ms[k];

			ms[k] = ms[k - 1];
			ms[k - 1] = x;
		}
	return ms[2];
}

static void test_real_library(void **state)
{
	FILE *pp = popen("/usr/bin/python3 " TESTDATA_DIR
			 "/torchops-strings.py", "r");
	char line[512], lib[400] = "", a[256], b[256];
	size_t all = 0, same = 0, rule_wrong = 0, torch_same = 0, known = 0;
	struct symtab *s = symtab_new(false);
	const struct torchops_table *t = NULL;
	double t0;

	(void)state;
	assert_non_null(pp);
	while (fgets(line, sizeof(line), pp)) {
		char *tab = strchr(line, '\t'), *tn;
		const char *want;

		assert_non_null(tab);
		*tab = '\0';
		want = tab + 1;
		tab[strcspn(want, "\n") + 1] = '\0';
		/* the third column: torch's own name */
		tn = strchr(want, '\t');
		if (tn)
			*tn++ = '\0';
		if (!strcmp(line, "lib")) {
			snprintf(lib, sizeof(lib), "%s", want);
			t0 = now();
			t = table_of(s, lib);
			print_message("table of %s: %zu schemas read in "
				      "%.1f ms\n", lib,
				      torchops_table_schemas(t),
				      1e3 * (now() - t0));
			assert_non_null(t);
			continue;
		}
		all++;
		/* nm and strings confirm one split of every struct */
		assert_string_not_equal(want, "?");
		named(t, line, a, sizeof(a));
		if (strcmp(a, want))
			print_message("%s: table %s, strings %s\n", line, a,
				      want);
		same += !strcmp(a, want);
		known += torchops_table_op(t, line, strlen(line)) > 0;
		rule_wrong += strcmp(named(NULL, line, b, sizeof(b)), want) != 0;
		torch_same += tn && !strcmp(tn, a);
	}
	assert_int_equal(pclose(pp), 0);
	print_message("%zu structs exported: %zu named by the table, %zu as "
		      "nm+strings, %zu as torch; the rule alone gets %zu "
		      "wrong (%.1f%%)\n", all, known, same, torch_same,
		      rule_wrong,
		      100.0 * (double)rule_wrong / (double)(all ? all : 1));
	print_message("the scan of its .rodata alone: %.1f ms (median of "
		      "5)\n", scan_ms(lib));
	assert_true(all > 2900);
	assert_int_equal(known, all);
	assert_int_equal(same, all);
	assert_int_equal(torch_same, all);
	assert_true(rule_wrong > 0);
	symtab_free(s);
}

/* ---- hostile files ---- */

/* In this executable's .rodata, to be found there (not static: kept
 * whole, though only its length is taken here). */
extern const char ys_torchops_marker[];
const char ys_torchops_marker[] =
	"ys_probe_op.My_Overload(Tensor self) -> Tensor";

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	assert_non_null(fp);
	*len = 0;
	do {
		buf = xgrow(buf, &cap, *len + 65536, 1);
		n = fread(buf + *len, 1, 65536, fp);
		*len += n;
	} while (n);
	fclose(fp);
	return buf;
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* The section header of name in the ELF image buf, or NULL. */
static Elf64_Shdr *section(unsigned char *buf, size_t len, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr *sh, *strs;

	if (len < sizeof(*eh) || eh->e_shoff > len ||
	    eh->e_shnum > (len - eh->e_shoff) / sizeof(*sh) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (Elf64_Shdr *)(buf + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	for (size_t i = 0; i < eh->e_shnum; i++)
		if (strs->sh_offset + sh[i].sh_name < len &&
		    !strcmp((char *)buf + strs->sh_offset + sh[i].sh_name, name))
			return &sh[i];
	return NULL;
}

/* The table of the file path holds buf[0..len): whether it knows the
 * marker's struct (a fresh symtab each: one module per path). */
static bool knows_marker(const char *path, const void *buf, size_t len)
{
	struct symtab *s = symtab_new(false);
	const struct torchops_table *t;
	bool knows;

	write_file(path, buf, len);
	t = table_of(s, path);
	knows = torchops_table_op(t, "ys_probe_op_My_Overload", 23) == 11;
	symtab_free(s);
	return knows;
}

static void test_hostile_files(void **state)
{
	char path[] = "/tmp/ys-torchops-elf-XXXXXX";
	size_t len;
	unsigned char *self = read_file("/proc/self/exe", &len), *copy;
	Elf64_Shdr *ro;
	struct rng r;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_true(strlen(ys_torchops_marker) > 10);
	assert_true(knows_marker(path, self, len));
	copy = xmalloc(len);
	/* cut short: at its start, anywhere in its first 4 KiB, then at
	 * every 16th of it; cut inside .rodata, no table (libelf checks a
	 * section against the file) */
	ro = section(self, len, ".rodata");
	assert_non_null(ro);
	for (size_t cut = 0; cut < len; cut += cut < 4096 ? 251 : len / 16)
		(void)knows_marker(path, self, cut);
	assert_false(knows_marker(path, self, ro->sh_offset + ro->sh_size / 2));
	/* .rodata's header made to point past the file, and to be huge */
	memcpy(copy, self, len);
	ro = section(copy, len, ".rodata");
	ro->sh_offset = len + 4096;
	assert_false(knows_marker(path, copy, len));
	memcpy(copy, self, len);
	ro = section(copy, len, ".rodata");
	ro->sh_size = (uint64_t)1 << 62;
	assert_false(knows_marker(path, copy, len));
	/* random bytes of the section headers changed */
	rng_seed(&r, 77);
	for (int round = 0; round < 40; round++) {
		Elf64_Ehdr *eh = (Elf64_Ehdr *)copy;
		size_t span;

		memcpy(copy, self, len);
		span = (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
		for (int k = 0; k < 8 && eh->e_shoff + span <= len; k++)
			copy[eh->e_shoff + rng_below(&r, span)] =
				(unsigned char)rng_below(&r, 256);
		(void)knows_marker(path, copy, len);
	}
	unlink(path);
	free(copy);
	free(self);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_real_library),
		cmocka_unit_test(test_hostile_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
