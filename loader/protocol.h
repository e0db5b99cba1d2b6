/* Messages between the pool (in the runner) and its workers. Batches never
 * travel here: only slot numbers, status and, on failure, the reason. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "platform/error.h"

typedef enum {
  LS_MSG_TASK = 1, /* pool → worker: fill `slot` (its header says which samples), or
                    * samples [first, end) of it when end > 0 (a batch shared
                    * by several workers: the first batch of a set) */
  LS_MSG_STOP,     /* pool → worker: finish and exit */
  LS_MSG_READY,    /* worker → pool: started, dataset open, arena mapped and populated */
  LS_MSG_DONE,     /* worker → pool: `slot` is filled; the stage times of this task */
  LS_MSG_FAILED,   /* worker → pool: `slot` failed; text says which sample and why */
  LS_MSG_BYE,      /* worker → pool: exiting after STOP; cpu_ns is its CPU time, the
                    * stage times its totals from READY to STOP */
} ls_msg_type;

typedef struct ls_msg {
  uint32_t type;
  uint32_t slot;
  uint32_t skipped;   /* DONE: samples replaced under --on-error skip */
  uint32_t end;       /* TASK: end of the part to fill (0: the whole slot) */
  uint64_t value;     /* TASK: first sample of the part; READY: pid; FAILED: failing sample index */
  uint64_t cpu_ns;    /* BYE: user + system CPU time of the worker */
  /* DONE: this task's; BYE: the worker's totals. Wall-clock ns. */
  uint64_t stage_ns[4]; /* read, decode, transform, write (ls_stage_ns) */
  uint64_t busy_ns;     /* the task's arrival to its DONE being sent */
  uint64_t idle_ns;     /* waiting for the task: since the previous DONE (or READY) */
  uint64_t wall_ns;     /* BYE: READY to STOP */
  uint64_t faults;      /* DONE: page faults the worker took during this task */
  uint64_t task_ns;     /* DONE: when the task arrived (ls_clock_ns, one clock for every process) */
  uint64_t written;     /* DONE: samples it wrote */
  uint64_t populate_ns; /* READY: populating the arena's pages in its page table */
  uint64_t ready_ns;    /* READY: ls_clock_ns () as it was sent (one clock for every process) */
  char text[LS_ERROR_MESSAGE_MAX];
} ls_msg;

/* Bytes to send: the text only when there is one. */
static inline size_t
ls_msg_size (const ls_msg *m)
{
  return m->type == LS_MSG_FAILED ? sizeof *m : offsetof (ls_msg, text);
}
