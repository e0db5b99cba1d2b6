#include "thread.h"

#include <stdlib.h>

#include <windows.h>

struct ls_thread {
  HANDLE handle;
  void (*fn) (void *arg);
  void *arg;
};

struct ls_mutex {
  SRWLOCK lock;
};

static DWORD WINAPI
trampoline (LPVOID data)
{
  ls_thread *t = data;
  t->fn (t->arg);
  return 0;
}

int
ls_thread_start (ls_thread **out, void (*fn) (void *arg), void *arg, ls_error *err)
{
  ls_thread *t = calloc (1, sizeof *t);

  *out = NULL;
  if (!t)
    return ls_error_set (err, LS_ERR_NOMEM, "thread: out of memory");
  t->fn = fn;
  t->arg = arg;
  t->handle = CreateThread (NULL, 0, trampoline, t, 0, NULL);
  if (!t->handle)
    {
      ls_error_set_os (err, "CreateThread");
      free (t);
      return LS_ERR_OS;
    }
  *out = t;
  return LS_OK;
}

void
ls_thread_join (ls_thread *thread)
{
  if (!thread)
    return;
  WaitForSingleObject (thread->handle, INFINITE);
  CloseHandle (thread->handle);
  free (thread);
}

uint64_t
ls_thread_cpu_ns (void)
{
  FILETIME created, ended, kernel, user;
  if (!GetThreadTimes (GetCurrentThread (), &created, &ended, &kernel, &user))
    return 0;
  uint64_t k = ((uint64_t) kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
  uint64_t u = ((uint64_t) user.dwHighDateTime << 32) | user.dwLowDateTime;
  return (k + u) * 100u; /* 100 ns units */
}

void
ls_fork_guard_enter (void)
{
}

void
ls_fork_guard_leave (void)
{
}

ls_mutex *
ls_mutex_new (void)
{
  ls_mutex *m = calloc (1, sizeof *m);
  if (m)
    InitializeSRWLock (&m->lock);
  return m;
}

void
ls_mutex_lock (ls_mutex *mutex)
{
  AcquireSRWLockExclusive (&mutex->lock);
}

void
ls_mutex_unlock (ls_mutex *mutex)
{
  ReleaseSRWLockExclusive (&mutex->lock);
}

void
ls_mutex_free (ls_mutex *mutex)
{
  free (mutex);
}
