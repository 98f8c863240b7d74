/*
 * Where to read a process's memory views in /proc: its maps, its exe,
 * the memory process_vm_readv reads. They belong to the thread group's
 * memory, but /proc/PID/... answers through the main thread: once it
 * has called pthread_exit while other threads run (a zombie leader),
 * /proc/PID/maps reads empty, /proc/PID/exe cannot be read and
 * process_vm_readv(PID) fails with ESRCH. A live thread's
 * /proc/PID/task/TID/... still has them all.
 */
#ifndef YS_UTIL_PROCDIR_H
#define YS_UTIL_PROCDIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* "/proc/PID/NAME" (name: "maps", "exe"), or "/proc/PID/task/TID/NAME"
 * for a live thread TID when the main thread has ended (below), into
 * buf. */
void procdir_path(uint32_t pid, const char *name, char *buf, size_t size);

/*
 * A process's memory read with process_vm_readv through one of its
 * threads: pid while its main thread runs, else the first thread
 * listed in /proc/PID/task that is not a zombie. When a read fails because that thread has ended
 * (ESRCH: the main thread called pthread_exit, or the thread picked
 * exited since), the thread is picked again and the read tried once
 * more: the process stays readable while any thread of it runs. The
 * choice is kept in the struct, so every read of one process goes
 * through one procdir_mem (a copy would be left with a thread that
 * ended, and pick again on its own).
 */
struct procdir_mem {
	uint32_t pid;
	uint32_t tid;		/* read through; 0: none alive at the pick */
	unsigned long repicks;	/* threads picked again (for tests) */
};

void procdir_mem_init(struct procdir_mem *m, uint32_t pid);

/* process_vm_readv of n ranges, local[i] from remote[i], through m's
 * thread: 0 when every byte was read, else -1 (an address not mapped,
 * the process gone). */
int procdir_mem_readv(struct procdir_mem *m, const struct iovec *local,
		      const struct iovec *remote, unsigned long n);

#endif
