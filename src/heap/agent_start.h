/*
 * The agent's start-up (included by agent.c only): the segment and the
 * socket found from the environment yardstick set (or fetched again when
 * the program closed or replaced them), the claim of the segment, the
 * settings read from its header, and the program's peak RSS noted at exit.
 */
static void close_fds(void)
{
	if (sock >= 0)
		close(sock);
	if (shm_fd >= 0)
		close(shm_fd);
	sock = shm_fd = -1;
}

/*
 * A new image of the process tree, numbered (protocol.h, images): its
 * entry in the segment's table, with cmd (NULL: this process's command
 * line, read from /proc) and its parent process ppid.
 */
static uint32_t new_image(uint32_t parent, uint32_t replaced,
			  const char *cmd, pid_t ppid)
{
	uint32_t gen = atomic_fetch_add(
		(_Atomic uint32_t *)&hdr->generation, 1) + 1;
	struct heap_image *im;
	char buf[512], *base = buf;
	long n;

	if (gen >= HEAP_IMAGES)
		return gen;	/* traced, with no entry: yardstick says so */
	im = &hdr->images[gen];
	im->pid = my_pid;
	im->ppid = ppid;
	im->parent = parent;
	im->replaced = replaced;
	if (cmd) {
		memcpy(im->cmd, cmd, HEAP_CMD_MAX);
		return gen;
	}
	memset(buf, 0, sizeof(buf));
	n = heap_read_proc("/proc/self/cmdline", buf, sizeof(buf));
	/* the program's name without its directory, then its arguments */
	for (long i = 0; i < n && buf[i]; i++)
		if (buf[i] == '/' && buf[i + 1])
			base = buf + i + 1;
	n -= base - buf;
	memmove(buf, base, n > 0 ? (size_t)n : 0);
	memset(buf + (n > 0 ? n : 0), 0, sizeof(buf) - (size_t)(n > 0 ? n : 0));
	for (long i = 0; i < n; i++)
		if (!buf[i] && i + 1 < n)
			buf[i] = ' ';
	memcpy(im->cmd, buf, HEAP_CMD_MAX);
	return gen;
}

/*
 * A forked child: an image of its own (protocol.h). The forking thread
 * is its only one; the slots, the socket and the locks it inherited are
 * its parent's: it takes a slot anew, connects anew, and the tables of
 * what was sent (stacks, maps, Python code objects) start again under
 * its number.
 */
/*
 * Whether a thread was inside libunwind when the process forked (its
 * in_walk, through the slots' owners; this thread's own too, for a fork
 * from a signal handler): libunwind's locks it held are held for good in
 * the child, whose next walk would wait on them for ever (a child that
 * allocates hung, 2 runs in 20 of 150 forks beside threads starting:
 * tests/cli/mem_hostile.sh).
 */
static bool unw_held_at_fork(void)
{
	if (tls.in_walk)
		return true;
	for (int i = 0; i < HEAP_SLOTS; i++) {
		struct tstate *o = atomic_load_explicit(&owners[i],
							memory_order_acquire);

		if (o && o->in_walk)
			return true;
	}
	return false;
}

/*
 * A fork from a signal handler that interrupted an agent's call of this
 * thread (tls.busy): the call is the parent's, which finishes it when the
 * handler returns. The child abandons it, but may return from the handler
 * into it, whose pointers lead into the parent's slot (the segment is
 * shared: its records and counts would go into the parent's) and into
 * the thread's structures it was changing. So the child moves the segment
 * to a new address and leaves private zeros at the old one, for the
 * abandoned call to write into unseen; leaves the stack cache (while
 * libunwind walks: after_fork_child) and the agent's stack (which the
 * call may be running on) to it and takes new ones, the old ones kept
 * mapped; and is not busy any more: its own calls (in the handler) are
 * traced, into a slot of its own. System calls only. false: the segment
 * could not be moved (the child is then not traced; the abandoned call
 * writes where it would have before).
 */
