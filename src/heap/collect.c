/*
 * Running a program under the heap agent and taking in its records: see
 * collect.h. Here: the shared segment, the listener, the program started
 * with the agent preloaded, the clock's calibration and the wait; the
 * reader thread is collect_reader.c (its state, struct reader, in
 * collect_internal.h).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <x86intrin.h>

#include "heap/analyze.h"
#include "heap/collect_internal.h"
#include "util/child.h"
#include "util/strutil.h"
#include "util/monoclock.h"
#include "util/stop.h"

/* ---- the clock ---------------------------------------------------------- */

/* Is the TSC the same clock on every CPU, at a constant rate? */
static bool tsc_invariant(void)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool constant = false, nonstop = false;

	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(fp);
	return constant && nonstop;
}

/* ---- spawning ----------------------------------------------------------- */

/* The environment the program gets on top of ours (child.h, env_add):
 * LD_PRELOAD naming the agent first, and our variable. */
static void child_env(char *add[3], const char *agent, int shm, int sock,
		      unsigned long long ino, unsigned long long sino,
		      const char *name)
{
	const char *preload = getenv("LD_PRELOAD");

	add[0] = preload && *preload
		? xasprintf("LD_PRELOAD=%s:%s", agent, preload)
		: xasprintf("LD_PRELOAD=%s", agent);
	add[1] = xasprintf("%s=%d,%d,%llu,%llu,%s", HEAP_ENV, shm, sock, ino,
			   sino, name);
	add[2] = NULL;
}

/*
 * The descriptor numbers the agent gets: high, out of the way of the
 * program's own (which takes the lowest free ones), below the limit.
 */
static void agent_fds(int *shm, int *sock)
{
	struct rlimit rl;
	long top = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)top)
		top = (long)rl.rlim_cur;
	*shm = (int)top - 2;
	*sock = (int)top - 1;
}

/*
 * The buffers of each slot's ring the agent is to use: HEAP_RING, or
 * YARDSTICK_HEAP_RING (1 to HEAP_RING; 1: every chunk through the socket,
 * to try that path).
 */
static bool ring_buffers(uint32_t *n, struct error *e)
{
	const char *v = getenv("YARDSTICK_HEAP_RING");
	char *end;
	long k;

	*n = HEAP_RING;
	if (!v)
		return true;
	errno = 0;
	k = strtol(v, &end, 10);
	if (errno || end == v || *end || k < 1 || k > HEAP_RING) {
		error_set(e, "YARDSTICK_HEAP_RING: expected 1 to %d, got '%s'",
			  HEAP_RING, v);
		return false;
	}
	*n = (uint32_t)k;
	return true;
}

/*
 * YARDSTICK_HEAP_UNWIND=full: every libunwind walk of the agent's a full
 * one (agent_unwind.h), the reference its cache and fast trace are tested
 * against. Unset: the cheapest walk that gives the same frames.
 */
static bool unwind_full(bool *full, struct error *e)
{
	const char *v = getenv("YARDSTICK_HEAP_UNWIND");

	*full = false;
	if (!v || !*v)
		return true;
	if (strcmp(v, "full")) {
		error_set(e, "YARDSTICK_HEAP_UNWIND: expected 'full', got '%s'",
			  v);
		return false;
	}
	*full = true;
	return true;
}

/* What yardstick's own work under mem takes of its address space besides
 * the segment, at the least: the reader thread's stack and its buffers
 * (a larger program's records and replay take more). */
#define HEAP_AS_OWN ((size_t)16 << 20)

/* The address space this process maps now (/proc/self/statm's first
 * field), 0 if unknown. */
