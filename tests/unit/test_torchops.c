/*
 * Unit tests of profile/torchops.h (the table of a library's own names:
 * test_torchops_table.c):
 * - operator frames by the rule (no table): the name of every
 *   `at::_ops::<struct>::call` that Debian's libtorch_cpu.so exports,
 *   against the name torch itself
 *   gives the struct (tests/data/torchops-names.txt, made by
 *   tests/data/torchops-names.sh from torch's schemas): at least 90% of
 *   all, and every operator of a torchvision ResNet exactly; nothing
 *   else is an operator frame;
 * - the trace reader: random forests of nested events (generated, their
 *   depths known), written in both of torch's forms, shuffled, read back
 *   from memory and through a file (the scanner's 64 KiB chunks cut
 *   them anywhere): the same events, each at its depth.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/torchops.h"
#include "stats/stats.h"
#include "util/strutil.h"

static size_t op(const char *fn, char *buf)
{
	return torchops_frame_name(fn, NULL, buf, 256, NULL);
}

static void test_not_operators(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(op(NULL, buf), 0);
	assert_int_equal(op("sgemm_", buf), 0);
	assert_int_equal(op("at::native::conv2d(at::Tensor const&)", buf), 0);
	assert_int_equal(op("at::_ops::conv2d::redispatch(c10::DispatchKeySet"
			    ", at::Tensor const&)", buf), 0);
	assert_int_equal(op("at::_ops::::call()", buf), 0);
	assert_int_equal(op("at::_ops::a::b::call()", buf), 0);
	assert_int_equal(op("at::_ops::conv2d::call", buf), 0);
	assert_int_equal(torchops_frame_name("at::_ops::conv2d::call(x)", NULL,
					     buf, 12, NULL), 0);
	assert_int_equal(torchops_frame_name("at::_ops::conv2d::call(x)", NULL,
					     buf, 13, NULL), 12);
	assert_string_equal(buf, "aten::conv2d");
}

/* the operators of torchvision's ResNet-18 under torch.profiler (and
 * softmax, mean, sum of the rest of an inference) */
static const char *const resnet[][2] = {
	{ "conv2d", "aten::conv2d" }, { "convolution", "aten::convolution" },
	{ "_convolution", "aten::_convolution" },
	{ "thnn_conv2d", "aten::thnn_conv2d" },
	{ "_slow_conv2d_forward", "aten::_slow_conv2d_forward" },
	{ "mkldnn_convolution", "aten::mkldnn_convolution" },
	{ "batch_norm", "aten::batch_norm" },
	{ "_batch_norm_impl_index", "aten::_batch_norm_impl_index" },
	{ "native_batch_norm", "aten::native_batch_norm" },
	{ "relu_", "aten::relu_" }, { "max_pool2d", "aten::max_pool2d" },
	{ "max_pool2d_with_indices", "aten::max_pool2d_with_indices" },
	{ "adaptive_avg_pool2d", "aten::adaptive_avg_pool2d" },
	{ "flatten_using_ints", "aten::flatten" },
	{ "linear", "aten::linear" }, { "addmm", "aten::addmm" },
	{ "add_Tensor", "aten::add" }, { "add__Tensor", "aten::add_" },
	{ "add_out", "aten::add" },
	{ "empty_memory_format", "aten::empty" }, { "view", "aten::view" },
	{ "resize_", "aten::resize_" }, { "clamp_min_", "aten::clamp_min_" },
	{ "softmax_int", "aten::softmax" }, { "_softmax", "aten::_softmax" },
	{ "mean_dim", "aten::mean" }, { "sum_dim_IntList", "aten::sum" },
};

static void test_names_against_torch(void **state)
{
	FILE *fp = fopen(TESTDATA_DIR "/torchops-names.txt", "r");
	char line[512], fn[600], buf[256];
	size_t all = 0, same = 0;

	(void)state;
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		char *tab = strchr(line, '\t');

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		tab[strcspn(tab + 1, "\n") + 1] = '\0';
		snprintf(fn, sizeof(fn), "at::_ops::%s::call(at::Tensor "
			 "const&)", line);
		assert_true(op(fn, buf) > 6);
		all++;
		same += !strcmp(buf, tab + 1);
	}
	fclose(fp);
	assert_true(all > 2900);
	/* 2701 of 2952 (91.5%) when written: a change of the rule must
	 * not lose any */
	assert_true(same >= 2701);
	for (size_t i = 0; i < sizeof(resnet) / sizeof(*resnet); i++) {
		snprintf(fn, sizeof(fn), "at::_ops::%s::call(at::Tensor const&,"
			 " long)", resnet[i][0]);
		assert_true(op(fn, buf) > 0);
		assert_string_equal(buf, resnet[i][1]);
	}
}

