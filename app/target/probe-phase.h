/* Which phase a script run is in, and whether it outlived that phase's
 * allowance. Only progress moves the clock: the first event of the next
 * phase, or a batch while batches are due. Any other valid event (a probe
 * line repeated, stages, worker_ready lines) leaves it, so --timeout bounds
 * the whole run whatever the script writes to the channel.
 *
 * Two phases are starts, not the script's own work, and have the start's
 * allowance: Python starting and importing torch (until the probe's line),
 * and a worker set starting (from its "workers" line until its first
 * batch: a spawned worker imports torch and the script again). A set's
 * start is taken once per batch at most, so "workers" lines repeated
 * without batches never hold a run past it. */
#pragma once

#include <stdint.h>

#include "app/target/probe-line.h"

typedef enum {
  LS_PHASE_START,   /* Python starting, torch importing: until the probe's line */
  LS_PHASE_LOADER,  /* the script runs: until its DataLoader is built */
  LS_PHASE_WORKERS, /* a worker set starting: until the set's first batch */
  LS_PHASE_BATCHES, /* each batch within the allowance of the one before */
  LS_PHASE_ENDING,  /* it reported its end ("finished" or "error"): exiting */
  LS_PHASE_CLOSED,  /* it closed the channel: exiting */
} ls_phase_kind;

/* The start's own allowance: importing torch on a loaded machine can take
 * longer than a short --timeout, and the script has not run yet, so this
 * is not the script hanging (the probe's line is the readiness signal; for
 * a worker set, its first batch). The loader's pool gives a worker's start
 * the same bound (loader/pool.h). */
#define LS_PHASE_START_MIN_S 120.0

typedef struct {
  ls_phase_kind kind;
  uint64_t since_ns;     /* the last progress */
  double timeout_s;      /* --timeout; 0 waits forever */
  gboolean set_without_batch; /* a worker set started and no batch came since */
} ls_phase;

void ls_phase_init (ls_phase *p, double timeout_s, uint64_t now_ns);

/* An event the protocol accepted (and, for a batch, the runner took). */
void ls_phase_event (ls_phase *p, ls_probe_event ev, uint64_t now_ns);

/* The channel is closed (end of file): from now on only the exit counts. */
void ls_phase_closed (ls_phase *p, uint64_t now_ns);

/* Seconds the current phase may last (0: forever). */
double ls_phase_allowance (const ls_phase *p);

/* Whether the current phase ran past its allowance at now_ns. */
gboolean ls_phase_expired (const ls_phase *p, uint64_t now_ns);

/* Why the run was stopped, naming the script (base) and the phase. */
void ls_phase_message (const ls_phase *p, const char *base, uint64_t batches, char *msg, gsize size);