static size_t mapped_now(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

size_t heap_segment_bytes(void)
{
	return sizeof(struct heap_header);
}

int heap_address_room(size_t *limit, struct error *e)
{
	size_t seg = heap_segment_bytes(), used = mapped_now();
	struct rlimit rl;

	*limit = 0;
	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	*limit = (size_t)rl.rlim_cur;
	if ((rlim_t)(used + seg + HEAP_AS_OWN) <= rl.rlim_cur)
		return 0;
	return error_set(e, "the address-space limit (ulimit -v) of %llu "
			 "MiB leaves no room for mem: its agent's buffers "
			 "take %zu MiB of address space in yardstick and again "
			 "in the program, and yardstick needs %zu MiB at the "
			 "least; raise the limit, or lift it",
			 (unsigned long long)(rl.rlim_cur >> 20), seg >> 20,
			 (used + seg + HEAP_AS_OWN + ((size_t)1 << 20) - 1) >>
			 20);
}

static struct heap_header *make_segment(const struct heap_opts *o, int *fd,
					struct error *e)
{
	struct heap_header *h;
	uint32_t ring;
	bool full;

	if (!ring_buffers(&ring, e) || !unwind_full(&full, e))
		return NULL;

	*fd = memfd_create("yardstick-heap", MFD_CLOEXEC);
	if (*fd < 0) {
		error_errno(e, errno, "cannot create the heap agent's memory");
		return NULL;
	}
	if (ftruncate(*fd, sizeof(*h))) {
		error_errno(e, errno, "cannot size the heap agent's memory");
		return NULL;
	}
	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (h == MAP_FAILED) {
		error_errno(e, errno, "cannot map the heap agent's memory");
		return NULL;
	}
	h->magic = HEAP_MAGIC;
	h->version = HEAP_VERSION;
	h->sample_bytes = o->sample_bytes;
	h->sample_rate = o->sample_rate;
	h->unwind = o->unwind;
	h->max_depth = o->max_depth;
	h->ring = ring;
	h->full_walks = full;
	h->python = o->python;
	return h;
}

/*
 * The segment read-only, for the program (protocol.h): a new open of the
 * memfd through /proc. Without /proc, shm itself.
 */
static int readonly_fd(int shm)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", shm);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : fcntl(shm, F_DUPFD_CLOEXEC, 0);
}

static int start(const struct heap_opts *o, struct child *c,
		 struct heap_header *h, int shm, int sock[2], const char *name,
		 struct heap_trace *t, struct error *e)
{
	int bufsize = 4 << 20, ro = readonly_fd(shm), to[2];
	struct child_fd_map maps[2];
	struct stat st, sst;
	char *env[3];
	int r;

	if (ro < 0 || fstat(ro, &st)) {
		r = error_errno(e, errno, "cannot pass the heap agent its "
				"descriptors");
		goto out;
	}
	setsockopt(sock[0], SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof(bufsize));
	setsockopt(sock[1], SOL_SOCKET, SO_SNDBUF, &bufsize, sizeof(bufsize));
	h->clock = tsc_invariant() ? 1 : 0;
	agent_fds(&to[0], &to[1]);
	t->shm_fd = to[0];
	t->sock_fd = to[1];
	if (fstat(sock[1], &sst)) {
		r = error_errno(e, errno, "cannot pass the heap agent its "
				"descriptors");
		goto out;
	}
	child_env(env, o->agent, to[0], to[1], (unsigned long long)st.st_ino,
		  (unsigned long long)sst.st_ino, name);
	/* the segment and the socket at the agent's numbers; in our process
	 * group, so that a terminal's Ctrl-C reaches the program */
	maps[0] = (struct child_fd_map){ ro, to[0] };
	maps[1] = (struct child_fd_map){ sock[1], to[1] };
	c->env_add = (const char *const *)env;
	c->maps = maps;
	c->nmaps = 2;
	if (o->stdout_to_stderr) {
		c->io[1] = CHILD_IO_FD;
		c->fd[1] = STDERR_FILENO;
	}
	t->ts0 = h->clock ? (__rdtsc() & HEAP_TS_MASK)
			  : ((uint64_t)(monoclock_s() * 1e9) & HEAP_TS_MASK);
	r = child_start(c, e);
	t->pid = c->pid;
	c->env_add = NULL;
	c->maps = NULL;
	free(env[0]);
	free(env[1]);
out:
	close(sock[1]);
	sock[1] = -1;
	if (ro >= 0)
		close(ro);
	return r;
}

/* The TSC's rate from two readings of both clocks around the run. */
static void calibrate(struct heap_trace *t, const struct heap_header *h,
		      double s0, double s1)
{
	uint64_t tsc1 = __rdtsc() & HEAP_TS_MASK;

	t->ticks_per_s = 1e9;
	if (h->clock && s1 > s0 && tsc1 > t->ts0)
		t->ticks_per_s = (double)(tsc1 - t->ts0) / (s1 - s0);
}

/*
 * The listening socket the agent connects to again (protocol.h), at an
 * abstract name of its own (random: other users' processes see the names
 * in /proc/net/unix, and a connection from any process but the traced
 * one is refused), into name. -1 with a message on failure.
 */