/* ---- the reader ---- */

struct gen {
	struct strbuf json;
	size_t n;
	uint16_t *depth;	/* by the event's name's number */
	size_t cap;
};

/* One event e<k> at ts..ts+dur µs on thread tid, depth d, and its
 * children (each inside it, integer µs, leaving gaps). */
static void tree(struct gen *g, struct rng *r, uint64_t ts, uint64_t dur,
		 int tid, uint16_t d)
{
	size_t k = g->n++;
	int kids = d < 5 && dur > 40 ? (int)rng_below(r, 4) : 0;
	uint64_t t = ts + 1, slot = kids ? (dur - 2) / (uint64_t)kids : 0;

	g->depth = xgrow(g->depth, &g->cap, g->n, sizeof(*g->depth));
	g->depth[k] = d;
	strbuf_puts(&g->json, g->json.len > 40 ? ",\n" : "\n");
	{
		char *s = xasprintf("{\"ph\": \"X\", \"cat\": \"cpu_op\", "
				    "\"name\": \"e%zu\", \"pid\": \"CPU "
				    "functions\", \"tid\": %d, \"ts\": %llu, "
				    "\"dur\": %llu, \"args\": {\"a\": [1, "
				    "{\"b\": \"}]\\\"\"}]}}", k, tid,
				    (unsigned long long)ts,
				    (unsigned long long)dur);

		strbuf_puts(&g->json, s);
		free(s);
	}
	for (int i = 0; i < kids; i++, t += slot)
		tree(g, r, t, slot - 1 - rng_below(r, slot / 2), tid,
		     (uint16_t)(d + 1));
}

static void check_read(struct gen *g, struct trace *t)
{
	assert_int_equal(t->n, g->n);
	for (size_t i = 0; i < t->n; i++) {
		size_t k = strtoul(t->ev[i].name + 1, NULL, 10);

		assert_true(k < g->n);
		assert_int_equal(t->ev[i].depth, g->depth[k]);
		assert_true(i == 0 || t->ev[i - 1].start <= t->ev[i].start);
	}
}

static void test_reader_forests(void **state)
{
	struct rng r;

	(void)state;
	rng_seed(&r, 28);
	for (int round = 0; round < 20; round++) {
		struct gen g = { 0 };
		struct trace t;
		struct torchops_trace_stats st;
		struct error e;
		bool kineto = round & 1;
		char path[] = "/tmp/ys-torchops-XXXXXX";
		int fd;

		strbuf_puts(&g.json, kineto ? "{\"schemaVersion\": 1, "
			    "\"deviceProperties\": [{\"x\": [1]}], "
			    "\"traceEvents\": [" : "[");
		for (int tid = 1; tid <= 3; tid++)
			for (uint64_t ts = 0; ts < 20000; ts += 2000)
				tree(&g, &r, ts + rng_below(&r, 50),
				     500 + rng_below(&r, 1400), tid, 0);
		strbuf_puts(&g.json, kineto ? "], \"traceName\": \"x\"}\n"
			    : "]\n");
		trace_init(&t, 1000000);
		if (torchops_read_trace_mem(&t, "mem", g.json.s, g.json.len,
					    &st, &e))
			fail_msg("%s", e.msg);
		check_read(&g, &t);
		assert_int_equal(st.threads, 3);
		assert_int_equal(st.clipped, 0);
		trace_free(&t);
		/* the same through a file, read in chunks */
		fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, g.json.s, g.json.len),
				 (ssize_t)g.json.len);
		close(fd);
		trace_init(&t, 1000000);
		if (torchops_read_trace(&t, path, &st, &e))
			fail_msg("%s", e.msg);
		check_read(&g, &t);
		trace_free(&t);
		unlink(path);
		free(g.json.s);
		free(g.depth);
	}
}

static void test_reader_bounded(void **state)
{
	const char *s = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":9},"
			"{\"ph\":\"X\",\"name\":\"b\",\"ts\":1,\"dur\":2},"
			"{\"ph\":\"X\",\"name\":\"c\",\"ts\":4,\"dur\":2},"
			"{\"ph\":\"i\",\"name\":\"m\",\"ts\":4},"
			"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\","
			"\"ts\":4,\"dur\":2}]";
	struct torchops_trace_stats st;
	struct trace t;
	struct error e;

	(void)state;
	trace_init(&t, 2);
	assert_int_equal(torchops_read_trace_mem(&t, "m", s, strlen(s), &st,
						 &e), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.dropped, 1);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.ignored, 2);
	assert_int_equal(t.ev[0].start, 0);
	assert_int_equal(t.ev[0].end, 9000);
	trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_operators),
		cmocka_unit_test(test_names_against_torch),
		cmocka_unit_test(test_reader_forests),
		cmocka_unit_test(test_reader_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
