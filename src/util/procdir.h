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

/* A thread of process pid whose memory views can be read: pid itself
 * while its main thread runs (or when nothing else can be told), else
 * the first thread listed in /proc/PID/task that is not a zombie (0 when
 * none is: the process has ended). */
uint32_t procdir_live_tid(uint32_t pid);

/* "/proc/PID/NAME" (name: "maps", "exe"), or "/proc/PID/task/TID/NAME"
 * for the live thread TID of procdir_live_tid, into buf. */
void procdir_path(uint32_t pid, const char *name, char *buf, size_t size);

#endif