static bool abandon_call(void)
{
	size_t len = sizeof(*hdr);
	void *to = mmap(NULL, len, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (to == MAP_FAILED)
		return false;
	if (mremap(hdr, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to) !=
	    to) {
		munmap(to, len);
		return false;
	}
	/* (failing, the old range is left unmapped: the abandoned call
	 * would fault; no memory for a mapping of zeros is rarer still) */
	mmap(hdr, len, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	hdr = to;
	if (use_unw) {
		struct stack_set *c = stack_cache_new();

		if (c) {
			tls.cache = c;
			tls.cache_unloads = atomic_load(&unloads);
		}
	}
	tls.alt = NULL;
	tls.scratch = NULL;
	tls.busy = 0;
	return true;
}

static void after_fork_child(void)
{
	uint32_t parent = generation;
	char cmd[HEAP_CMD_MAX];
	pid_t forked_by;

	sample_fork_child();
	/* a dlclose of another thread's at the fork holds it for good */
	pthread_mutex_init(&unload_lock, NULL);
	if (tls.in_loader || tls.in_walk)
		loader_held = true;	/* a handler forked there */
	tls.in_loader = 0;
	/* libunwind finds code through the loader */
	if (use_unw && (loader_held || unw_held_at_fork()))
		use_unw = false;	/* frame pointers from here on */
	if (hdr && tls.busy && atomic_load(&state) == ON && !abandon_call())
		atomic_store(&state, OFF);	/* the child untraced */
	if (!hdr || atomic_load(&state) != ON) {
		atomic_store(&state, OFF);
		counts_forget_all();
		tls.sample_left = 0;	/* the fast path closed */
		tls.slot = NULL;
		hdr = NULL;
		close_fds();
		return;
	}
	/* the process that forked us, as it was: a parent that has exited
	 * since (a daemon's double fork) leaves getppid() the reaper's */
	forked_by = my_pid;
	my_pid = getpid();
	pthread_mutex_init(&send_lock, NULL);
	pthread_mutex_init(&py.lock, NULL);
	fast_close(&tls);
	counts_forget_all();	/* the slots are the parent's threads' */
	tls.slot = tls.alloc_slot = tls.burst_slot = NULL;
	tls.sent_slot = NULL;	/* a slot of its own: stacks whole again */
	tls.last_alloc = NULL;
	if (sock >= 0 && sock_ours())
		close(sock);	/* our parent's connection */
	sock = -1;
	sock_dev = 0;
	sock_ino = 0;
	reconnects = 0;
	maps_adds = 0;
	if (py.codes)
		memset(py.codes, 0, sizeof(*py.codes) << PY_CODES_BITS);
	if (tls.py_lines)
		memset(tls.py_lines, 0, sizeof(*tls.py_lines) << PY_LINES_BITS);
	if (parent < HEAP_IMAGES)
		memcpy(cmd, hdr->images[parent].cmd, HEAP_CMD_MAX);
	else
		memset(cmd, 0, sizeof(cmd));
	generation = new_image(parent, 0, cmd, forked_by);
	seed_stacks();
}

/*
 * This image's number (protocol.h, images). The first process to claim
 * the segment is the program. A process whose last image called exec
 * (or the program itself, whose pid stays ours) is that image after its
 * exec: the old image's threads are gone, and their slots (records and
 * all) are taken over. Any other is a process of the tree started with
 * the agent. Returns the image replaced, 0 for none.
 */
static uint32_t claim(void)
{
	int none = 0, self = getpid();
	uint32_t last, old = 0;

	my_pid = self;
	if (atomic_compare_exchange_strong((_Atomic int32_t *)&hdr->owner_pid,
					   &none, self)) {
		generation = new_image(0, 0, NULL, getppid());
		seed_stacks();
		return 0;
	}
	last = atomic_load((_Atomic uint32_t *)&hdr->generation);
	for (uint32_t g = last < HEAP_IMAGES ? last : HEAP_IMAGES - 1; g > 0;
	     g--) {
		if (hdr->images[g].pid != self)
			continue;
		/* the pid of a process gone and reused is not an exec */
		if (hdr->images[g].exec_pending || self == none)
			old = g;
		break;
	}
	generation = new_image(0, old, NULL, getppid());
	seed_stacks();
	for (int i = 0; old && i < HEAP_SLOTS; i++)
		if (hdr->slots[i].pid == self)
			slot_give(&hdr->slots[i]);
	return old;
}

/* The exec that started this image, in the first thread's slot. */
static void record_exec(uint32_t old)
{
	struct heap_slot *s = slot_take();
	uint64_t *w;

	if (!s)
		return;
	w = reserve(s, 2);
	if (w) {
		w[0] = ((uint64_t)HEAP_REC_EXEC << HEAP_TYPE_SHIFT) | stamp();
		w[1] = (uint64_t)old << 32 | generation;
		commit(s, 2);
	}
	slot_give(s);
}

static bool parse_env(int *shm, int *fd, unsigned long long *ino,
		      unsigned long long *sino, char *name)
{
	size_t n = 0;
	const char *v = getenv(HEAP_ENV);
	char *end;

	if (!v)
		return false;
	*shm = (int)strtol(v, &end, 10);
	if (*end++ != ',')
		return false;
	*fd = (int)strtol(end, &end, 10);
	if (*end++ != ',')
		return false;
	*ino = strtoull(end, &end, 10);
	if (*end++ != ',')
		return false;
	*sino = strtoull(end, &end, 10);
	if (*end++ != ',')
		return false;
	while (n < HEAP_NAME_MAX && *end)
		name[n++] = *end++;
	name[n] = '\0';
	return *end == '\0' && n > 0;
}

/* glibc's _Fork (agent_exec.h), looked up at the start: a signal handler
 * calls it, where dlsym must not be */
typedef pid_t (*fork_fn)(void);
static fork_fn next_fork;

static void start(void)
{
	int expected = OFF, shm, fd;
	unsigned long long ino, sino;
	bool fresh = false;	/* sock is a new connection */
	uint32_t old;
	struct stat st;
	void *p;

	if (started || !atomic_compare_exchange_strong(&state, &expected,
						       STARTING))
		return;
	started = true;
	tls.busy = 1;
	next_resolve();	/* before any call is forwarded */
	if (!next_getattr)
		next_getattr = (getattr_fn)real_sym("pthread_getattr_np");
	if (!next_fork)
		next_fork = (fork_fn)real_sym("_Fork");
	if (!parse_env(&shm, &fd, &ino, &sino, sock_name))
		goto off;
	sock = sock_number = fd;
	if (fstat(shm, &st) || (unsigned long long)st.st_ino != ino) {
		/* an image before this one closed it, or put another file
		 * in its place */
		sock = -1;
		shm = fetch_segment(ino);
		fresh = sock >= 0;
		if (shm < 0)
			goto off_close;
		p = mmap(NULL, sizeof(*hdr), PROT_READ | PROT_WRITE,
			 MAP_SHARED, shm, 0);
		close(shm);
	} else {
		shm_fd = shm;
		p = map_segment(shm, ino);
	}
	if (p == MAP_FAILED)
		goto off_close;
	hdr = p;
	old = 0;
	if (hdr->magic != HEAP_MAGIC || hdr->version != HEAP_VERSION) {
		/* not ours to trace: let go of what we inherited */
		munmap(p, sizeof(*hdr));
		hdr = NULL;
		close_fds();
		goto off;
	}
	old = claim();
	if (fresh) {
		/* connected already */
	} else if (my_pid != hdr->owner_pid) {
		/* another process of the tree: the socket it inherited (a
		 * posix_spawn, system) is the program's, which two processes
		 * must not write to; a connection of its own */
		if (!fstat(sock, &st) && S_ISSOCK(st.st_mode) &&
		    (unsigned long long)st.st_ino == sino)
			close(sock);
		sock = -1;
		if (!reconnect())
			stop_sending();
	} else if (fstat(sock, &st) || !S_ISSOCK(st.st_mode) ||
		   (unsigned long long)st.st_ino != sino) {
		/* an image before closed or replaced the socket (or this is
		 * an image after an exec, and ours was close-on-exec) */
		sock = -1;
		if (!reconnect())
			stop_sending();
	} else {
		sock_dev = st.st_dev;
		sock_ino = st.st_ino;
	}
	sample_bytes = hdr->sample_bytes;
	sample_window_ns = heap_throttle_window_ns(hdr->sample_rate);
	ring_n = hdr->ring >= 1 && hdr->ring <= HEAP_RING ? hdr->ring : 1;
	use_tsc = hdr->clock == 1;
	max_depth = hdr->max_depth && hdr->max_depth <= HEAP_MAX_DEPTH ?
		    hdr->max_depth : HEAP_MAX_DEPTH;
	p = mmap(NULL, sizeof(uint64_t) << SEEN_BITS, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || pthread_key_create(&thread_key, thread_exit))
		goto off;
	seen = p;
	pthread_atfork(sample_fork_prepare, sample_fork_parent,
		       after_fork_child);
	text_of((uintptr_t)start, &agent_lo, &agent_hi);
	if (hdr->unwind == HEAP_UNWIND_DWARF)
		load_libunwind();
	use_unw = unw_getctx != NULL;
	if (sample_bytes)
		sample_setup();
	py_detect();
	check_maps();
	if (old)
		record_exec(old);
	tls.busy = 0;
	atomic_store(&state, ON);
	return;
off_close:
	if (fresh && sock >= 0)
		close(sock);
	sock = -1;
off:
	tls.busy = 0;
	atomic_store(&state, OFF);
}

__attribute__((constructor)) static void agent_init(void)
{
	start();
}

/*
 * This process's peak RSS, as the kernel keeps it for this image (wait4's
 * would include the memory of the process that spawned it), into the
 * tree's largest (exit_hwm), at its end: exit's, or _exit's (a forked
 * child of multiprocessing ends by os._exit). Any process of the tree,
 * not a vfork child (its parent's memory). Also when tracing stopped
 * early: hdr stays mapped then. System calls only.
 */
static void note_hwm(void)
{
	char buf[4096];
	const char *p;
	uint64_t hwm, was;

	if (!hdr || my_pid != getpid() ||
	    heap_read_proc("/proc/self/status", buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "\nVmHWM:")))
		return;
	hwm = strtoull(p + 8, NULL, 10) * 1024;
	was = __atomic_load_n(&hdr->exit_hwm, __ATOMIC_RELAXED);
	while (hwm > was &&
	       !__atomic_compare_exchange_n(&hdr->exit_hwm, &was, hwm, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/*
 * libstdc++'s release of what it keeps for the process's life (the
 * emergency pool for exceptions thrown when malloc fails, 72,704 bytes
 * allocated at its start in GCC 12): a weak reference, bound when the
 * program links libstdc++ (a failing dlsym would allocate its error).
 * heaptrack and valgrind call it at the end too, so that a C++ program
 * does not leak 71 KiB that no code of its own allocated.
 */
extern void agent_cxx_freeres(void) __asm__("_ZN9__gnu_cxx9__freeresEv")
	__attribute__((weak));

/* The image's end by exit: its counts published, its peak RSS noted. */
__attribute__((destructor)) static void agent_fini(void)
{
	/* last of the program's destructors (the agent was loaded first):
	 * libstdc++'s are done */
	if (hdr && my_pid == getpid() && agent_cxx_freeres)
		agent_cxx_freeres();
	/* sampled mode's counts, every thread's; this thread's later calls
	 * (other libraries' destructors) publish theirs at once (leave) */
	if (hdr && my_pid == getpid()) {
		atomic_store(&ending, true);
		fast_close(&tls);
		counts_publish_all();
	}
	note_hwm();
	heap_stats_print();
}
