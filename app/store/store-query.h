/* Reading the store: runs and sweeps found by what a user types, the
 * selections of an export, rows as JSON objects, and a run's knobs and
 * headline figures as history, show and compare present them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "app/core/json-util.h"
#include "app/store/store.h"

/* Opens an existing store to read it (migrating it, as every open does).
 * A file that does not exist is LS_STORE_ERROR_NOT_FOUND: nothing has been
 * recorded there. path NULL: the default store. */
ls_store *ls_store_open_to_read (const char *path, GError **error);

/* A run by its id ("12") or the start of its uuid, 4 characters or more
 * ("dd1f"; a number shorter than 8 digits is only ever an id). Returns -1 with
 * LS_STORE_ERROR_NOT_FOUND naming `ref`, or LS_STORE_ERROR_INVALID when a
 * uuid prefix matches several runs. */
gint64 ls_store_find_run (ls_store *store, const char *ref, GError **error);
gint64 ls_store_find_sweep (ls_store *store, const char *ref, GError **error);

/* The ids of one run (run_ref), of a sweep's runs (sweep_ref), or of every
 * run (both NULL), oldest first. */
GArray *ls_store_select_runs (ls_store *store, const char *run_ref, const char *sweep_ref, GError **error);

/* A run's columns with its machine (machine_hostname, machine_os, ...,
 * machine_fingerprint), sweep_uuid, batches_recorded, epochs_run (epochs
 * its batches came from), copy_ms_mean and compute_ms_mean (the device
 * copy and model step per batch after the warm-up; null without a device),
 * and a script run's ranks and threads per rank (1 and null for a script
 * alone with its own threads; null for the loader's runs). */
JsonObject *ls_store_run_object (ls_store *store, gint64 run_id, GError **error);

/* The runs of the history, newest first: every run (sweep_id 0) or one
 * sweep's, at most `limit` (0: all). One object per run with id, uuid,
 * started_at, machine (host name), os, dataset, format, workers, start,
 * batch_size, prefetch, persistent (bool), pin, non_blocking (bool or null),
 * model_ms, sink, simulated (bool), status, error, throughput_sps,
 * wait_p50_ms, wait_p95_ms, gpu_util_exact, gpu_util_nvml, pss_peak_bytes,
 * memory_peak_bytes (PSS, or private bytes where there is no PSS: Windows),
 * sweep_id and sweep_uuid (null outside a sweep), ranks and threads (as
 * ls_store_run_object has them). The CLI's `history` and
 * the window's history page read the same rows. */
JsonArray *ls_store_history (ls_store *store, gint64 sweep_id, int limit, GError **error);

typedef struct {
  const char *column; /* in the run table, or one of ls_store_run_object's own (ranks, threads) */
  const char *label;
  gboolean flag;      /* 0/1 shown as off/on */
  gboolean script;    /* a script's only (null for the loader's runs): left out where no run has it */
} ls_run_knob;

extern const ls_run_knob ls_run_knobs[];
extern const guint ls_n_run_knobs;

typedef struct {
  const char *column;
  const char *label;
  const char *unit;
  double scale;  /* stored value x scale = shown value */
  int decimals;
} ls_run_figure;

extern const ls_run_figure ls_run_figures[];
extern const guint ls_n_run_figures;

/* A run's workers, one object per worker start (idx, epoch, pid,
 * startup_ms, exit, cpu_ns), by epoch then index. */
JsonArray *ls_store_run_workers (ls_store *store, gint64 run_id, GError **error);

/* How many memory samples a run has (its series); -1 with the error. */
gint64 ls_store_run_n_samples (ls_store *store, gint64 run_id, GError **error);

/* Rows of one read-only query (a named one: store-named.h), read without
 * SQLite's types. */
typedef struct ls_store_rows ls_store_rows;

/* Steps to the next row: TRUE on a row, FALSE at the end (error unset) or
 * on failure (error set). */
gboolean ls_store_rows_next (ls_store_rows *rows, GError **error);

/* A column of the current row (0 first). */
gboolean ls_store_rows_is_null (ls_store_rows *rows, int column);
gint64 ls_store_rows_get_int (ls_store_rows *rows, int column);          /* 0 for null */
double ls_store_rows_get_double (ls_store_rows *rows, int column);       /* NAN for null */
const char *ls_store_rows_get_text (ls_store_rows *rows, int column);    /* NULL for null; valid until the next step */
char *ls_store_rows_dup_text (ls_store_rows *rows, int column);          /* a copy; NULL for null */

void ls_store_rows_free (ls_store_rows *rows);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_store_rows, ls_store_rows_free)

/* A history row's machine as shown: its host name, and the container kind
 * it ran in when it ran in one ("gpu-box (docker)"). */
char *ls_run_machine_shown (JsonObject *run);

/* A knob's value as shown ("on", "fork", "-" when absent). */
char *ls_run_knob_text (JsonObject *run, const ls_run_knob *knob);

/* A figure's heading with its unit: "throughput (samples/s)", and for a
 * label that ends in brackets the unit inside them: "GPU util (exact, %)". */
char *ls_run_figure_heading (const ls_run_figure *figure);

/* A figure as shown, without its unit ("30037", "-" when absent). */
char *ls_run_figure_text (JsonObject *run, const ls_run_figure *figure);

/* "2026-11-30 08:42" from the store's ISO 8601 time (UTC). */
char *ls_store_time_short (const char *iso);
