#pragma once

#include <glib.h>

/* `loadscope export --format png|svg|pdf`: charts of a sweep (its headline
 * charts), a run (timeline, memory, stages; lanes: its timeline of workers
 * and the training loop) or the whole store (start cost; target:
 * Loadscope's loader against PyTorch scripts), on one
 * page. Filled by `loadscope export` once its options are checked. */
typedef struct {
  const char *db;     /* NULL: the default store */
  const char *run;    /* exactly one of run, sweep, all */
  const char *sweep;
  gboolean all;
  const char *charts; /* comma list of chart names; NULL: all of the selection's */
  const char *format; /* png, svg or pdf */
  const char *output;
  int width, height;  /* <= 0: the default for the number of charts */
  gboolean dark;
  gboolean per_machine; /* --sweep: one series per machine too (ls_chart_sweep_with) */
} ls_chart_export_request;

/* The chart names each selection offers, for messages. */
#define LS_CHARTS_OF_SWEEP "utilization, wait, memory, stages"
#define LS_CHARTS_OF_RUN "timeline, memory, stages, lanes"
#define LS_CHARTS_OF_ALL "start-cost, target"

/* Writes the charts; prints what was written. Returns the exit status: 0
 * written, 1 the store could not be read or the file written, 2 bad usage
 * (an unknown chart, a sweep or run that is not there). */
int ls_cli_export_charts (const ls_chart_export_request *req);
