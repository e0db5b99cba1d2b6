/* Importing runs recorded elsewhere: a sqlite bundle (`export --format
 * sqlite`, or another store) or a JSON export. Everything is checked
 * before it counts: the format marker and version (older bundles are
 * migrated in a temporary copy), every field's type and range, and that
 * every row belongs to a record of the file. Runs merge by uuid, machines
 * by fingerprint (their rows copied as they are), sweeps by uuid; a run or
 * sweep still 'running' arrives 'interrupted'. All in one transaction: on
 * any error the store is left as it was. */
#pragma once

#include <glib.h>

#include "app/store/store.h"

typedef struct {
  guint runs_imported;
  guint runs_present; /* their uuid was already in the store */
  guint machines_added;
  guint sweeps_added;
} ls_import_counts;

/* Errors: LS_STORE_ERROR_INVALID (not an export, or a bad value: the
 * message names the file, the record and the field) or
 * LS_STORE_ERROR_VERSION (written by a newer Loadscope) for the file; the
 * other codes for the store (LS_STORE_ERROR_BUSY: locked by another
 * writer). */
gboolean ls_import_file (ls_store *store, const char *path, ls_import_counts *counts, GError **error);

/* What import reads, for messages. */
#define LS_IMPORT_FORMATS_TEXT                                                                                          \
  "import reads the .json and .sqlite bundles made by `loadscope export --format json|sqlite`; CSV is for "          \
  "spreadsheets"

/* One run of the file and what it became. */
typedef struct {
  gint64 local_id;   /* its id in the store now */
  char *uuid;
  char *source_host; /* the host name of the machine it ran on */
  gint64 source_id;  /* its id in the bundle it came from; -1 from JSON (which has no ids) */
  gboolean present;  /* it was in the store already (by uuid) */
} ls_import_run;

void ls_import_run_clear (ls_import_run *run);

/* ls_import_file, and (runs not NULL) on success *runs: a GArray of
 * ls_import_run, one per run of the file in its order, which clears its
 * elements when freed. */
gboolean ls_import_file_runs (ls_store *store, const char *path, ls_import_counts *counts, GArray **runs,
                              GError **error);

/* ls_import_file for a file that belongs to one sweep (a Slurm task's
 * store, a run folder's seed): every sweep of the file must be sweep_uuid
 * (NULL: none may be there) and every run in it, else nothing is imported
 * (LS_STORE_ERROR_INVALID naming the record). A forged store cannot bring
 * runs into another sweep of the home store. */
gboolean ls_import_file_in_sweep (ls_store *store, const char *path, const char *sweep_uuid, ls_import_counts *counts,
                                  GError **error);
