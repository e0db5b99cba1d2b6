/* What the files of the script target share, for
 * app/target/target-pytorch*.c alone: what the run keeps between the
 * probe's events (pt_run), the small helpers both the run loop
 * (target-pytorch.c) and the event handling (target-pytorch-events.c)
 * call, static inline as they were static in one file, and the steps
 * each of the three takes from another. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/target/probe-line.h"
#include "app/target/probe-phase.h"
#include "app/target/target-pytorch.h"
#include "loader/gpumon.h"
#include "loader/run.h"
#include "platform/process.h"

#define MAX_PIDS 256

/* What the run loop keeps between events. */
typedef struct {
  ls_run_config *config;
  ls_run_result *r;
  JsonObject *target;
  ls_pid pid;                /* the interpreter's */
  uint64_t t0_ns;            /* the script started */
  ls_phase phase;            /* the run's phase and its clock (--timeout) */
  gboolean started;          /* on_started called */
  gboolean have_loader;
  gboolean finished;         /* the probe said "finished", with its end proof */
  const char *end_token;     /* the proof: random per run, given to the probe alone ($LOADSCOPE_PROBE_TOKEN) */
  gboolean failed;           /* the probe said "error" */
  double probe_cpu_ms;       /* the script's own CPU, as it reported at the end (< 0: not) */
  size_t cap_workers, cap_timeline, cap_series;
  ls_pid pids[MAX_PIDS];     /* every process sampled: [0] the script */
  uint64_t pid_cpu_ns[MAX_PIDS];
  size_t n_pids;
  double steps_sum_ms;
  gboolean copies_watched;   /* the probe times the script's copies to the device (CUDA) */
  size_t copies_timed;       /* measured batches whose copy it timed */
  ls_gpumon *gpumon;         /* NVML, when the script's device is CUDA */
  ls_probe_state proto;      /* the channel's protocol: the last batch seq */
  const char *base;          /* the script's file name (UTF-8), for messages */
  uint64_t script_start;     /* its start time (process identity): workers start later */
  gboolean broken;           /* the script broke the protocol: the run ends, failed */
  uint64_t measure_from_ns;  /* the first measured batch arrived (our clock) */
  uint64_t measure_to_ns;    /* the last batch arrived */
  unsigned knobs;            /* ls_knob_flag: the knobs given, the others are the script's */
} pt_run;

static inline void *
grow (void *p, size_t *cap, size_t need, size_t size)
{
  if (need <= *cap)
    return p;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need)
    n *= 2;
  void *q = realloc (p, n * size);
  if (!q)
    abort ();
  *cap = n;
  return q;
}

/* text as UTF-8 in dst, cut on a character: it may be the script's own
 * text or a file name, and the store and its export keep UTF-8. */
static inline void
copy_utf8 (char *dst, gsize size, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  const char *end = valid;
  while (*end && (gsize) (g_utf8_next_char (end) - valid) < size)
    end = g_utf8_next_char (end);
  memcpy (dst, valid, (gsize) (end - valid));
  dst[end - valid] = '\0';
}

static inline void
fail (pt_run *s, ls_run_status status, const char *message)
{
  if (s->r->status != LS_RUN_DONE)
    return; /* the first reason stands */
  s->r->status = status;
  copy_utf8 (s->r->error, sizeof s->r->error, message);
}

/* The script wrote what the probe never writes: the run ends, failed,
 * naming the script and the line's fault. */
static inline void
broken (pt_run *s, const char *why)
{
  char msg[LS_ERROR_MESSAGE_MAX];
  /* untranslated: the run's error, kept in the store */
  g_snprintf (msg, sizeof msg, "%s broke the probe's protocol (%s); it was stopped", s->base, why);
  fail (s, LS_RUN_FAILED, msg);
  s->broken = TRUE;
}

static inline void
ensure_started (pt_run *s)
{
  if (s->started)
    return;
  s->started = TRUE;
  if (s->config->on_started)
    s->config->on_started (s->config->user, s->r);
}

/* ---- the probe's events (target-pytorch-events.c) ---------------------- */

/* One line of the channel (probe-process.h); FALSE ends the reading. */
gboolean ls_target_pytorch_on_line (gpointer user, const char *line, gsize len);

/* ---- the run's figures (target-pytorch-figures.c) ---------------------- */

/* One sample of the script and its workers, as loader/memsampler.c takes. */
void ls_target_pytorch_sample (pt_run *s, ls_memory_summary *m);

/* The summary's figures from the timeline, as loader/run.c defines them:
 * the consumer's step of batch k ends when it calls next() for k+1. */
void ls_target_pytorch_figures (pt_run *s, double wall_s);
