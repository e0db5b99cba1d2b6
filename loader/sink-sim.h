/* The sim sink with a clock of the caller's choosing. By default it runs
 * in real time: the consumer waits where it would wait on a GPU. Given a
 * virtual clock (tests), its timeline is computed without sleeping, so
 * what it reports depends only on when batches were submitted, never on
 * how busy the machine is. */
#pragma once

#include <stdint.h>

#include "loader/sink.h"

typedef struct ls_sim_clock {
  uint64_t (*now_ns) (void *user);                   /* monotonic, ns */
  void (*wait_until_ns) (void *user, uint64_t t_ns); /* returns once now_ns() >= t_ns */
  void *user;
} ls_sim_clock;

/* ls_sink_sim_open() with a clock; NULL is real time (ls_clock_ns). */
int ls_sink_sim_open_clocked (const ls_sink_config *config, const ls_arena *arena, const ls_sim_clock *clock,
                              ls_sink **out, ls_error *err);
