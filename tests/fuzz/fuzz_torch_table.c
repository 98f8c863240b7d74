/*
 * libFuzzer target of the operator table (profile/torchops_table.c): a
 * library's .rodata is untrusted input (a truncated or hostile .so). Any
 * bytes read without a fault; what is read is consistent: no more
 * schemas than strings, and the operator of every struct named by the
 * input's strings is a prefix of the struct, ending at a '_' of it or at
 * its end, as the operator frame shows it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/torchops.h"

/* The struct of the word run at s[0..n) ("op.ov" -> "op_ov"), checked. */
static void check(const struct torchops_table *t, const char *s, size_t n)
{
	char st[256], fn[300], out[300];
	size_t k = 0, op, len;

	while (k < n && k + 1 < sizeof(st) && s[k] && s[k] != '(') {
		st[k] = s[k] == '.' ? '_' : s[k];
		k++;
	}
	st[k] = '\0';
	op = torchops_table_op(t, st, k);
	if (op > k || (op && op < k && st[op] != '_'))
		abort();
	memcpy(fn, "at::_ops::", 10);
	memcpy(fn + 10, st, k);
	memcpy(fn + 10 + k, "::call()", 9);
	len = torchops_frame_name(fn, t, out, sizeof(out), NULL);
	if (op && len && (len != 6 + op || memcmp(out + 6, st, op)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct torchops_table *t = torchops_table_new(buf, size);
	size_t strings = 1;

	for (size_t i = 0; i < size; i++)
		strings += data[i] == 0;
	if (torchops_table_schemas(t) > strings)
		abort();
	/* every string's start, and every position after a '_' or ':' */
	for (size_t i = 0; i < size; i++)
		if (i == 0 || data[i - 1] == 0 || data[i - 1] == '_' ||
		    data[i - 1] == ':')
			check(t, buf + i, size - i);
	torchops_table_free(t);
	return 0;
}
