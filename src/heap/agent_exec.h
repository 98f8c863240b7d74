/*
 * The exec family, _exit and _Fork, wrapped by the agent (included by
 * agent.c only): an exec ends the program image and every block in it.
 * An image with the agent records that itself (HEAP_REC_EXEC when its
 * agent starts); one without (a static program, a set-user-ID one, one
 * started with LD_PRELOAD removed) cannot, so the exec is announced
 * before it is made and withdrawn if it fails. glibc's own execs (posix_spawn, execvp's
 * search) call the kernel directly: wrapping the entry points is enough.
 * A vfork child runs in its parent's memory: it must not write, so only
 * the traced process itself records.
 */
#include <stdarg.h>
#include <sys/syscall.h>

static void note_exec(uint32_t type)
{
	struct tstate *t = &tls;
	struct heap_slot *s;
	bool borrowed;
	uint64_t *w;

	if (atomic_load(&state) != ON || t->busy || !hdr ||
	    my_pid != getpid())
		return;
	/* an exec ends every thread: their counts first (withdrawn, the
	 * exec changed nothing) */
	if (type == HEAP_REC_EXEC_PENDING)
		counts_publish_all();
	/* the image that takes this process over after it is ours */
	if (type != HEAP_REC_END && generation < HEAP_IMAGES)
		__atomic_store_n(&hdr->images[generation].exec_pending,
				 type == HEAP_REC_EXEC_PENDING,
				 __ATOMIC_RELEASE);
	t->busy = 1;
	fast_close(t);
	if (!t->slot && !t->dead &&
	    !thread_start(t, (uintptr_t)__builtin_frame_address(0))) {
		t->busy = 0;
		return;
	}
	s = slot_of(t, &borrowed);
	if (s && (w = reserve(s, 2))) {
		w[0] = ((uint64_t)type << HEAP_TYPE_SHIFT) | stamp();
		w[1] = generation;
		commit(s, 2);
	}
	if (s && borrowed)
		slot_give(s);
	leave(t);
}

#define REAL(name, type)						\
	static type real_##name;					\
	if (!real_##name)						\
		real_##name = (type)real_sym(#name)

/* Around the real call: announce, call, withdraw on failure. */
#define EXEC_AROUND(call)						\
	do {								\
		int r_, e_;						\
		note_exec(HEAP_REC_EXEC_PENDING);			\
		r_ = (call);						\
		e_ = errno;						\
		note_exec(HEAP_REC_EXEC_FAILED);			\
		errno = e_;						\
		return r_;						\
	} while (0)

/*
 * _exit, which a forked child calls at its end (multiprocessing's fork
 * children: os._exit): the end of its blocks, stamped. exit()'s own end
 * is the kernel's call: yardstick sees such an end from outside
 * (collect.c, watch_procs), as a kill's.
 */
EXPORT void _exit(int status)
{
	/* sampled mode's counts: no destructor runs (not in a vfork child,
	 * which is its parent's memory) */
	if (hdr && my_pid == getpid())
		counts_publish_all();
	note_hwm();
	if (hdr && my_pid != hdr->owner_pid && my_pid == getpid()) {
		note_exec(HEAP_REC_END);
		/* this thread writes no more: its slot goes back at once
		 * (those of other threads when yardstick sees the end) */
		tls.busy = 1;
		fast_close(&tls);
		counts_give(&tls);
		if (tls.slot)
			slot_give(tls.slot);
		tls.slot = NULL;
		tls.dead = 1;
	}
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _Exit(int status)
{
	_exit(status);
}

/*
 * _Fork (glibc 2.34), the fork a signal handler may call: it runs no
 * atfork handler, so its child would go on writing into the slot of its
 * parent's thread (tests/cli/mem_forkin.sh: a child's records in its
 * parent's slot broke the parent's stacks, the children were not
 * processes of the tree). Its child becomes an image of its own as a
 * fork's does (after_fork_child: system calls only). glibc's fork calls
 * its own _Fork, not this one.
 */
EXPORT pid_t _Fork(void)
{
	pid_t pid;

	if (!next_fork) {
		errno = ENOSYS;
		return -1;
	}
	pid = next_fork();
	if (pid == 0)
		after_fork_child();
	return pid;
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[],
			   int);

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve, execve_fn);
	EXEC_AROUND(real_execve(path, argv, envp));
}

EXPORT int execv(const char *path, char *const argv[])
{
	REAL(execv, execv_fn);
	EXEC_AROUND(real_execv(path, argv));
}

EXPORT int execvp(const char *file, char *const argv[])
{
	REAL(execvp, execv_fn);
	EXEC_AROUND(real_execvp(file, argv));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe, execve_fn);
	EXEC_AROUND(real_execvpe(file, argv, envp));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	REAL(fexecve, fexecve_fn);
	EXEC_AROUND(real_fexecve(fd, argv, envp));
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[],
		    char *const envp[], int flags)
{
	REAL(execveat, execveat_fn);
	EXEC_AROUND(real_execveat(dirfd, path, argv, envp, flags));
}

/* execl, execlp, execle: their arguments into an array on the stack. */
#define LIST_ARGS(arg0, ap, argv, envp_out)				\
	size_t n_ = 1;							\
	va_start(ap, arg0);						\
	while (va_arg(ap, char *))					\
		n_++;							\
	va_end(ap);							\
	char *argv[n_ + 1];						\
	argv[0] = (char *)(arg0);					\
	va_start(ap, arg0);						\
	for (size_t i_ = 1; i_ <= n_; i_++)				\
		argv[i_] = va_arg(ap, char *);				\
	envp_out;							\
	va_end(ap)

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;

	LIST_ARGS(arg, ap, argv, (void)0);
	return execv(path, argv);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;

	LIST_ARGS(arg, ap, argv, (void)0);
	return execvp(file, argv);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	va_list ap;

	LIST_ARGS(arg, ap, argv, envp = va_arg(ap, char *const *));
	return execve(path, argv, envp);
}
