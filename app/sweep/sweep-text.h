/* A sweep as text for a terminal: the progress line and the comparison
 * table, printed by `loadscope sweep` and `demo` (app/cli/cli-sweep.c)
 * from LsSweepSession's signals and summaries. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "app/core/sweep-request.h"

/* The progress line's text: "[2/8] workers=1  batch 12/40  0:07 elapsed,
 * ETA 0:21", "starting…" in place of the batches until the runner has said
 * how many it plans (started). Newly allocated. */
char *ls_sweep_progress_text (guint index, guint total, const char *label, gint64 batches, gint64 planned,
                              gboolean started, double elapsed_s);

/* Prints the comparison table of a sweep's summaries: one format for
 * every row (failed and interrupted runs too), "-" where a figure is
 * absent or meaningless (start, prefetch, persistence with 0 workers).
 * When a configuration ran more than once, then the spread of its
 * repeats: runs, mean and min–max throughput (ls_sweep_print_spread). */
void ls_sweep_print_table (FILE *to, JsonArray *summaries);

/* The spread block alone; prints nothing when no configuration repeated. */
void ls_sweep_print_spread (FILE *to, JsonArray *summaries);

/* --time-budget: "90", "90s", "5m", "1.5h" in seconds; <= 0 when it is
 * not a duration. */
double ls_sweep_parse_duration (const char *text);

/* How often to repeat the grid within budget_s: the budget over the
 * estimate of one pass (ls_sweep_request_estimate_seconds), 1 to
 * LS_SWEEP_BUDGET_REPEAT_MAX; 1 when the estimate cannot be told. */
#define LS_SWEEP_BUDGET_REPEAT_MAX 5
guint ls_sweep_repeat_for_budget (const ls_sweep_request *request, double budget_s, guint cores);