static int make_listener(char *name, struct error *e)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	unsigned char rnd[8] = { 0 };
	size_t len;
	int fd;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		/* in integers: the product in a double was out of
		 * uint64_t's range (undefined when converted back) */
		uint64_t x = (uint64_t)(monoclock_s() * 1e9) *
			     0x9e3779b97f4a7c15u;

		memcpy(rnd, &x, sizeof(rnd));
	}
	snprintf(name, HEAP_NAME_MAX + 1, "yardstick-heap-%d-"
		 "%02x%02x%02x%02x%02x%02x%02x%02x", (int)getpid(), rnd[0],
		 rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	len = strlen(name);
	memcpy(a.sun_path + 1, name, len);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				       1 + len)) || listen(fd, 128)) {
		error_errno(e, errno, "cannot create the heap agent's socket");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int heap_collect(const struct heap_opts *o, const char *path,
		 char *const *argv, struct heap_trace *t, struct error *e)
{
	struct reader r = { .t = t, .listener = -1, .status = -1,
			    .statm = -1 };
	char name[HEAP_NAME_MAX + 1];
	struct heap_header *h;
	struct sigaction ign, old_quit;
	struct child c = { .path = path, .argv = argv, .die_with_us = true,
			   .interrupt = o->interrupt };
	sigset_t stops, old_mask;
	pthread_t thread;
	int shm = -1, sock[2] = { -1, -1 }, ret = -1;
	double s0, t_maxrss;

	memset(t, 0, sizeof(*t));
	t->sample_bytes = o->sample_bytes;
	t->sample_rate = o->sample_rate;
	t->max_depth = o->max_depth;
	if (o->replay_live)
		t->live = heap_live_new(t);
	h = make_segment(o, &shm, e);
	if (!h)
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock)) {
		error_errno(e, errno, "cannot create the heap agent's socket");
		goto out;
	}
	r.listener = make_listener(name, e);
	if (r.listener < 0)
		goto out;
	/* A terminal's Ctrl-\ is for the program: yardstick stays to
	 * report. Its Ctrl-C reaches both: the caller's stop handler
	 * (stop.h) sets o->interrupt, and the program is killed. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &ign, &old_quit);
	s0 = monoclock_s();
	if (start(o, &c, h, shm, sock, name, t, e))
		goto out_signals;
	r.shm = shm;
	r.h = h;
	r.ts0 = t->ts0;
	r.tsc = h->clock != 0;
	r.conns = xgrow(NULL, &r.capconns, 1, sizeof(*r.conns));
	r.conns[0] = (struct conn){ .fd = sock[0] };
	sock[0] = -1;
	r.nconns = 1;
	r.pid = t->pid;
	r.t0 = s0;
	r.rss_interval = o->rss_interval > 0 ? o->rss_interval : 0.01;
	r.page = sysconf(_SC_PAGESIZE);
	/* the stop signals must reach this thread, which waits */
	stop_signal_set(&stops);
	pthread_sigmask(SIG_BLOCK, &stops, &old_mask);
	if (pthread_create(&thread, NULL, heap_reader_main, &r)) {
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
		error_set(e, "cannot start the heap reader thread");
		child_kill(&c);
		goto out_signals;
	}
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (child_wait(&c, e)) {
		r.done = 1;
		pthread_join(thread, NULL);
		goto out_signals;
	}
	t->status = c.status;
	t->interrupted = c.interrupted;
	t->strays = c.strays;
	memcpy(t->stray_names, c.stray_names, sizeof(t->stray_names));
	t->duration = monoclock_s() - s0;
	t_maxrss = (double)c.ru.ru_maxrss * 1024;
	r.done = 1;
	pthread_join(thread, NULL);
	calibrate(t, h, s0, s0 + t->duration);
	heap_take_remainders(&r, h);
	/* wait4's figure includes the memory of yardstick, which the child
	 * shared until its exec: the program's own is its VmHWM, read by the
	 * agent at exit and sampled from /proc while it ran */
	t->peak_rss = t->hwm > 0 ? t->hwm : t_maxrss;
	ret = 0;
out_signals:
	sigaction(SIGQUIT, &old_quit, NULL);
out:
	for (int i = 0; i < r.nconns; i++) {
		if (r.conns[i].fd >= 0)
			close(r.conns[i].fd);
		free(r.conns[i].buf);
	}
	free(r.conns);
	free(r.polls);
	free(r.peek);
	free(r.watch);
	if (r.listener >= 0)
		close(r.listener);
	if (r.status >= 0)
		close(r.status);
	if (r.statm >= 0)
		close(r.statm);
	if (h && h != MAP_FAILED)
		munmap(h, sizeof(*h));
	for (int i = 0; i < 2; i++)
		if (sock[i] >= 0)
			close(sock[i]);
	if (shm >= 0)
		close(shm);
	return ret;
}

void heap_trace_free(struct heap_trace *t)
{
	heap_live_free(t->live);
	for (int i = 0; i < HEAP_SLOTS; i++) {
		free(t->streams[i].words);
		free(t->streams[i].stacks);
	}
	for (size_t i = 0; i < t->nmaps; i++)
		free(t->maps[i]);
	free(t->maps);
	free(t->maps_gen);
	free(t->maps_unloads);
	free(t->rss);
	free(t->images);
	free(t->ends);
	memset(t, 0, sizeof(*t));
}
