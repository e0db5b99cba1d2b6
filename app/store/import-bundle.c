/* The SQLite reader of an import: a bundle copied aside, its size, schema
 * objects (tables only: no views, triggers or virtual tables), integrity,
 * version and orphans checked before any row is read, then its rows handed
 * to the merge (import-merge.c). Apart from the JSON reader: what it
 * refuses is SQLite's own. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/text-controls.h"
#include "app/store/import-input.h"
#include "app/store/import-private.h"
#include "platform/cleanup.h"

void
ls_bundle_init (bundle *b)
{
  memset (b, 0, sizeof *b);
  for (guint i = 0; i < G_N_ELEMENTS (b->armed); i++)
    b->armed[i] = -1;
}

/* The private copy's folder, made and armed. */
static gboolean
bundle_make_dir (bundle *b, GError **error)
{
  b->dir = ls_import_make_tmp_dir (error);
  if (!b->dir)
    return FALSE;
  b->copy = g_build_filename (b->dir, "bundle.sqlite", NULL);
  b->armed[0] = ls_cleanup_arm (b->dir, LS_CLEANUP_DIR);
  for (guint i = 0; i < N_COPY_FILES; i++)
    {
      g_autofree char *p = g_strconcat (b->copy, copy_suffixes[i], NULL);
      b->armed[i + 1] = ls_cleanup_arm (p, LS_CLEANUP_FILE);
    }
  return TRUE;
}

void
ls_bundle_clear (bundle *b)
{
  g_clear_pointer (&b->store, ls_store_close);
  for (guint i = 0; b->copy && i < N_COPY_FILES; i++)
    {
      g_autofree char *p = g_strconcat (b->copy, copy_suffixes[i], NULL);
      g_unlink (p);
    }
  if (b->dir)
    g_rmdir (b->dir);
  for (guint i = 0; i < G_N_ELEMENTS (b->armed); i++)
    ls_cleanup_disarm (b->armed[i]);
  g_clear_pointer (&b->copy, g_free);
  g_clear_pointer (&b->dir, g_free);
}

static gboolean
copy_file (const char *from, const char *to, GError **error)
{
  g_autoptr (GFile) src = g_file_new_for_path (from);
  g_autoptr (GFile) dst = g_file_new_for_path (to);
  return g_file_copy (src, dst, G_FILE_COPY_NONE, NULL, NULL, NULL, error);
}

static gboolean
bundle_invalid (bundle *b, const char *what, GError **error)
{
  return ls_store_invalid (error, "%s: %s", what, sqlite3_errmsg (ls_store_db (b->store)));
}

static gint64
bundle_count (bundle *b, const char *sql, GError **error)
{
  sqlite3_stmt *st = NULL;
  gint64 n = -1;
  if (sqlite3_prepare_v2 (ls_store_db (b->store), sql, -1, &st, NULL) != SQLITE_OK)
    return bundle_invalid (b, "not a Loadscope bundle", error), -1;
  if (sqlite3_step (st) == SQLITE_ROW)
    n = sqlite3_column_int64 (st, 0);
  else
    bundle_invalid (b, "damaged", error);
  sqlite3_finalize (st);
  return n;
}

static guint32
be32 (const guint8 *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

/* SQLite's header gives the page size and, when valid, the number of
 * pages: a file cut short (in the middle of a page too) is caught here,
 * before its remains could read as plausible rows. */
static gboolean
check_size (const char *path, GError **error)
{
  guint8 head[100];
  GStatBuf st;
  FILE *f = fopen (path, "rb");
  size_t got = f ? fread (head, 1, sizeof head, f) : 0;
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);

  if (f)
    fclose (f);
  if (got < sizeof head || g_stat (path, &st) != 0)
    return ls_store_invalid (error, "a damaged or truncated SQLite file (no complete header)");
  guint64 page = (guint64) head[16] << 8 | head[17];
  if (page == 1)
    page = 65536;
  if (page < 512 || (page & (page - 1)) != 0)
    return ls_store_invalid (error, "a damaged or truncated SQLite file (page size %" G_GUINT64_FORMAT ")", page);
  if ((guint64) st.st_size % page != 0)
    return ls_store_invalid (error, "a damaged or truncated SQLite file (%" G_GUINT64_FORMAT " bytes: not whole pages of %"
                    G_GUINT64_FORMAT ")", (guint64) st.st_size, page);
  /* The page count is valid when the change counter matches "version
   * valid for"; with a WAL beside it the file may lag. */
  guint64 pages = be32 (head + 28);
  if (be32 (head + 24) == be32 (head + 92) && pages > 0 && !g_file_test (wal, G_FILE_TEST_EXISTS)
      && (guint64) st.st_size < pages * page)
    return ls_store_invalid (error, "a damaged or truncated SQLite file (%" G_GUINT64_FORMAT " of its %" G_GUINT64_FORMAT " bytes)",
                    (guint64) st.st_size, pages * page);
  return TRUE;
}

/* Only tables are read. A view (an endless recursive query under a
 * table's name), a trigger (code run by the copy's own writes) or a
 * virtual table (a module's code) would run where rows were expected:
 * refused by name, before any query of the bundle's schema objects. */
