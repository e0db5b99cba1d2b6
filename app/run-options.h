/* The run knobs of the command line, parsed and checked with GOption.
 * Shared by `run` and (later) `sweep`. */
#pragma once

#include <glib.h>

#include "loader/run.h"

typedef struct ls_run_options {
  /* raw strings as typed, checked by ls_run_options_resolve */
  char *dataset;
  char *format;
  char *size;
  char *persistent;
  char *start;
  char *sink;
  char *on_error;
  char *output;
  char *shuffle;
  char *in_order;
  char *pin;
  char *non_blocking;
  double model_ms;
  double sim_bw_pageable;
  double sim_bw_pinned;
  int device;
  gint64 count;
  int crop;
  double pixel_limit_mp;
  int sample_cost_us;
  int workers;
  int batch_size;
  int prefetch;
  int epochs;
  gint64 batches;
  int warmup;
  gint64 seed;
  double timeout;
  gboolean drop_last;
  gboolean json;
  char *db;
  gboolean no_db;
  char *events;
  gint64 sweep_id;
  gboolean checksum;
  gint64 fail_every;
  gint64 crash_at;
  gint64 hang_at;
} ls_run_options;

void ls_run_options_init (ls_run_options *o);
void ls_run_options_clear (ls_run_options *o);

/* Adds the option groups ("run knobs", "synthetic dataset", "fault injection"). */
void ls_run_options_add_to (ls_run_options *o, GOptionContext *context);

/* Checks every knob and fills a run configuration. Errors name the option,
 * the value and what is allowed. */
gboolean ls_run_options_resolve (const ls_run_options *o, ls_run_config *config, GError **error);

const char *ls_start_method_name (ls_start_method m);
