/*
 * Operator frames: the dispatcher's entry point `at::_ops::<struct>::call`
 * of a native frame, as the operator torch.profiler would name it.
 *
 * Why the symbol and not torch's own state: every operator call goes
 * through its `at::_ops::<struct>::call`, an exported symbol of
 * libtorch_cpu.so (2952 of them in Debian's torch 1.13), so a sample's
 * own native stack says which operators it is in, nested as they called
 * each other, at no cost to the program and with nothing loaded into it.
 * Reading RecordFunction's thread-local state from outside would depend
 * on torch's private layout, version by version; torch's profiler
 * callbacks run inside the program and cost every operator call. The
 * dispatcher's `::redispatch` entries (an autograd or functionalization
 * kernel passing the call on to the next key) are not operator frames:
 * torch.profiler records an operator once, where it is called.
 *
 * The struct's name is `<op>` or `<op>_<overload>`, and both parts may
 * hold '_' ("max_pool2d_with_indices", "add_Tensor", "flatten_using_ints",
 * "sum_dim_IntList"). The library's own schema strings give the split
 * exactly (torchops_table.c; every one of torch 1.13's 2952 structs).
 * Where its library's table does not know the struct, the split is a
 * rule: the overload begins at a known lowercase overload name (the list
 * below, the most common ones of torch's 2952), else at the first '_'
 * followed by a capital letter ("_Tensor", "_Scalar"), else it is a
 * trailing "_out"; else there is none. Measured against torch 1.13's own
 * schemas (tests/data/torchops-names.txt, tests/unit/test_torchops.c):
 * the rule gives 91.5% of the structs torch's name (2701 of 2952), every
 * one of the operators of a torchvision ResNet; the rest keep part of
 * their overload name ("aten::conv2d_padding" for torch's "aten::conv2d").
 */
#include "profile/torchops.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#define PREFIX "at::_ops::"
#define CALL "::call("

/* Overload names that begin with a lowercase letter, each a whole
 * '_'-separated part of the struct's name. */
static const char *const lower_overloads[] = {
	"grad_input", "vec", "dimname", "dim", "int", "names", "using_ints",
	"using_names", "self", "input", "output", "dtype", "n_scalar",
	"x_scalar", "periodic", "memory_format", NULL,
};

/* Where, in the struct name s[0..n), a part equal to w begins (after a
 * '_', ending at n or at a '_'); 0 when it does not. */
static size_t part_at(const char *s, size_t n, const char *w)
{
	size_t m = strlen(w);

	for (size_t i = 1; i + m <= n; i++)
		if (s[i - 1] == '_' && !memcmp(s + i, w, m) &&
		    (i + m == n || s[i + m] == '_'))
			return i - 1;
	return 0;
}

/* The length of the operator's name in the struct name s[0..n). */
static size_t op_length(const char *s, size_t n)
{
	for (size_t k = 0; lower_overloads[k]; k++) {
		size_t at = part_at(s, n, lower_overloads[k]);

		if (at)
			return at;
	}
	/* the first "_X": not at 0, a leading '_' is the name's own */
	for (size_t i = 1; i + 1 < n; i++)
		if (s[i] == '_' && isupper((unsigned char)s[i + 1]))
			return i;
	if (n > 4 && !memcmp(s + n - 4, "_out", 4))
		return n - 4;
	return n;
}

bool torchops_is_entry(const char *function)
{
	return function && !strncmp(function, PREFIX, sizeof(PREFIX) - 1) &&
	       strstr(function, CALL);
}

size_t torchops_frame_name(const char *function,
			   const struct torchops_table *ops, char *out,
			   size_t cap, bool *exact)
{
	const char *s, *end;
	size_t n, op;

	if (!function || strncmp(function, PREFIX, sizeof(PREFIX) - 1))
		return 0;
	s = function + sizeof(PREFIX) - 1;
	end = strstr(s, CALL);
	if (!end || end == s)
		return 0;
	n = (size_t)(end - s);
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;	/* a nested name: not an operator */
	op = torchops_table_op(ops, s, n);
	if (exact)
		*exact = op > 0;
	if (!op)
		op = op_length(s, n);
	if (op + sizeof("aten::") > cap)
		return 0;
	memcpy(out, "aten::", 6);
	memcpy(out + 6, s, op);
	out[6 + op] = '\0';
	return 6 + op;
}
