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

static void after_fork_child(void)
{
	/* the child is not traced: it shares the segment with its parent */
	atomic_store(&state, OFF);
	tls.sample_left = 0;	/* the fast path closed */
	tls.slot = NULL;
	hdr = NULL;
	close_fds();
}

/*
 * Is this process the one to trace? It is if it is the first to claim
 * the segment, or if it claimed it before an exec: then the old image's
 * threads are gone, and their slots (records and all) are taken over.
 */
static bool claim(void)
{
	int none = 0, self = getpid();

	if (atomic_compare_exchange_strong((_Atomic int32_t *)&hdr->owner_pid,
					   &none, self)) {
		generation = 1;
		hdr->generation = 1;
		return true;
	}
	if (none != self)
		return false;
	generation = ++hdr->generation;
	for (int i = 0; i < HEAP_SLOTS; i++)
		atomic_store((_Atomic uint32_t *)&hdr->slots[i].state, 0);
	return true;
}

/* The exec that started this image, in the first thread's slot. */
static void record_exec(void)
{
	struct heap_slot *s = slot_take();
	uint64_t *w;

	if (!s)
		return;
	w = reserve(s, 2);
	if (w) {
		w[0] = ((uint64_t)HEAP_REC_EXEC << HEAP_TYPE_SHIFT) | stamp();
		w[1] = generation;
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

static void start(void)
{
	int expected = OFF, shm, fd;
	unsigned long long ino, sino;
	bool fresh = false;	/* sock is a new connection */
	struct stat st;
	void *p;

	if (started || !atomic_compare_exchange_strong(&state, &expected,
						       STARTING))
		return;
	started = true;
	tls.busy = 1;
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
	if (hdr->magic != HEAP_MAGIC || hdr->version != HEAP_VERSION ||
	    !claim()) {
		/* not ours to trace: let go of what we inherited */
		munmap(p, sizeof(*hdr));
		hdr = NULL;
		close_fds();
		goto off;
	}
	if (fresh) {
		/* connected already */
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
	ring_n = hdr->ring >= 1 && hdr->ring <= HEAP_RING ? hdr->ring : 1;
	use_tsc = hdr->clock == 1;
	max_depth = hdr->max_depth && hdr->max_depth <= HEAP_MAX_DEPTH ?
		    hdr->max_depth : HEAP_MAX_DEPTH;
	p = mmap(NULL, sizeof(uint64_t) << SEEN_BITS, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || pthread_key_create(&thread_key, thread_exit))
		goto off;
	seen = p;
	pthread_atfork(NULL, NULL, after_fork_child);
	text_of((uintptr_t)start, &agent_lo, &agent_hi);
	if (hdr->unwind == HEAP_UNWIND_DWARF)
		load_libunwind();
	use_unw = unw_getctx != NULL;
	if (sample_bytes && !sample_setup())
		goto off;
	py_detect();
	check_maps();
	if (generation > 1)
		record_exec();
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
 * The program's peak RSS, as the kernel keeps it for this image (wait4's
 * would include the memory of the process that spawned it, which the
 * program shared until its exec). Read with system calls only.
 */
__attribute__((destructor)) static void agent_fini(void)
{
	char buf[4096];
	const char *p;

	/* also when tracing stopped early: hdr stays mapped then */
	if (!hdr || hdr->owner_pid != getpid() ||
	    heap_read_proc("/proc/self/status", buf, sizeof(buf)) <= 0)
		return;
	p = strstr(buf, "\nVmHWM:");
	if (p)
		__atomic_store_n(&hdr->exit_hwm,
				 strtoull(p + 8, NULL, 10) * 1024,
				 __ATOMIC_RELEASE);
}
