#include "app/store/export.h"
#include "app/core/i18n.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "app/file/file-replace.h"
#include "app/store/export-format-private.h"
#include "app/store/store-private.h"

static gboolean
sql_failed (ls_store *store, const char *what, GError **error)
{
  g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_SQL, "%s: %s: %s", ls_store_path (store), what,
               sqlite3_errmsg (ls_store_db (store)));
  return FALSE;
}

/* The selection as temp.export_sel, for queries over several tables. */
static gboolean
select_runs (ls_store *store, GArray *ids, GError **error)
{
  sqlite3_stmt *st = NULL;
  if (!ls_store_exec (store,
                      "CREATE TEMP TABLE IF NOT EXISTS export_sel (id INTEGER PRIMARY KEY); DELETE FROM temp.export_sel;",
                      error))
    return FALSE;
  if (sqlite3_prepare_v2 (ls_store_db (store), "INSERT OR IGNORE INTO temp.export_sel (id) VALUES (?)", -1, &st, NULL)
      != SQLITE_OK)
    return sql_failed (store, "selecting runs", error);
  for (guint i = 0; i < ids->len; i++)
    {
      sqlite3_bind_int64 (st, 1, g_array_index (ids, gint64, i));
      if (sqlite3_step (st) != SQLITE_DONE)
        {
          sqlite3_finalize (st);
          return sql_failed (store, "selecting runs", error);
        }
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);
  return TRUE;
}

/* Reads the records `tail` selects (one integer parameter, or none when
 * param < 0) and hands each to `each`. */
typedef gboolean (*record_func) (const ls_record_kind *kind, ls_field_value *values, gpointer user, GError **error);

static gboolean
for_each_record (ls_store *store, const ls_record_kind *kind, const char *tail, gint64 param, record_func each,
                 gpointer user, GError **error)
{
  g_autofree char *sql = ls_record_select_sql (kind, NULL, tail);
  g_autofree ls_field_value *values = g_new0 (ls_field_value, kind->n_fields);
  sqlite3_stmt *st = NULL;
  int rc;

  if (sqlite3_prepare_v2 (ls_store_db (store), sql, -1, &st, NULL) != SQLITE_OK)
    return sql_failed (store, "reading runs", error);
  if (param >= 0)
    sqlite3_bind_int64 (st, 1, param);
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      ls_record_from_row (kind, st, values);
      gboolean ok = each (kind, values, user, error);
      ls_field_values_clear (values, kind->n_fields);
      if (!ok)
        {
          sqlite3_finalize (st);
          return FALSE;
        }
    }
  sqlite3_finalize (st);
  return rc == SQLITE_DONE ? TRUE : sql_failed (store, "reading runs", error);
}

static gboolean
add_object (const ls_record_kind *kind, ls_field_value *values, gpointer user, GError **error)
{
  JsonBuilder *b = user;
  (void) error;
  json_builder_begin_object (b);
  ls_record_add_to_builder (kind, values, b);
  json_builder_end_object (b);
  return TRUE;
}

typedef struct {
  GString *out;
  gboolean skip_private; /* the run's summary and runner pid */
} csv_row;

static gboolean
add_csv_cells (const ls_record_kind *kind, ls_field_value *values, gpointer user, GError **error)
{
  csv_row *row = user;
  (void) error;
  for (guint i = 0; i < kind->n_fields; i++)
    {
      const char *name = kind->fields[i].name;
      if (row->skip_private ? strcmp (name, "summary") == 0 || strcmp (name, "runner_pid") == 0
                            : strcmp (name, "fingerprint") == 0)
        continue;
      g_string_append_c (row->out, ',');
      ls_field_value_append_csv (row->out, &values[i]);
    }
  return TRUE;
}

gboolean
ls_export_csv_runs (ls_store *store, GArray *ids, GString *out, GError **error)
{
  g_string_append (out, "run_id");
  for (guint i = 0; i < ls_record_run.n_fields; i++)
    {
      const char *name = ls_record_run.fields[i].name;
      if (strcmp (name, "summary") != 0 && strcmp (name, "runner_pid") != 0)
        g_string_append_printf (out, ",%s", name);
    }
  for (guint i = 0; i < ls_record_machine.n_fields; i++)
    if (strcmp (ls_record_machine.fields[i].name, "fingerprint") != 0)
      g_string_append_printf (out, ",machine_%s", ls_record_machine.fields[i].name);
  g_string_append (out, "\r\n");

  for (guint i = 0; i < ids->len; i++)
    {
      gint64 id = g_array_index (ids, gint64, i);
      csv_row run = { out, TRUE }, machine = { out, FALSE };
      g_string_append_printf (out, "%" G_GINT64_FORMAT, id);
      if (!for_each_record (store, &ls_record_run, "WHERE t.id = ?", id, add_csv_cells, &run, error)
          || !for_each_record (store, &ls_record_machine, "WHERE t.id = (SELECT machine_id FROM run WHERE id = ?)", id,
                               add_csv_cells, &machine, error))
        return FALSE;
      g_string_append (out, "\r\n");
    }
  return TRUE;
}

