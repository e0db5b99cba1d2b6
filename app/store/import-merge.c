/* The merge by identity: each record of the file, checked, into the store
 * (machines by fingerprint, sweeps and runs by uuid), whichever reader
 * (import-json.c, import-bundle.c) found it. Apart from the readers so
 * that both write rows one way. */
#include <string.h>

#include "app/store/import-private.h"

#define RUNNING_NOTE "it was still running when it was exported"

static gboolean
store_failed (importer *imp, const char *what, GError **error)
{
  g_set_error (error, LS_STORE_ERROR, (sqlite3_errcode (imp->db) & 0xff) == SQLITE_BUSY ? LS_STORE_ERROR_BUSY
                                                                                        : LS_STORE_ERROR_SQL,
               "%s: %s: %s", ls_store_path (imp->store), what, sqlite3_errmsg (imp->db));
  return FALSE;
}

static gint64 *
boxed_id (gint64 id)
{
  gint64 *p = g_new (gint64, 1);
  *p = id;
  return p;
}

/* ---- writing into the store ------------------------------------------ */

gboolean
ls_importer_init (importer *imp, ls_store *store, GError **error)
{
  static const char *const finds[] = {
    "SELECT id FROM machine WHERE fingerprint = ?",
    "SELECT id FROM sweep WHERE uuid = ?",
    "SELECT id FROM run WHERE uuid = ?",
  };

  memset (imp, 0, sizeof *imp);
  imp->store = store;
  imp->db = ls_store_db (store);
  imp->machines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  imp->sweeps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  imp->runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  imp->hosts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  imp->imported = g_array_new (FALSE, TRUE, sizeof (ls_import_run));
  g_array_set_clear_func (imp->imported, (GDestroyNotify) ls_import_run_clear);
  for (guint i = 0; i < G_N_ELEMENTS (finds); i++)
    if (sqlite3_prepare_v2 (imp->db, finds[i], -1, &imp->find[i], NULL) != SQLITE_OK)
      return store_failed (imp, "preparing the import", error);
  for (guint k = 0; k < N_KINDS; k++)
    {
      const ls_record_kind *kind = kinds[k];
      gboolean child = k >= K_BATCH;
      g_autoptr (GString) sql = g_string_new (NULL);
      /* untranslated: SQL */
      g_string_append_printf (sql, "INSERT INTO \"%s\" (%s", kind->table, child ? "run_id" : "");
      for (guint i = 0; i < kind->n_fields; i++)
        {
          const ls_field *f = &kind->fields[i];
          const char *column = f->kind == LS_FIELD_MACHINE_REF ? "machine_id"
                               : f->kind == LS_FIELD_SWEEP_REF ? "sweep_id"
                                                               : f->name;
          g_string_append_printf (sql, "%s\"%s\"", child || i ? ", " : "", column);
        }
      g_string_append (sql, ") VALUES (");
      for (guint i = 0; i < kind->n_fields + child; i++)
        g_string_append (sql, i ? ", ?" : "?");
      g_string_append (sql, ")");
      if (sqlite3_prepare_v2 (imp->db, sql->str, -1, &imp->insert[k], NULL) != SQLITE_OK)
        return store_failed (imp, "preparing the import", error);
    }
  return TRUE;
}

void
ls_importer_clear (importer *imp)
{
  for (guint i = 0; i < G_N_ELEMENTS (imp->find); i++)
    sqlite3_finalize (imp->find[i]);
  for (guint k = 0; k < N_KINDS; k++)
    sqlite3_finalize (imp->insert[k]);
  g_clear_pointer (&imp->machines, g_hash_table_unref);
  g_clear_pointer (&imp->sweeps, g_hash_table_unref);
  g_clear_pointer (&imp->runs, g_hash_table_unref);
  g_clear_pointer (&imp->hosts, g_hash_table_unref);
  g_clear_pointer (&imp->imported, g_array_unref);
}

void
ls_import_run_clear (ls_import_run *run)
{
  g_clear_pointer (&run->uuid, g_free);
  g_clear_pointer (&run->source_host, g_free);
}

/* Keeps what became of a run of the file. */
static void
note_run (importer *imp, gint64 local_id, const char *uuid, const char *fingerprint, gint64 source_id,
          gboolean present)
{
  ls_import_run run = { local_id, g_strdup (uuid), g_strdup (g_hash_table_lookup (imp->hosts, fingerprint)),
                        source_id, present };
  g_array_append_val (imp->imported, run);
}

