/* Exports of recorded runs: CSV (one row per run, or one per batch), JSON
 * (every row of the runs with their machines and sweeps, see
 * app/store/export-format-private.h) and self-contained sqlite bundles (a fresh store
 * holding only the selected runs). `ids` are run ids of `store`. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "app/store/store.h"

/* A header and one row per run: its id, every field of the run but the
 * summary and runner pid, then its machine's fields as machine_*. */
gboolean ls_export_csv_runs (ls_store *store, GArray *ids, GString *out, GError **error);

/* run_id,seq,epoch,batch,samples,ready_ms,wait_ms,copy_ms,compute_ms */
gboolean ls_export_csv_batches (ls_store *store, GArray *ids, GString *out, GError **error);

/* {"format":"loadscope-export","version":N,"exported_at":...,"generator":...,
 *  "machines":[...],"sweeps":[...],"runs":[{...,"batches":[...],"series":[...],"worker_processes":[...]}]}
 * (the sample and worker rows are "series" and "worker_processes": the
 * run's own "samples" and "workers" are its figures and knob) */
JsonNode *ls_export_json (ls_store *store, GArray *ids, GError **error);

/* Creates a store at path (which must not exist) with the runs, their
 * machines, sweeps, batches, samples and workers, in one file (no WAL).
 * Removes what it wrote if it fails. */
gboolean ls_export_sqlite (ls_store *store, GArray *ids, const char *path, GError **error);

/* ls_export_sqlite to a partial file beside path, synced and renamed over
 * path (app/file/file-replace.h): path is the old file or the whole new
 * bundle, never a part; a stop that ends the process leaves no partial. */
gboolean ls_export_sqlite_replacing (ls_store *store, GArray *ids, const char *path, GError **error);
