/* A sweep as text for a terminal: the progress line and the comparison
 * table, printed by `loadscope sweep` and `demo` (app/cli/cli-sweep.c)
 * from LsSweepSession's signals and summaries. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

/* The progress line's text: "[2/8] workers=1  batch 12/40  0:07 elapsed,
 * ETA 0:21", "starting…" in place of the batches until the runner has said
 * how many it plans (started). Newly allocated. */
char *ls_sweep_progress_text (guint index, guint total, const char *label, gint64 batches, gint64 planned,
                              gboolean started, double elapsed_s);

/* Prints the comparison table of a sweep's summaries: one format for
 * every row (failed and interrupted runs too), "-" where a figure is
 * absent or meaningless (start, prefetch, persistence with 0 workers). */
void ls_sweep_print_table (FILE *to, JsonArray *summaries);
