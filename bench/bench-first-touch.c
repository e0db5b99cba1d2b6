/* The cost of a process's first access to each page of a shared mapping,
 * beside the guest kernel's own page faults: a MAP_SHARED anonymous region
 * (as the arena) populated by the parent (MADV_POPULATE_WRITE), a forked
 * child then writing floats over all of it twice. On a plain kernel the
 * child's first pass pays minor faults and the second none; on a VM whose
 * hypervisor shadows the guest's page tables the first pass stays slow
 * even with no guest fault at all (the hypervisor's own fault per page and
 * process, which no counter in the guest shows), and only a user-space
 * access to every page moves that cost out of the pass.
 *
 * Modes, side by side in one run, each REPEATS times (median):
 *   plain      the child writes twice
 *   populate   the child's own MADV_POPULATE_WRITE first
 *   touch      the child writes one byte per page first
 *   huge       a private anonymous region with MADV_HUGEPAGE (THP where the
 *              system allows it for anonymous memory), in the child
 *   hugetlb    the shared region in reserved 2 MiB pages (MAP_HUGETLB, as
 *              the arena gets them where vm.nr_hugepages covers it); left
 *              out, and said so, where none are reserved
 *
 *   build/bench/bench-first-touch [MB] [REPEATS]   (default 160 MB, 3) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader/stats.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

enum { PLAIN, POPULATE, TOUCH, HUGE, HUGETLB, N_MODES };
static const char *const mode_names[N_MODES] = { "plain", "populate", "touch", "huge", "hugetlb" };
#define NO_HUGETLB 2

typedef struct {
  double before_ms, first_ms, second_ms;
  long first_faults;
} result;

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long
minor_faults (void)
{
  struct rusage r;
  getrusage (RUSAGE_SELF, &r);
  return r.ru_minflt;
}

static void
write_floats (char *a, size_t n, float k)
{
  float *f = (float *) a;
  for (size_t i = 0; i < n / sizeof (float); i++)
    f[i] = (float) i * k;
}

/* In the child: the mode's preparation, then two timed passes. */
static result
child_passes (int mode, char *shared, size_t n)
{
  result r = { 0 };
  char *a = shared;
  double t0 = now_ms ();
  if (mode == POPULATE && madvise (a, n, MADV_POPULATE_WRITE) != 0)
    perror ("bench-first-touch: MADV_POPULATE_WRITE in the child");
  if (mode == TOUCH)
    for (size_t i = 0; i < n; i += 4096)
      ((volatile char *) a)[i] = 1;
  if (mode == HUGE)
    {
      a = mmap (NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (a == MAP_FAILED)
        {
          perror ("bench-first-touch: mmap");
          _exit (1);
        }
      madvise (a, n, MADV_HUGEPAGE);
      if (madvise (a, n, MADV_POPULATE_WRITE) != 0)
        perror ("bench-first-touch: MADV_POPULATE_WRITE (huge)");
    }
  double t1 = now_ms ();
  long f0 = minor_faults ();
  write_floats (a, n, 0.5f);
  double t2 = now_ms ();
  r.first_faults = minor_faults () - f0;
  write_floats (a, n, 0.25f);
  double t3 = now_ms ();
  r.before_ms = t1 - t0;
  r.first_ms = t2 - t1;
  r.second_ms = t3 - t2;
  return r;
}

static int
run_once (int mode, size_t n, result *out)
{
  int flags = MAP_SHARED | MAP_ANONYMOUS | (mode == HUGETLB ? MAP_HUGETLB : 0);
  char *a = mmap (NULL, n, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (a == MAP_FAILED && mode == HUGETLB)
    return NO_HUGETLB;
  if (a == MAP_FAILED)
    {
      perror ("bench-first-touch: mmap");
      return -1;
    }
  if (madvise (a, n, MADV_POPULATE_WRITE) != 0)
    perror ("bench-first-touch: MADV_POPULATE_WRITE in the parent");
  int fd[2];
  if (pipe (fd) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid == 0)
    {
      close (fd[0]);
      result r = child_passes (mode, a, n);
      _exit (write (fd[1], &r, sizeof r) == (ssize_t) sizeof r ? 0 : 1);
    }
  close (fd[1]);
  ssize_t got = read (fd[0], out, sizeof *out);
  close (fd[0]);
  int status = 0;
  waitpid (pid, &status, 0);
  munmap (a, n);
  return got == (ssize_t) sizeof *out && WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : -1;
}

int
main (int argc, char **argv)
{
  size_t mb = argc > 1 ? strtoul (argv[1], NULL, 10) : 160;
  int repeats = argc > 2 ? atoi (argv[2]) : 3;
  if (mb < 1 || mb > 4096 || repeats < 1 || repeats > 50)
    {
      fprintf (stderr, "usage: bench-first-touch [MB 1-4096] [REPEATS 1-50]\n");
      return 2;
    }
  size_t n = mb << 20;
  double pages = (double) n / 4096;
  printf ("bench-first-touch: %zu MB shared anonymous (%.0f pages of 4 KiB), populated by the parent, "
          "written twice by a forked child; %d repeats, medians\n", mb, pages, repeats);
  printf ("%-9s %12s %12s %12s %10s %14s\n", "mode", "before ms", "1st pass ms", "2nd pass ms", "1st/2nd",
          "1st-2nd us/pg");
  for (int mode = 0; mode < N_MODES; mode++)
    {
      double before[50], first[50], second[50];
      long faults = 0;
      int done = 0;
      for (int i = 0; i < repeats; i++, done++)
        {
          result r;
          int rc = run_once (mode, n, &r);
          if (rc == NO_HUGETLB)
            {
              printf ("%-9s no reserved 2 MiB pages for %zu MB (vm.nr_hugepages; root: sysctl vm.nr_hugepages=%zu)\n",
                      mode_names[mode], mb, (mb + 1) / 2 + 1);
              break;
            }
          if (rc != 0)
            {
              fprintf (stderr, "bench-first-touch: %s: the child failed\n", mode_names[mode]);
              return 1;
            }
          before[i] = r.before_ms;
          first[i] = r.first_ms;
          second[i] = r.second_ms;
          faults = r.first_faults;
        }
      if (done < repeats)
        continue;
      double b = ls_median (before, (size_t) repeats), f = ls_median (first, (size_t) repeats),
             s = ls_median (second, (size_t) repeats);
      printf ("%-9s %12.1f %12.1f %12.1f %10.2f %14.2f   (guest minor faults in the 1st pass: %ld)\n",
              mode_names[mode], b, f, s, f / s, (f - s) * 1e3 / pages, faults);
    }
  return 0;
}
