/* Monotonic time. */
#pragma once

#include <stdint.h>

/* Nanoseconds from an arbitrary fixed point; never goes backwards. */
uint64_t ls_clock_ns (void);

void ls_sleep_ms (uint32_t ms);
