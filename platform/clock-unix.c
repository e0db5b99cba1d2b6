#define _POSIX_C_SOURCE 200809L
#include "clock.h"

#include <errno.h>
#include <time.h>

uint64_t
ls_clock_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

void
ls_sleep_ms (uint32_t ms)
{
  struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

void
ls_sleep_us (uint32_t us)
{
  struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long) (us % 1000000) * 1000L };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}
