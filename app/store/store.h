/* The run store: one SQLite file (WAL) per user, schema versioned with
 * PRAGMA user_version and migrated forward on open. Every run is recorded
 * as it goes: its row first (status running), its batches in short
 * transactions, its workers, series and figures when it ends. A run whose
 * runner died is marked interrupted the next time any store opens. */
#pragma once

#include <glib.h>
#include <sqlite3.h>

#include "loader/run.h"
#include "platform/sysinfo.h"

#define LS_STORE_SCHEMA_VERSION 3

#define LS_STORE_ERROR (ls_store_error_quark ())
GQuark ls_store_error_quark (void);

typedef enum {
  LS_STORE_ERROR_OPEN,     /* cannot open or create the file */
  LS_STORE_ERROR_VERSION,  /* written by a newer Loadscope */
  LS_STORE_ERROR_BUSY,     /* locked by another writer for too long */
  LS_STORE_ERROR_READONLY,
  LS_STORE_ERROR_SQL,
  LS_STORE_ERROR_NOT_FOUND,
  LS_STORE_ERROR_INVALID,  /* bad data (import) */
} ls_store_error;

typedef struct ls_store ls_store;

/* $XDG_DATA_HOME/loadscope/history.sqlite (newly allocated). */
char *ls_store_default_path (void);

/* Opens (creating it and its folder if needed) and migrates. path NULL: the
 * default. Also marks runs of dead runners interrupted. */
ls_store *ls_store_open (const char *path, GError **error);

/* Marks runs of this machine whose runner has died as interrupted (done
 * on open; a sweep calls it again after a runner crashed). */
gboolean ls_store_mark_dead_runs (ls_store *store, GError **error);

/* Opens an existing file without creating or migrating it (import, tests). */
ls_store *ls_store_open_existing (const char *path, int flags, GError **error);

void ls_store_close (ls_store *store);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_store, ls_store_close)

const char *ls_store_path (const ls_store *store);
sqlite3 *ls_store_db (ls_store *store);
int ls_store_schema_version (ls_store *store);

/* Applies the schema up to `version` (tests make old stores with it). */
gboolean ls_store_migrate_to (ls_store *store, int version, GError **error);

/* Sets *error for an SQLite result code: the store's path, what was being
 * done, and the reason in words (locked, read-only, ...). Returns FALSE. */
gboolean ls_store_set_error (ls_store *store, int rc, const char *what, GError **error);

/* Runs SQL with no results; errors name the statement's purpose. */
gboolean ls_store_exec (ls_store *store, const char *sql, GError **error);

/* The machine row for this computer (inserted on first use). */
gint64 ls_store_this_machine (ls_store *store, const char *gpu, const char *driver, GError **error);

/* A stable identity for a machine: equal on every store that records it. */
char *ls_machine_fingerprint (const char *hostname, const char *os, const char *cpu_model, gint64 cores,
                              gint64 ram_bytes);

/* Sweeps. */
gint64 ls_store_sweep_begin (ls_store *store, gint64 machine_id, const char *grid_json, int configurations, int repeat,
                             GError **error);
/* status: "done", "interrupted" or "failed"; reason: why it failed (NULL otherwise). */
gboolean ls_store_sweep_end (ls_store *store, gint64 sweep_id, const char *status, const char *reason,
                             GError **error);

/* Deletes runs with their batches, samples and workers, all or none. */
gboolean ls_store_delete_runs (ls_store *store, const gint64 *ids, guint n, GError **error);

/* Recording one run. */
typedef struct ls_run_recorder ls_run_recorder;

/* Inserts the run (status running) once its sink is known (so_far). */
ls_run_recorder *ls_run_recorder_begin (ls_store *store, gint64 machine_id, gint64 sweep_id,
                                        const ls_run_config *config, const ls_run_result *so_far, GError **error);

/* Buffers one batch; rows are committed every 250 ms or 2048 rows, so a
 * killed runner loses at most that much. */
void ls_run_recorder_batch (ls_run_recorder *rec, uint64_t seq, const ls_batch_record *batch);

/* Writes workers, series, status and figures, and commits. Frees rec. */
gboolean ls_run_recorder_finish (ls_run_recorder *rec, const ls_run_result *result, const char *summary_json,
                                 GError **error);

gint64 ls_run_recorder_id (const ls_run_recorder *rec);
const char *ls_run_recorder_uuid (const ls_run_recorder *rec);

/* ISO 8601 UTC with milliseconds, as the store keeps times. */
char *ls_store_now (void);
