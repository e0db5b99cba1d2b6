/* Monotonic time from the performance counter. */
#include "clock.h"

#include <windows.h>

uint64_t
ls_clock_ns (void)
{
  static LARGE_INTEGER freq; /* constant for the system's life; racing writers store the same value */
  LARGE_INTEGER now;

  if (freq.QuadPart == 0)
    QueryPerformanceFrequency (&freq);
  QueryPerformanceCounter (&now);
  /* Split so that ticks * 1e9 cannot overflow (it would after ~30 minutes at 10 MHz). */
  uint64_t f = (uint64_t) freq.QuadPart;
  uint64_t t = (uint64_t) now.QuadPart;
  return (t / f) * 1000000000ull + (t % f) * 1000000000ull / f;
}

void
ls_sleep_ms (uint32_t ms)
{
  Sleep ((DWORD) ms);
}

void
ls_sleep_us (uint32_t us)
{
  Sleep ((us + 999) / 1000);
}