static gboolean
bundle_only_tables (bundle *b, GError **error)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (ls_store_db (b->store),
                          "SELECT type, name FROM sqlite_master WHERE type IN ('view', 'trigger') "
                          "OR (type = 'table' AND rootpage = 0) ORDER BY type, name LIMIT 1",
                          -1, &st, NULL) != SQLITE_OK)
    return bundle_invalid (b, "damaged, or not a Loadscope bundle", error);
  int rc = sqlite3_step (st);
  gboolean ok = rc == SQLITE_DONE;
  if (rc == SQLITE_ROW)
    {
      const char *type = (const char *) sqlite3_column_text (st, 0);
      g_autofree char *name = ls_text_clean ((const char *) sqlite3_column_text (st, 1), TRUE);
      ls_store_invalid (error, "%s \"%s\": a bundle holds only tables (no views, triggers or virtual tables)",
               g_strcmp0 (type, "table") == 0 ? "the virtual table" : g_strcmp0 (type, "view") == 0 ? "the view"
                                                                                                : "the trigger",
               name ? name : "?");
    }
  else if (!ok)
    bundle_invalid (b, "damaged", error);
  sqlite3_finalize (st);
  return ok;
}

/* A private copy, checked, at the current schema version. */
gboolean
ls_bundle_open (bundle *b, const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;

  GStatBuf fst;
  if (g_stat (path, &fst) != 0 || !S_ISREG (fst.st_mode))
    return ls_store_invalid (error, "a bundle must be a regular file");
  if ((guint64) fst.st_size > LS_IMPORT_MAX_BYTES)
    return ls_store_invalid (error, "larger than the %" G_GUINT64_FORMAT " MiB an import reads", LS_IMPORT_MAX_BYTES >> 20);
  if (!check_size (path, error))
    return FALSE;

  if (!bundle_make_dir (b, error))
    return FALSE;
  if (!copy_file (path, b->copy, error))
    return FALSE;
  /* A store copied while open keeps recent rows in its WAL. */
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *wal_copy = g_strconcat (b->copy, "-wal", NULL);
  if (g_file_test (wal, G_FILE_TEST_IS_REGULAR) && !copy_file (wal, wal_copy, error))
    return FALSE;

  b->store = ls_store_open_existing (b->copy, SQLITE_OPEN_READWRITE, &local);
  if (!b->store)
    {
      /* The message names the temporary copy: keep only SQLite's reason. */
      const char *open = strchr (local->message, '('), *close = strrchr (local->message, ')');
      if (open && close > open)
        return ls_store_invalid (error, "damaged, or not a Loadscope bundle (%.*s)", (int) (close - open - 1), open + 1);
      return ls_store_invalid (error, "damaged, or not a Loadscope bundle");
    }
  /* The structure here; values (CHECK constraints too) field by field
   * later, where the message can name the field. */
  sqlite3_exec (ls_store_db (b->store), "PRAGMA trusted_schema = OFF; PRAGMA ignore_check_constraints = ON", NULL,
                NULL, NULL);
  if (!bundle_only_tables (b, error))
    return FALSE;

  sqlite3_stmt *st = NULL;
  g_autofree char *check = NULL;
  if (sqlite3_prepare_v2 (ls_store_db (b->store), "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    check = g_strdup ((const char *) sqlite3_column_text (st, 0));
  else
    check = g_strdup (sqlite3_errmsg (ls_store_db (b->store)));
  sqlite3_finalize (st);
  if (!check || strcmp (check, "ok") != 0)
    return ls_store_invalid (error, "a damaged or truncated SQLite file (%s)", check ? check : "unreadable");

  int version = ls_store_schema_version (b->store);
  if (version > LS_STORE_SCHEMA_VERSION)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_VERSION,
                   _("written by a newer Loadscope (schema version %d; this one knows up to %d)"), version,
                   LS_STORE_SCHEMA_VERSION);
      return FALSE;
    }
  if (version < 1)
    return ls_store_invalid (error, "not a Loadscope bundle (an SQLite file without Loadscope's schema)");
  if (version < LS_STORE_SCHEMA_VERSION && !ls_store_migrate_to (b->store, LS_STORE_SCHEMA_VERSION, &local))
    return ls_store_invalid (error, "migrating the bundle from schema version %d: %s", version, local->message);

  /* Every row belongs to a record of the bundle. */
  static const struct {
    const char *sql;
    const char *what;
  } orphans[] = {
    { "SELECT count (*) FROM sweep WHERE machine_id NOT IN (SELECT id FROM machine)", "sweeps of no machine" },
    { "SELECT count (*) FROM run WHERE machine_id NOT IN (SELECT id FROM machine)", "runs of no machine" },
    { "SELECT count (*) FROM run WHERE sweep_id IS NOT NULL AND sweep_id NOT IN (SELECT id FROM sweep)",
      "runs of a missing sweep" },
    { "SELECT count (*) FROM batch WHERE run_id NOT IN (SELECT id FROM run)", "batches of no run" },
    { "SELECT count (*) FROM sample WHERE run_id NOT IN (SELECT id FROM run)", "samples of no run" },
    { "SELECT count (*) FROM worker WHERE run_id NOT IN (SELECT id FROM run)", "workers of no run" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (orphans); i++)
    {
      gint64 n = bundle_count (b, orphans[i].sql, error);
      if (n < 0)
        return FALSE;
      if (n > 0)
        return ls_store_invalid (error, "%" G_GINT64_FORMAT " %s", n, orphans[i].what);
    }
  return TRUE;
}

typedef gboolean (*bundle_row_func) (importer *imp, ls_field_value *values, gint64 source_id, gpointer user,
                                     GError **error);

/* Each row of a table of the bundle (t.id or t.rowid as source_id). */
static gboolean
bundle_rows (bundle *b, importer *imp, int k, const char *tail, gint64 param, bundle_row_func each, gpointer user,
             GError **error)
{
  const ls_record_kind *kind = kinds[k];
  /* batch is WITHOUT ROWID: its rows are known by seq. */
  g_autofree char *sql = ls_record_select_sql (kind, k == K_BATCH ? "t.seq" : "t.rowid", tail);
  ls_field_value values[64];
  sqlite3_stmt *st = NULL;
  int rc;

  g_assert (kind->n_fields <= G_N_ELEMENTS (values));
  if (sqlite3_prepare_v2 (ls_store_db (b->store), sql, -1, &st, NULL) != SQLITE_OK)
    return bundle_invalid (b, "not a Loadscope bundle", error);
  if (param > 0)
    sqlite3_bind_int64 (st, 1, param);
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      ls_record_from_row (kind, st, values);
      gboolean ok = each (imp, values, sqlite3_column_int64 (st, (int) kind->n_fields), user, error);
      ls_field_values_clear (values, kind->n_fields);
      if (!ok)
        {
          sqlite3_finalize (st);
          return FALSE;
        }
    }
  sqlite3_finalize (st);
  return rc == SQLITE_DONE ? TRUE : bundle_invalid (b, "damaged", error);
}