gboolean
ls_export_csv_batches (ls_store *store, GArray *ids, GString *out, GError **error)
{
  sqlite3_stmt *st = NULL;
  int rc;

  if (!select_runs (store, ids, error))
    return FALSE;
  if (sqlite3_prepare_v2 (ls_store_db (store),
                          "SELECT run_id, seq, epoch, batch, samples, ready_ms, wait_ms, copy_ms, compute_ms, read_ms, "
                          "decode_ms, transform_ms, write_ms, idle_ms, busy_ms, sampler_ms, getitem_ms, collate_ms, "
                          "handoff_ms, pin_ms, worker, build_start_ms, build_end_ms FROM batch "
                          "WHERE run_id IN (SELECT id FROM temp.export_sel) ORDER BY run_id, seq",
                          -1, &st, NULL)
      != SQLITE_OK)
    return sql_failed (store, "reading batches", error);
  g_string_append (out, "run_id,seq,epoch,batch,samples,ready_ms,wait_ms,copy_ms,compute_ms,read_ms,decode_ms,"
                        "transform_ms,write_ms,idle_ms,busy_ms,sampler_ms,getitem_ms,collate_ms,handoff_ms,pin_ms,worker,"
                        "build_start_ms,build_end_ms\r\n");
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      for (int c = 0; c < sqlite3_column_count (st); c++)
        {
          if (c)
            g_string_append_c (out, ',');
          if (sqlite3_column_type (st, c) == SQLITE_INTEGER)
            g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) sqlite3_column_int64 (st, c));
          else if (sqlite3_column_type (st, c) == SQLITE_FLOAT && isfinite (sqlite3_column_double (st, c)))
            g_string_append (out, ls_format_double (buf, sizeof buf, sqlite3_column_double (st, c)));
        }
      g_string_append (out, "\r\n");
    }
  sqlite3_finalize (st);
  return rc == SQLITE_DONE ? TRUE : sql_failed (store, "reading batches", error);
}

JsonNode *
ls_export_json (ls_store *store, GArray *ids, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autofree char *now = ls_store_now ();

  if (!select_runs (store, ids, error))
    return NULL;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, LS_EXPORT_FORMAT_NAME);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, LS_STORE_SCHEMA_VERSION);
  json_builder_set_member_name (b, "exported_at");
  json_builder_add_string_value (b, now);
  json_builder_set_member_name (b, "generator");
  json_builder_add_string_value (b, "loadscope " LS_VERSION);

  json_builder_set_member_name (b, "machines");
  json_builder_begin_array (b);
  if (!for_each_record (store, &ls_record_machine,
                        "WHERE t.id IN (SELECT machine_id FROM run WHERE id IN (SELECT id FROM temp.export_sel)) "
                        "OR t.id IN (SELECT machine_id FROM sweep WHERE id IN "
                        "(SELECT sweep_id FROM run WHERE id IN (SELECT id FROM temp.export_sel))) ORDER BY t.id",
                        -1, add_object, b, error))
    return NULL;
  json_builder_end_array (b);

  json_builder_set_member_name (b, "sweeps");
  json_builder_begin_array (b);
  if (!for_each_record (store, &ls_record_sweep,
                        "WHERE t.id IN (SELECT sweep_id FROM run WHERE id IN (SELECT id FROM temp.export_sel)) "
                        "ORDER BY t.id",
                        -1, add_object, b, error))
    return NULL;
  json_builder_end_array (b);

  json_builder_set_member_name (b, "runs");
  json_builder_begin_array (b);
  for (guint i = 0; i < ids->len; i++)
    {
      gint64 id = g_array_index (ids, gint64, i);
      g_autofree ls_field_value *values = g_new0 (ls_field_value, ls_record_run.n_fields);
      g_autofree char *sql = ls_record_select_sql (&ls_record_run, NULL, "WHERE t.id = ?");
      sqlite3_stmt *st = NULL;

      if (sqlite3_prepare_v2 (ls_store_db (store), sql, -1, &st, NULL) != SQLITE_OK)
        return sql_failed (store, "reading runs", error), NULL;
      sqlite3_bind_int64 (st, 1, id);
      if (sqlite3_step (st) != SQLITE_ROW)
        {
          sqlite3_finalize (st);
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND, _("no run %lld in %s"), (long long) id,
                       ls_store_path (store));
          return NULL;
        }
      json_builder_begin_object (b);
      ls_record_from_row (&ls_record_run, st, values);
      ls_record_add_to_builder (&ls_record_run, values, b);
      ls_field_values_clear (values, ls_record_run.n_fields);
      sqlite3_finalize (st);

      static const struct {
        const ls_record_kind *kind;
        const char *tail;
      } children[] = {
        { &ls_record_batch, "WHERE t.run_id = ? ORDER BY t.seq" },
        { &ls_record_sample, "WHERE t.run_id = ? ORDER BY t.t_ms, t.rowid" },
        { &ls_record_worker, "WHERE t.run_id = ? ORDER BY t.epoch, t.idx" },
      };
      for (guint c = 0; c < G_N_ELEMENTS (children); c++)
        {
          json_builder_set_member_name (b, children[c].kind->plural);
          json_builder_begin_array (b);
          if (!for_each_record (store, children[c].kind, children[c].tail, id, add_object, b, error))
            return NULL;
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* "a, b, c": the columns of a table of the attached bundle. */
static char *
bundle_columns (ls_store *store, const char *table, GError **error)
{
  /* untranslated: SQL */
  g_autofree char *sql = g_strdup_printf ("PRAGMA bundle.table_info (\"%s\")", table);
  GString *cols = g_string_new (NULL);
  sqlite3_stmt *st = NULL;

  if (sqlite3_prepare_v2 (ls_store_db (store), sql, -1, &st, NULL) != SQLITE_OK)
    {
      g_string_free (cols, TRUE);
      return sql_failed (store, "reading the bundle's schema", error), NULL;
    }
  while (sqlite3_step (st) == SQLITE_ROW)
    g_string_append_printf (cols, "%s\"%s\"", cols->len ? ", " : "", (const char *) sqlite3_column_text (st, 1));
  sqlite3_finalize (st);
  return g_string_free (cols, FALSE);
}

static void
remove_bundle (const char *path)
{
  static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *p = g_strconcat (path, suffixes[i], NULL);
      g_unlink (p);
    }
}

