/* Runs side by side, as `loadscope compare` and the window's Compare show
 * them: one row per knob (ls_run_knobs) and per headline figure
 * (ls_run_figures), one cell per run, the first run the baseline. A knob row
 * says whether its value differs between the runs; a figure row carries each
 * run's change against the baseline in per cent. */
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
  char *label;        /* knob: its label ("batch size"); figure: its heading with the unit ("throughput (samples/s)") */
  gboolean differs;   /* knob: its stored value is not the same in every run; figures: FALSE */
  GPtrArray *cells;   /* char *, one per run: the value as shown, without unit ("on", "30037", "-" when absent) */
  double *delta;      /* figure: per cent change against the first run's value, one per run (the first's is 0);
                         NAN where either value is absent or the first is 0. knob: NULL */
} ls_compare_row;

typedef struct {
  GPtrArray *runs; /* JsonObject: ls_store_run_object, the first the baseline */
  GPtrArray *rows; /* ls_compare_row: the knobs in ls_run_knobs order, then the figures */
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

/* The row of a knob or figure column ("workers", "throughput_sps"), or NULL. */
const ls_compare_row *ls_compare_table_find (const ls_compare_table *table, const char *column);

/* The labels of the knobs that differ, in table order (a new array of new strings). */
GPtrArray *ls_compare_table_differing_knobs (const ls_compare_table *table);

/* Per cent change of column between first and run: (run - first) / |first| x 100.
 * FALSE when either is absent (null) or first is 0. */
gboolean ls_compare_delta_percent (JsonObject *first, JsonObject *run, const char *column, double *delta);
