#define _POSIX_C_SOURCE 200809L
#include "thread.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct ls_thread {
  pthread_t id;
  void (*fn) (void *arg);
  void *arg;
};

struct ls_mutex {
  pthread_mutex_t m;
};

static void *
trampoline (void *data)
{
  ls_thread *t = data;
  t->fn (t->arg);
  return NULL;
}

int
ls_thread_start (ls_thread **out, void (*fn) (void *arg), void *arg, ls_error *err)
{
  ls_thread *t = calloc (1, sizeof *t);
  int rc;

  *out = NULL;
  if (!t)
    return ls_error_set (err, LS_ERR_NOMEM, "thread: out of memory");
  t->fn = fn;
  t->arg = arg;
  rc = pthread_create (&t->id, NULL, trampoline, t);
  if (rc != 0)
    {
      free (t);
      return ls_error_set_os_code (err, rc, "pthread_create");
    }
  *out = t;
  return LS_OK;
}

void
ls_thread_join (ls_thread *thread)
{
  if (!thread)
    return;
  pthread_join (thread->id, NULL);
  free (thread);
}

uint64_t
ls_thread_cpu_ns (void)
{
  struct timespec ts;
  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static pthread_mutex_t fork_guard = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_guard_once = PTHREAD_ONCE_INIT;

static void
fork_guard_lock (void)
{
  pthread_mutex_lock (&fork_guard);
}

static void
fork_guard_unlock (void)
{
  pthread_mutex_unlock (&fork_guard);
}

static void
fork_guard_register (void)
{
  pthread_atfork (fork_guard_lock, fork_guard_unlock, fork_guard_unlock);
}

void
ls_fork_guard_enter (void)
{
  pthread_once (&fork_guard_once, fork_guard_register);
  pthread_mutex_lock (&fork_guard);
}

void
ls_fork_guard_leave (void)
{
  pthread_mutex_unlock (&fork_guard);
}

ls_mutex *
ls_mutex_new (void)
{
  ls_mutex *m = calloc (1, sizeof *m);
  if (m)
    pthread_mutex_init (&m->m, NULL);
  return m;
}

void
ls_mutex_lock (ls_mutex *mutex)
{
  pthread_mutex_lock (&mutex->m);
}

void
ls_mutex_unlock (ls_mutex *mutex)
{
  pthread_mutex_unlock (&mutex->m);
}

void
ls_mutex_free (ls_mutex *mutex)
{
  if (!mutex)
    return;
  pthread_mutex_destroy (&mutex->m);
  free (mutex);
}
