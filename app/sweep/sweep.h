/* Sweeps: the product grid of run knobs given as comma lists, each
 * configuration run by its own runner process (`loadscope run`), so a
 * crash loses one run, not the sweep. Shared by `loadscope sweep` and
 * `loadscope demo`. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

typedef struct ls_sweep_result {
  gint64 sweep_id;       /* in the store, 0 when not recorded */
  char *store_path;
  JsonArray *summaries;  /* one per run that finished (done or failed) */
  guint runs_done, runs_failed, runs_lost; /* lost: the runner died or the sweep was interrupted */
  gboolean interrupted;
  gboolean refused;      /* a runner refused its input (exit 2): the sweep stopped there */
} ls_sweep_result;

void ls_sweep_result_clear (ls_sweep_result *r);

/* Runs `loadscope sweep ARGS` (argv[0] is "sweep"). Prints progress to
 * stderr and, unless quiet, the table or (json) the summaries to stdout.
 * Returns the exit status: 0 all done, 1 a run failed or was lost, 2 bad
 * usage or a runner that refused its input (every configuration would be
 * refused the same way, so the sweep stops at once, recorded as failed). */
int ls_sweep_main (int argc, char **argv, ls_sweep_result *result);

/* The progress line's text: "[2/8] workers=1  batch 12/40  0:07 elapsed,
 * ETA 0:21", "starting…" in place of the batches until the runner has said
 * how many it plans (started). Newly allocated. */
char *ls_sweep_progress_text (guint index, guint total, const char *label, gint64 batches, gint64 planned,
                              gboolean started, double elapsed_s);

/* Prints the comparison table of a sweep's summaries: one format for
 * every row (failed and interrupted runs too), "-" where a figure is
 * absent or meaningless (start, prefetch, persistence with 0 workers). */
void ls_sweep_print_table (FILE *to, JsonArray *summaries);
