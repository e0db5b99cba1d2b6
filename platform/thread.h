/* Threads and mutexes, for the few background jobs of a runner (sampling
 * memory and CPU while batches flow). */
#pragma once

#include <stdint.h>

#include "error.h"

typedef struct ls_thread ls_thread;
typedef struct ls_mutex ls_mutex;

int ls_thread_start (ls_thread **out, void (*fn) (void *arg), void *arg, ls_error *err);

/* Waits for the thread to return, then frees it. */
void ls_thread_join (ls_thread *thread);

/* CPU time (user + system) the calling thread has used, in ns. */
uint64_t ls_thread_cpu_ns (void);

/* A guard fork() waits for (pthread_atfork): a background thread holds it
 * around each burst of work (allocating, reading /proc), so a child is
 * never forked while that thread is inside malloc or a lock. No-ops on
 * Windows, which has no fork. */
void ls_fork_guard_enter (void);
void ls_fork_guard_leave (void);

ls_mutex *ls_mutex_new (void);
void ls_mutex_lock (ls_mutex *mutex);
void ls_mutex_unlock (ls_mutex *mutex);
void ls_mutex_free (ls_mutex *mutex);
