/* The charts of recorded runs, built from the store: a sweep's headline
 * charts, one run's batch-wait timeline and memory over time, and worker
 * start cost across every machine in the store. Each returns a new chart,
 * or NULL with LS_STORE_ERROR_NOT_FOUND for a sweep or run that is not
 * there (LS_CHART_ERROR_UNKNOWN for a chart name that is not one). */
#pragma once

#include "app/chart/chart.h"
#include "app/store/store.h"

/* The names of a sweep's headline charts, in page order, NULL-terminated. */
extern const char *const ls_chart_sweep_names[];

/* name: "utilization" (GPU busy, exact and NVML, with throughput),
 * "wait" (batch wait p50/p95/p99) or "memory" (peak PSS; private bytes
 * on Windows), each against workers: one series per pin mode, and per
 * start method or any other knob the sweep varied; repeated runs as their
 * mean with a min..max band. */
ls_chart *ls_chart_sweep (ls_store *store, gint64 sweep_id, const char *name, GError **error);

typedef enum {
  LS_CHART_SWEEP_PER_MACHINE = 1 << 0, /* one series per machine (host name) too: a sweep spread over
                                        * nodes (`sweep --slurm`) compares them side by side */
} ls_chart_sweep_flags;

/* ls_chart_sweep with flags. */
ls_chart *ls_chart_sweep_with (ls_store *store, gint64 sweep_id, const char *name, ls_chart_sweep_flags flags,
                               GError **error);

/* The wait of each batch over the run's time, with p50 and p95 lines. */
ls_chart *ls_chart_run_timeline (ls_store *store, gint64 run_id, GError **error);

/* The run's timeline as lanes (app/chart/chart-lanes.h): one per worker
 * and one for the training loop, each batch's stage spans on the lane of
 * the worker that built it, the loop's waits and steps, epoch boundaries.
 * chart->lanes is the layout as data. */
ls_chart *ls_chart_run_lanes (ls_store *store, gint64 run_id, GError **error);

/* One stacked bar per batch: read, decode, transform, write and the
 * workers' idle time, with the consumer's wait as a dot. */
ls_chart *ls_chart_run_stages (ls_store *store, gint64 run_id, GError **error);

/* Memory over the run's time: all processes (runner + workers) and the
 * runner alone (PSS; private bytes on Windows). */
ls_chart *ls_chart_run_memory (ls_store *store, gint64 run_id, GError **error);

/* Worker start-up (pool start to ready) by platform and start method:
 * Linux fork, Linux spawn, Windows spawn, over all runs of all machines. */
ls_chart *ls_chart_start_cost (ls_store *store, GError **error);

/* Throughput against workers, one line per target (Loadscope's loader,
 * the user's PyTorch script), dataset and batch size, over every done run
 * in the store: the two pipelines on the same images side by side. */
ls_chart *ls_chart_target (ls_store *store, GError **error);

/* Writes a sweep's headline charts as PNG files of width x height (<= 0:
 * 1280 x 800) into dir, made if needed (NULL: $XDG_DATA_HOME/loadscope/
 * charts), as sweep-<id>-<name>.png. Returns their paths (a NULL-terminated
 * newly allocated array), or NULL with the error. */
char **ls_chart_sweep_write_pngs (ls_store *store, gint64 sweep_id, const char *dir, int width, int height,
                                  GError **error);