static gboolean
bundle_machine (importer *imp, ls_field_value *values, gint64 id, gpointer user, GError **error)
{
  (void) user;
  g_autofree char *where = g_strdup_printf ("machine %" G_GINT64_FORMAT, id);
  return ls_importer_machine (imp, values, where, error);
}

static gboolean
bundle_sweep (importer *imp, ls_field_value *values, gint64 id, gpointer user, GError **error)
{
  (void) user;
  g_autofree char *where = g_strdup_printf ("sweep %" G_GINT64_FORMAT, id);
  return ls_importer_sweep (imp, values, where, error);
}

typedef struct {
  bundle *b;
  int k;
  gint64 source_run;
  gint64 run_id;
  gint64 batch_size;
} bundle_run_ctx;

static gboolean
bundle_child (importer *imp, ls_field_value *values, gint64 id, gpointer user, GError **error)
{
  bundle_run_ctx *c = user;
  g_autofree char *where = g_strdup_printf ("%s %s %" G_GINT64_FORMAT " of run %" G_GINT64_FORMAT, kinds[c->k]->table,
                                            c->k == K_BATCH ? "seq" : "row", id, c->source_run);
  return ls_importer_child (imp, c->k, c->run_id, c->batch_size, values, where, error);
}

static gboolean
bundle_run (importer *imp, ls_field_value *values, gint64 id, gpointer user, GError **error)
{
  static const char *const tails[] = { "WHERE t.run_id = ? ORDER BY t.seq", "WHERE t.run_id = ? ORDER BY t.rowid",
                                       "WHERE t.run_id = ? ORDER BY t.rowid" };
  bundle_run_ctx c = { user, 0, id, 0, 0 };
  g_autofree char *where = g_strdup_printf ("run %" G_GINT64_FORMAT, id);

  /* Its batches, samples and workers are found by it: id 0 or below would
   * import a run without them, silently. */
  if (id <= 0)
    return ls_store_invalid (error, "%s.id: %" G_GINT64_FORMAT " is not a positive integer (a run's batches, samples and "
                    "workers refer to it by id)", where, id);
  c.run_id = ls_importer_run (imp, values, id, where, error);
  if (c.run_id < 0)
    return FALSE;
  c.batch_size = value (&ls_record_run, values, "batch_size")->i;
  for (c.k = K_BATCH; c.k <= K_WORKER; c.k++)
    if (!bundle_rows (c.b, imp, c.k, tails[c.k - K_BATCH], id, bundle_child, &c, error))
      return FALSE;
  return TRUE;
}

gboolean
ls_importer_bundle (importer *imp, bundle *b, GError **error)
{
  return bundle_rows (b, imp, K_MACHINE, "ORDER BY t.id", 0, bundle_machine, NULL, error)
         && bundle_rows (b, imp, K_SWEEP, "ORDER BY t.id", 0, bundle_sweep, NULL, error)
         && bundle_rows (b, imp, K_RUN, "ORDER BY t.id", 0, bundle_run, b, error);
}
