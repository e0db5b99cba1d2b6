/* Runs side by side, as `loadscope compare` and the window's Compare show
 * them: the headline figures first (ls_run_figures), then the knobs
 * (ls_run_knobs), one cell per run, the first run the baseline. A figure's
 * value is shown with its unit and decimals as the charts show it
 * (ls_chart_format_value: "771 img/s", "21.2 ms"), with its change against
 * the baseline in per cent, marked better or worse; a knob row says whether
 * its value differs between the runs. A script's knobs (ranks, threads)
 * have no row where no run has them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "app/store/store.h"

typedef enum {
  LS_COMPARE_KNOB,
  LS_COMPARE_FIGURE,
} ls_compare_row_kind;

typedef struct {
  ls_compare_row_kind kind;
  const char *column; /* in the run table */
  char *label;        /* knob: its label ("batch size"); figure: its name ("throughput", "batch wait p50") */
  gboolean differs;   /* knob: its stored value is not the same in every run; figures: FALSE */
  GPtrArray *cells;   /* char *, one per run: the value as shown ("on", "30 037 img/s", "21.2 ms", "-" when absent) */
  double *delta;      /* figure: per cent change against the first run's value, one per run (the first's is 0);
                         NAN where either value is absent or the first is 0. knob: NULL */
  int *better;        /* figure: +1 the change is for the better (more throughput, less wait or memory), -1 for
                         the worse, 0 neither (under LS_COMPARE_SAME_PERCENT, or no delta). knob: NULL */
} ls_compare_row;

/* A change smaller than this (per cent) is neither better nor worse. */
#define LS_COMPARE_SAME_PERCENT 1.0

typedef struct {
  GPtrArray *runs; /* JsonObject: ls_store_run_object, the first the baseline */
  GPtrArray *rows; /* ls_compare_row: the figures in ls_run_figures order, then the knobs */
  char *db;        /* the store they were read from (ls_compare_table_load); NULL: none */
} ls_compare_table;

/* The table of runs (JsonObject, as ls_store_run_object makes them; at least
 * one). Takes a reference on each run. */
ls_compare_table *ls_compare_table_new (GPtrArray *runs);

/* The table of runs read from the store by id; NULL with the store's error
 * (LS_STORE_ERROR_NOT_FOUND naming the run) when one cannot be read. */
ls_compare_table *ls_compare_table_load (ls_store *store, const gint64 *ids, guint n_ids, GError **error);

void ls_compare_table_free (ls_compare_table *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_compare_table, ls_compare_table_free)

guint ls_compare_table_n_runs (const ls_compare_table *table);

/* The row of a knob or figure column ("workers", "throughput_sps"), or NULL
 * (also for a script's knob that no run has). */
const ls_compare_row *ls_compare_table_find (const ls_compare_table *table, const char *column);

/* The labels of the knobs that differ, in table order (a new array of new strings). */
GPtrArray *ls_compare_table_differing_knobs (const ls_compare_table *table);

/* Run r's change in a figure row in words: "+11.4 %, better",
 * "-7.4 %, worse", "+0.3 %"; NULL for the baseline or where there is none. */
char *ls_compare_change_text (const ls_compare_row *row, guint r);

/* TRUE when more of the figure is better (throughput, GPU busy). */
gboolean ls_compare_higher_is_better (const char *column);

/* Per cent change of column between first and run: (run - first) / |first| x 100.
 * FALSE when either is absent (null) or first is 0. */
gboolean ls_compare_delta_percent (JsonObject *first, JsonObject *run, const char *column, double *delta);