/* The store's id of a row by its identity: 0 when absent, -1 on error. */
static gint64
find_id (importer *imp, int which, const char *key, GError **error)
{
  sqlite3_stmt *st = imp->find[which];
  gint64 id = 0;
  sqlite3_bind_text (st, 1, key, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step (st);
  if (rc == SQLITE_ROW)
    id = sqlite3_column_int64 (st, 0);
  sqlite3_reset (st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return store_failed (imp, "looking up existing rows", error), -1;
  return id;
}

/* Inserts a checked record; run_id > 0 for the rows of a run. */
static gint64
insert (importer *imp, int k, gint64 run_id, ls_field_value *values, const char *where, GError **error)
{
  const ls_record_kind *kind = kinds[k];
  sqlite3_stmt *st = imp->insert[k];
  int p = 1;

  if (run_id > 0)
    sqlite3_bind_int64 (st, p++, run_id);
  for (guint i = 0; i < kind->n_fields; i++, p++)
    {
      const ls_field *f = &kind->fields[i];
      const ls_field_value *v = &values[i];
      if (f->kind == LS_FIELD_MACHINE_REF || (f->kind == LS_FIELD_SWEEP_REF && v->type == LS_VALUE_TEXT))
        sqlite3_bind_int64 (st, p, *(gint64 *) g_hash_table_lookup (
                                       f->kind == LS_FIELD_MACHINE_REF ? imp->machines : imp->sweeps, v->s));
      else
        ls_field_value_bind (st, p, f, v);
    }
  int rc = sqlite3_step (st);
  sqlite3_reset (st);
  sqlite3_clear_bindings (st);
  if (rc == SQLITE_CONSTRAINT)
    return ls_store_invalid (error, "%s: conflicts with the rest of the file (%s)", where, sqlite3_errmsg (imp->db)), -1;
  if (rc != SQLITE_DONE)
    return store_failed (imp, "importing", error), -1;
  return sqlite3_last_insert_rowid (imp->db);
}

gboolean
ls_importer_machine (importer *imp, ls_field_value *v, const char *where, GError **error)
{
  const ls_record_kind *k = &ls_record_machine;
  if (!ls_record_check (k, v, where, error))
    return FALSE;
  const char *fp = value (k, v, "fingerprint")->s;
  if (g_hash_table_contains (imp->machines, fp))
    return ls_store_invalid (error, "%s: machine %s appears twice", where, fp);
  g_autofree char *expected = ls_machine_fingerprint (value (k, v, "hostname")->s, value (k, v, "os")->s,
                                                      value (k, v, "cpu_model")->s, value (k, v, "logical_cores")->i,
                                                      value (k, v, "ram_bytes")->i, value (k, v, "container")->s);
  if (strcmp (expected, fp) != 0)
    return ls_store_invalid (error, "%s.fingerprint: %s does not match the machine described (that one is %s)", where, fp,
                    expected);
  /* A machine already known keeps its row: it is the same machine. */
  gint64 id = find_id (imp, 0, fp, error);
  if (id == 0 && (id = insert (imp, K_MACHINE, 0, v, where, error)) > 0)
    imp->counts.machines_added++;
  if (id < 0)
    return FALSE;
  g_hash_table_insert (imp->machines, g_strdup (fp), boxed_id (id));
  g_hash_table_insert (imp->hosts, g_strdup (fp), g_strdup (value (k, v, "hostname")->s));
  return TRUE;
}

gboolean
ls_importer_sweep (importer *imp, ls_field_value *v, const char *where, GError **error)
{
  const ls_record_kind *k = &ls_record_sweep;
  if (!ls_record_check (k, v, where, error))
    return FALSE;
  const char *uuid = value (k, v, "uuid")->s;
  const char *machine = value (k, v, "machine_fingerprint")->s;
  if (g_hash_table_contains (imp->sweeps, uuid))
    return ls_store_invalid (error, "%s: sweep %s appears twice", where, uuid);
  if (imp->in_sweep_only && g_strcmp0 (uuid, imp->in_sweep) != 0)
    return ls_store_invalid (error, "%s: sweep %s is not the one this file belongs to (%s)", where, uuid,
                    imp->in_sweep ? imp->in_sweep : "none");
  if (!g_hash_table_contains (imp->machines, machine))
    return ls_store_invalid (error, "%s.machine_fingerprint: no machine %s in the file", where, machine);
  ls_field_value *status = value (k, v, "status");
  if (strcmp (status->s, "running") == 0)
    {
      status->s = "interrupted";
      status->len = strlen (status->s);
    }
  /* Its owner is a process of the exporting machine: none here. */
  value (k, v, "owner_pid")->type = LS_VALUE_NULL;
  value (k, v, "owner_start")->type = LS_VALUE_NULL;
  gint64 id = find_id (imp, 1, uuid, error);
  if (id == 0 && (id = insert (imp, K_SWEEP, 0, v, where, error)) > 0)
    imp->counts.sweeps_added++;
  if (id < 0)
    return FALSE;
  g_hash_table_insert (imp->sweeps, g_strdup (uuid), boxed_id (id));
  return TRUE;
}

/* The run's id in the store, 0 when it is there already (its rows are
 * then checked, not written), -1 on error. */
gint64
ls_importer_run (importer *imp, ls_field_value *v, gint64 source_id, const char *where, GError **error)
{
  const ls_record_kind *k = &ls_record_run;
  if (!ls_record_check (k, v, where, error))
    return -1;
  const char *uuid = value (k, v, "uuid")->s;
  const char *machine = value (k, v, "machine_fingerprint")->s;
  const ls_field_value *sweep = value (k, v, "sweep_uuid");
  if (g_hash_table_contains (imp->runs, uuid))
    return ls_store_invalid (error, "%s: run %s appears twice", where, uuid), -1;
  g_hash_table_add (imp->runs, g_strdup (uuid));
  if (!g_hash_table_contains (imp->machines, machine))
    return ls_store_invalid (error, "%s.machine_fingerprint: no machine %s in the file", where, machine), -1;
  if (sweep->type == LS_VALUE_TEXT && !g_hash_table_contains (imp->sweeps, sweep->s))
    return ls_store_invalid (error, "%s.sweep_uuid: no sweep %s in the file", where, sweep->s), -1;
  if (imp->in_sweep_only && (sweep->type != LS_VALUE_TEXT || g_strcmp0 (sweep->s, imp->in_sweep) != 0))
    return ls_store_invalid (error, "%s.sweep_uuid: %s, not the sweep this file belongs to (%s)", where,
                    sweep->type == LS_VALUE_TEXT ? sweep->s : "none", imp->in_sweep ? imp->in_sweep : "none"),
           -1;
  gboolean sim_sink = strcmp (value (k, v, "sink")->s, "sim") == 0;
  if (value (k, v, "simulated")->i != sim_sink)
    return ls_store_invalid (error, "%s.simulated: %s, but the sink is %s", where,
                    value (k, v, "simulated")->i ? "true" : "false", value (k, v, "sink")->s),
           -1;

  gint64 id = find_id (imp, 2, uuid, error);
  if (id != 0)
    {
      if (id > 0)
        {
          imp->counts.runs_present++;
          note_run (imp, id, uuid, machine, source_id, TRUE);
        }
      return id > 0 ? 0 : -1;
    }
  /* Its runner is on another machine, or gone: the run will not end. */
  ls_field_value *status = value (k, v, "status"), *err = value (k, v, "error");
  if (strcmp (status->s, "running") == 0)
    {
      status->s = "interrupted";
      status->len = strlen (status->s);
      if (err->type == LS_VALUE_NULL)
        {
          err->type = LS_VALUE_TEXT;
          err->s = RUNNING_NOTE;
          err->len = strlen (RUNNING_NOTE);
        }
    }
  value (k, v, "runner_pid")->type = LS_VALUE_NULL;
  id = insert (imp, K_RUN, 0, v, where, error);
  if (id > 0)
    {
      imp->counts.runs_imported++;
      note_run (imp, id, uuid, machine, source_id, FALSE);
    }
  return id;
}

/* A batch, sample or worker of a run (run_id 0: the run was there already). */
gboolean
ls_importer_child (importer *imp, int k, gint64 run_id, gint64 batch_size, ls_field_value *v, const char *where,
                   GError **error)
{
  if (!ls_record_check (kinds[k], v, where, error))
    return FALSE;
  if (k == K_BATCH && value (kinds[k], v, "samples")->i > batch_size)
    return ls_store_invalid (error, "%s.samples: %" G_GINT64_FORMAT " is more than the run's batch size (%" G_GINT64_FORMAT ")",
                    where, value (kinds[k], v, "samples")->i, batch_size);
  return run_id == 0 || insert (imp, k, run_id, v, where, error) > 0;
}
