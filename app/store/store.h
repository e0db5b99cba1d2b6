/* The run store: one SQLite file (WAL) per user, schema versioned with
 * PRAGMA user_version and migrated forward on open. Every run is recorded
 * as it goes: its row first (status running), its batches in short
 * transactions, its workers, series and figures when it ends
 * (run-recorder.h). A run whose runner died is marked interrupted the next
 * time any store opens, and so is a sweep whose process is gone. SQLite itself stays inside app/store/
 * (store-private.h). */
#pragma once

#include <glib.h>

#define LS_STORE_SCHEMA_VERSION 11

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
/* Opens an existing store read-only (SQLITE_OPEN_READONLY): no
 * migration, no repair; immutable where its folder cannot be written (a
 * read-only mount). The fallback of readers when ls_store_open cannot write
 * (read-only folder or mount, a full disk). */
ls_store *ls_store_open_read_only (const char *path, GError **error);

ls_store *ls_store_open (const char *path, GError **error);

/* Marks runs of this machine whose runner has died as interrupted (done
 * on open; a sweep calls it again after a runner crashed). */
gboolean ls_store_mark_dead_runs (ls_store *store, GError **error);

void ls_store_close (ls_store *store);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_store, ls_store_close)

const char *ls_store_path (const ls_store *store);
int ls_store_schema_version (ls_store *store);

/* Applies the schema up to `version` (tests make old stores with it). */
gboolean ls_store_migrate_to (ls_store *store, int version, GError **error);

/* The machine row for this computer (inserted on first use). When this
 * computer cannot be described (platform/sysinfo.h failed), the error is in
 * LS_LOADER_ERROR (app/core/error-bridge.h), not LS_STORE_ERROR. */
gint64 ls_store_this_machine (ls_store *store, const char *gpu, const char *driver, GError **error);

/* A stable identity for a machine: equal on every store that records it.
 * A container (kind other than NULL or "none") is another machine than
 * its host even where it shares the host's name and OS (`--uts=host`, an
 * exec: prefix into a chroot): its kind is part of the key. Without one
 * the key is what it was before containers were recorded. */
char *ls_machine_fingerprint (const char *hostname, const char *os, const char *cpu_model, gint64 cores,
                              gint64 ram_bytes, const char *container);

/* Sweeps. begin records the calling process as the sweep's owner: when
 * it is gone and the sweep still `running`, the next writing open marks
 * the sweep interrupted (ls_store_mark_dead_sweeps). */
gint64 ls_store_sweep_begin (ls_store *store, gint64 machine_id, const char *grid_json, int configurations, int repeat,
                             GError **error);
/* status: "done", "interrupted" or "failed"; reason: why it failed (NULL otherwise). */
gboolean ls_store_sweep_end (ls_store *store, gint64 sweep_id, const char *status, const char *reason,
                             GError **error);

/* ls_store_sweep_end for --slurm-collect: only a sweep still running
 * with no owner (a Slurm sweep) is ended; one a process of this machine
 * owns, or one already ended (a run folder's manifest can name any
 * sweep's uuid), is left as recorded. *ended says which. */
gboolean ls_store_sweep_end_unowned (ls_store *store, gint64 sweep_id, const char *status, const char *reason,
                                     gboolean *ended, GError **error);

/* A sweep that outlives the process that began it (a Slurm job array,
 * ended by --slurm-collect): no owner, never marked by an open. */
gboolean ls_store_sweep_disown (ls_store *store, gint64 sweep_id, GError **error);

/* Marks sweeps of this machine whose owner process is gone (killed
 * mid-sweep) as interrupted (done on every writing open). */
gboolean ls_store_mark_dead_sweeps (ls_store *store, GError **error);

/* Deletes runs with their batches, samples and workers, all or none. */
gboolean ls_store_delete_runs (ls_store *store, const gint64 *ids, guint n, GError **error);

/* ISO 8601 UTC with milliseconds, as the store keeps times. */
char *ls_store_now (void);
