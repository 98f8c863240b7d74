/*
 * A new stack, sent as what differs from the last one its thread sent
 * into the same chunk (HEAP_REC_STACK_TAIL, protocol.h), or whole
 * (included by agent.c only, after the slots' reserve and commit).
 */
/*
 * The frames of the stack a thread sent last (tstate.sent_*), each
 * array's root end at its end: the next stack's frames that share its
 * root side are already in place, and only those beyond are copied in.
 * Memory of the thread's own, mapped at its first stack (1.5 KiB: not
 * in the thread-local block every thread of the program has).
 */
struct sent_stack {
	void *ips[HEAP_MAX_DEPTH];
	uint64_t py[HEAP_PY_MAX];
};

static struct sent_stack *sent_stack_of(struct tstate *t)
{
	void *p;

	if (likely(t->sent != NULL) || t->sent_failed || t->dead)
		return t->sent;
	p = mmap(NULL, sizeof(struct sent_stack), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		t->sent_failed = 1;
		return NULL;
	}
	t->sent = p;
	return p;
}

/* At the thread's end. */
static void sent_stack_free(struct tstate *t)
{
	struct sent_stack *p = t->sent;

	t->sent = NULL;
	t->sent_slot = NULL;
	if (p)
		munmap(p, sizeof(*p));
}

/* A stack: n return addresses, then m Python frames (agent_python.h). */
struct stack_ref {
	void *const *ips;
	const uint64_t *py;
	int n, m;
};

/* The frames a and b share on their root side: a[an - 1] and b[bn - 1]
 * on, with a_end = a + an, b_end = b + bn. */
INLINE uint32_t shared_ips(void *const *a_end, uint32_t an,
			   void *const *b_end, uint32_t bn)
{
	uint32_t k = 0, most = an < bn ? an : bn;

	while (k < most && a_end[-1 - (int)k] == b_end[-1 - (int)k])
		k++;
	return k;
}

INLINE uint32_t shared_py(const uint64_t *a_end, uint32_t an,
			  const uint64_t *b_end, uint32_t bn)
{
	uint32_t k = 0, most = an < bn ? an : bn;

	while (k < most && a_end[-1 - (int)k] == b_end[-1 - (int)k])
		k++;
	return k;
}

/*
 * A new stack's record: a STACK_TAIL when the thread's last stack
 * (tstate.sent_*) went into this chunk of its slot and shares frames
 * with it, else a whole STACK (protocol.h, stack tails). borrowed: s is
 * not the thread's (a thread past its end): whole, and not remembered.
 */
static void record_stack(struct tstate *t, struct heap_slot *s, uint64_t h,
			 const struct stack_ref *st, bool borrowed)
{
	uint32_t n = (uint32_t)st->n, m = (uint32_t)st->m, keep = 0, keep_py = 0;
	uint32_t u = check_maps();
	struct sent_stack *last = NULL;
	uint64_t *w, *f, type;

	if (!borrowed && n <= HEAP_MAX_DEPTH && m <= HEAP_PY_MAX)
		last = sent_stack_of(t);
	w = reserve(s, 4 + n + m);
	if (!w)
		return;	/* (the slot's last stack is still the one sent) */
	if (last && t->sent_slot == s && t->sent_seq == s->seq) {
		keep = shared_ips(last->ips + HEAP_MAX_DEPTH, t->sent_n,
				  st->ips + n, n);
		keep_py = shared_py(last->py + HEAP_PY_MAX, t->sent_m,
				    st->py + m, m);
	}
	type = keep || keep_py ? HEAP_REC_STACK_TAIL : HEAP_REC_STACK;
	w[0] = (type << HEAP_TYPE_SHIFT) | ((uint64_t)(m - keep_py) << 48) |
	       ((uint64_t)generation << 16) | (uint64_t)(n - keep);
	w[1] = h;
	w[2] = u | (uint64_t)keep << 32 | (uint64_t)keep_py << 48;
	f = &w[3];
	if (type == HEAP_REC_STACK_TAIL) {
		w[3] = t->sent_hash;
		f = &w[4];
	}
	memcpy(f, st->ips, (n - keep) * sizeof(uint64_t));
	if (m > keep_py)
		memcpy(f + n - keep, st->py, (m - keep_py) * sizeof(uint64_t));
	commit(s, (size_t)(f - w) + n - keep + m - keep_py);
	if (!last) {
		t->sent_slot = NULL;
		return;
	}
	/* the root sides they share are in place already */
	memcpy(&last->ips[HEAP_MAX_DEPTH - n], st->ips,
	       (n - keep) * sizeof(void *));
	if (m > keep_py)
		memcpy(&last->py[HEAP_PY_MAX - m], st->py,
		       (m - keep_py) * sizeof(uint64_t));
	t->sent_n = n;
	t->sent_m = m;
	t->sent_hash = h;
	t->sent_slot = s;
	t->sent_seq = s->seq;
}
