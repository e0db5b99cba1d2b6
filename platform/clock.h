/* Monotonic time. */
#pragma once

#include <stdint.h>

/* Nanoseconds from an arbitrary fixed point; never goes backwards. */
uint64_t ls_clock_ns (void);

void ls_sleep_ms (uint32_t ms);

/* Microsecond sleep (Windows rounds up to its timer's resolution). */
void ls_sleep_us (uint32_t us);
