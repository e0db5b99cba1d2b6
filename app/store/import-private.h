/* What the files of an import share, for app/store/import*.c alone: the
 * importer (what the file's records become in the store, import-merge.c),
 * the bundle (a checked private copy of an SQLite file, import-bundle.c)
 * and the JSON reader (import-json.c); import.c opens the file and runs
 * one of the readers in one transaction (import.h). */
#pragma once

#include <glib.h>
#include <stdarg.h>

#include "app/store/export-format-private.h"
#include "app/store/import.h"
#include "app/store/store-private.h"

/* The kinds of record, in the order an export holds them. */
enum { K_MACHINE, K_SWEEP, K_RUN, K_BATCH, K_SAMPLE, K_WORKER, N_KINDS };

static const ls_record_kind *const kinds[N_KINDS] = {
  &ls_record_machine, &ls_record_sweep, &ls_record_run, &ls_record_batch, &ls_record_sample, &ls_record_worker,
};

/* What the import keeps from the file's first record to its last. */
typedef struct {
  ls_store *store;
  sqlite3 *db;
  GHashTable *machines; /* fingerprint -> id in the store, for the machines of the file */
  GHashTable *sweeps;   /* uuid -> id in the store */
  GHashTable *runs;     /* uuids of the file's runs */
  GHashTable *hosts;    /* fingerprint -> host name, for the machines of the file */
  GArray *imported;     /* ls_import_run, in the file's order */
  sqlite3_stmt *find[3];
  sqlite3_stmt *insert[N_KINDS];
  ls_import_counts counts;
  gboolean in_sweep_only; /* every sweep and run of the file is in_sweep's */
  const char *in_sweep;   /* NULL: the file may hold no sweep */
} importer;

static inline ls_field_value *
value (const ls_record_kind *kind, ls_field_value *values, const char *name)
{
  int i = ls_record_field_index (kind, name);
  g_assert (i >= 0);
  return &values[i];
}

/* ---- the merge by identity (import-merge.c) ---------------------------- */

gboolean ls_importer_init (importer *imp, ls_store *store, GError **error);
void ls_importer_clear (importer *imp);
/* A machine (merged by fingerprint) and a sweep (by uuid) of the file. */
gboolean ls_importer_machine (importer *imp, ls_field_value *v, const char *where, GError **error);
gboolean ls_importer_sweep (importer *imp, ls_field_value *v, const char *where, GError **error);
/* The run's id in the store, 0 when it is there already (its rows are
 * then checked, not written), -1 on error. */
gint64 ls_importer_run (importer *imp, ls_field_value *v, gint64 source_id, const char *where, GError **error);
/* A batch, sample or worker of a run (run_id 0: the run was there already). */
gboolean ls_importer_child (importer *imp, int k, gint64 run_id, gint64 batch_size, ls_field_value *v,
                            const char *where, GError **error);

/* ---- the readers ------------------------------------------------------- */

/* A JSON export, record by record (import-json.c). */
gboolean ls_importer_json (importer *imp, const char *text, gsize len, GError **error);

/* An SQLite bundle: a private copy of the file, checked, at the current
 * schema version (import-bundle.c). */
static const char *const copy_suffixes[] = { "", "-wal", "-shm", "-journal" };
#define N_COPY_FILES G_N_ELEMENTS (copy_suffixes)

typedef struct {
  char *dir;
  char *copy;
  ls_store *store;
  /* The folder and its files, armed while they exist: a stop that ends the
   * process (Ctrl-C, SIGTERM) removes them (platform/cleanup.h). */
  int armed[N_COPY_FILES + 1];
} bundle;

void ls_bundle_init (bundle *b);
gboolean ls_bundle_open (bundle *b, const char *path, GError **error);
void ls_bundle_clear (bundle *b);
gboolean ls_importer_bundle (importer *imp, bundle *b, GError **error);
