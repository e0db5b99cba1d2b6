/* What a team-review report says, gathered from the store once, so that
 * the HTML and the Markdown writers (report-html.c, report-md.c) only
 * format it: the runs chosen, their machines, the verdict per machine
 * (app/core/verdict.h, the one every command prints), the runs side by side
 * (compare-table.h), the charts (chart-store.h) and, when the runs come
 * from several machines, worker start-up and figures per platform. Texts
 * here are as stored (imported bundles included): the writers escape them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "app/chart/chart.h"
#include "app/core/ranks-table.h"
#include "app/core/verdict.h"
#include "app/report/compare-table.h"
#include "app/store/store-query.h"
#include "app/store/store.h"

/* Which runs: exactly one of sweep, run, runs (comma list of ids or uuid
 * prefixes), ids (the window's selection) or all. */
typedef struct {
  const char *sweep;
  const char *run;
  const char *runs;
  const gint64 *ids;
  guint n_ids;
  gboolean all;
} ls_report_selection;

typedef struct {
  gint64 id;
  char *fingerprint;
  char *hostname, *os, *kernel, *arch, *cpu_model, *gpu, *driver, *cuda;
  char *container; /* "docker", ...; NULL when none or not known */
  gint64 cores, ram_bytes;
  char *platform;   /* "Linux", "Windows" or the OS as recorded under Wine: "Windows (Wine 8.0)" */
  gboolean wine;
  guint n_runs;
} ls_report_machine;

/* The verdict of the runs of one machine (a report never recommends a
 * configuration measured on one machine for another). */
typedef struct {
  const ls_report_machine *machine;
  JsonArray *summaries; /* the runs' stored summaries */
  GArray *run_index;    /* guint per summary: its run in ls_report.runs */
  ls_verdict verdict;   /* verdict.index: into summaries */
  gboolean sweep;       /* several runs: ls_verdict_for_sweep (with a recommendation) */
} ls_report_verdict;

/* Worker start-up of one platform and start method over the runs chosen. */
typedef struct {
  char *label;          /* "Linux fork", "Windows (Wine 8.0) spawn" */
  char *platform;       /* ls_report_machine.platform */
  char *start;          /* "fork" or "spawn" */
  guint n_workers;      /* worker starts measured */
  guint n_runs;
  double startup_p50_ms, startup_max_ms;
  double first_batch_p50_ms; /* NAN: none */
  gint64 max_workers_non_persistent; /* the most workers of a run that restarts them each epoch; 0: none */
} ls_report_start_group;

/* The figures of one machine at one set of knobs. */
typedef struct {
  const ls_report_machine *machine;
  char *start;
  guint n_runs;
  double throughput_sps; /* mean; NAN: none */
  double memory_bytes;   /* mean peak (PSS, or private bytes on Windows); NAN: none */
} ls_report_cell;

/* Knobs measured on more than one machine. */
typedef struct {
  char *knobs;     /* "2 workers, batch 64, prefetch 2, persistent off, pin off" */
  GPtrArray *cells; /* ls_report_cell, one per machine that ran them */
} ls_report_same_knobs;

typedef struct {
  char *name;      /* the script's name */
  char *sha256, *python, *torch;
} ls_report_script;

typedef struct {
  char *title;       /* "sweep 3", "run 12", "runs 3, 4 and 7", "all runs" */
  gint64 sweep_id;   /* the sweep asked for; 0 otherwise */
  gint64 run_id;     /* the one run asked for; 0 otherwise */
  char *store_path;
  char *generated_at; /* "2026-12-01 17:30 UTC" */
  GPtrArray *runs;   /* JsonObject: ls_store_run_object, oldest first */
  ls_compare_table *table;
  GPtrArray *machines;  /* ls_report_machine, in order of first run */
  GPtrArray *verdicts;  /* ls_report_verdict, one per machine with a stored summary */
  GPtrArray *datasets;  /* char *: "/data/imgs (jpeg-dir, 2000 samples)", distinct */
  GPtrArray *scripts;   /* ls_report_script, distinct by hash */
  GPtrArray *ranks;     /* ls_ranks_table: each run with ranks (a script's DDP ranks), in the runs' order */
  gboolean simulated;   /* a run used the simulated GPU */
  /* Several machines or systems only (else empty): */
  GPtrArray *start_groups;  /* ls_report_start_group */
  GPtrArray *same_knobs;    /* ls_report_same_knobs */
  GPtrArray *differences;   /* char *: sentences on what differs, with the figures */
  /* Charts: */
  GPtrArray *charts;        /* ls_chart */
  GPtrArray *chart_names;   /* char *, one per chart, safe in a file name: "sweep-3-utilization" */
  GPtrArray *notes;         /* char *: what the report left out and why */
} ls_report;

/* Reads what the report says. NULL with the error: LS_STORE_ERROR_NOT_FOUND
 * naming an unknown run or sweep, or saying the store holds no run. */
ls_report *ls_report_load (ls_store *store, const ls_report_selection *selection, GError **error);
void ls_report_free (ls_report *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_report, ls_report_free)

/* The machine a run object belongs to. */
const ls_report_machine *ls_report_machine_of (const ls_report *report, JsonObject *run);

void ls_report_start_group_free (gpointer group);
void ls_report_same_knobs_free (gpointer same);

/* Fills start_groups, same_knobs and differences (report-platforms.c). */
gboolean ls_report_compare_platforms (ls_report *report, ls_store *store, GError **error);

/* Fills charts and chart_names (report-charts.c); a chart that cannot be
 * drawn becomes a note, not a failure. */
void ls_report_add_charts (ls_report *report, ls_store *store);

/* The figures of the runs table, in the order shown (both formats). */
extern const guint ls_report_n_figures;
const ls_run_figure *ls_report_figure (guint i);

/* Whether run (an index of runs) is the one a sweep's verdict recommends. */
gboolean ls_report_run_is_recommended (const ls_report *report, guint run);

/* Whether every run used the simulated GPU (the report says so once). */
gboolean ls_report_all_simulated (const ls_report *report);

/* The run's peak memory: PSS, or private bytes where there is none; NAN. */
double ls_report_run_memory (JsonObject *run);