gboolean
ls_export_sqlite (ls_store *store, GArray *ids, const char *path, GError **error)
{
  static const struct {
    const char *table;
    const char *where;
  } copies[] = {
    { "machine", "id IN (SELECT machine_id FROM main.run WHERE id IN (SELECT id FROM temp.export_sel)) "
                 "OR id IN (SELECT machine_id FROM main.sweep WHERE id IN "
                 "(SELECT sweep_id FROM main.run WHERE id IN (SELECT id FROM temp.export_sel)))" },
    { "sweep", "id IN (SELECT sweep_id FROM main.run WHERE id IN (SELECT id FROM temp.export_sel))" },
    { "run", "id IN (SELECT id FROM temp.export_sel)" },
    { "batch", "run_id IN (SELECT id FROM temp.export_sel)" },
    { "sample", "run_id IN (SELECT id FROM temp.export_sel)" },
    { "worker", "run_id IN (SELECT id FROM temp.export_sel)" },
  };
  sqlite3 *db = ls_store_db (store);
  sqlite3_stmt *st = NULL;
  gboolean attached = FALSE, ok = FALSE;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_OPEN, _("%s: already exists"), path);
      return FALSE;
    }
  /* A fresh store with the current schema, as one file. */
  {
    g_autoptr (ls_store) bundle = ls_store_open (path, error);
    if (!bundle || !ls_store_exec (bundle, "PRAGMA journal_mode = DELETE", error))
      goto out;
  }
  if (!select_runs (store, ids, error))
    goto out;
  if (sqlite3_prepare_v2 (db, "ATTACH DATABASE ? AS bundle", -1, &st, NULL) != SQLITE_OK)
    {
      sql_failed (store, "opening the bundle", error);
      goto out;
    }
  sqlite3_bind_text (st, 1, path, -1, SQLITE_TRANSIENT);
  attached = sqlite3_step (st) == SQLITE_DONE;
  sqlite3_finalize (st);
  if (!attached)
    {
      sql_failed (store, "opening the bundle", error);
      goto out;
    }
  if (!ls_store_exec (store, "BEGIN", error))
    goto out;
  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      g_autofree char *cols = bundle_columns (store, copies[i].table, error);
      if (!cols)
        goto rollback;
      /* untranslated: SQL */
      g_autofree char *sql = g_strdup_printf ("INSERT INTO bundle.\"%s\" (%s) SELECT %s FROM main.\"%s\" WHERE %s",
                                              copies[i].table, cols, cols, copies[i].table, copies[i].where);
      if (!ls_store_exec (store, sql, error))
        {
          g_prefix_error (error, _("copying the %s rows: "), copies[i].table);
          goto rollback;
        }
    }
  /* Which process owns a running sweep means nothing on another machine. */
  if (!ls_store_exec (store, "UPDATE bundle.sweep SET owner_pid = NULL, owner_start = NULL", error))
    goto rollback;
  ok = ls_store_exec (store, "COMMIT", error);
  if (ok)
    goto out;
rollback:
  sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
out:
  if (attached)
    sqlite3_exec (db, "DETACH DATABASE bundle", NULL, NULL, NULL);
  if (!ok)
    remove_bundle (path);
  return ok;
}

gboolean
ls_export_sqlite_replacing (ls_store *store, GArray *ids, const char *path, GError **error)
{
  g_autoptr (ls_partial_file) partial = ls_partial_file_new (path, error);
  if (!partial)
    return FALSE;
  /* SQLite makes the file itself, under the partial's (armed) name. */
  ls_partial_file_close (partial);
  g_unlink (ls_partial_file_path (partial));
  return ls_export_sqlite (store, ids, ls_partial_file_path (partial), error)
         && ls_partial_file_commit (partial, error);
}
