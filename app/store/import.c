#include "app/store/import.h"
#include "app/core/i18n.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "app/core/text-controls.h"
#include "app/file/test-hold.h"
#include "app/store/export-format-private.h"
#include "app/store/import-input.h"
#include "app/store/json-spans.h"
#include "app/store/store-private.h"
#include "platform/cleanup.h"

#define RUNNING_NOTE "it was still running when it was exported"

enum { K_MACHINE, K_SWEEP, K_RUN, K_BATCH, K_SAMPLE, K_WORKER, N_KINDS };

static const ls_record_kind *const kinds[N_KINDS] = {
  &ls_record_machine, &ls_record_sweep, &ls_record_run, &ls_record_batch, &ls_record_sample, &ls_record_worker,
};

static const char *const child_extra[] = { "batches", "series", "worker_processes", NULL };

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

static gboolean
invalid (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  char *message = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error_literal (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, message);
  g_free (message);
  return FALSE;
}

static gboolean
store_failed (importer *imp, const char *what, GError **error)
{
  g_set_error (error, LS_STORE_ERROR, (sqlite3_errcode (imp->db) & 0xff) == SQLITE_BUSY ? LS_STORE_ERROR_BUSY
                                                                                        : LS_STORE_ERROR_SQL,
               "%s: %s: %s", ls_store_path (imp->store), what, sqlite3_errmsg (imp->db));
  return FALSE;
}

static ls_field_value *
value (const ls_record_kind *kind, ls_field_value *values, const char *name)
{
  int i = ls_record_field_index (kind, name);
  g_assert (i >= 0);
  return &values[i];
}

static gint64 *
boxed_id (gint64 id)
{
  gint64 *p = g_new (gint64, 1);
  *p = id;
  return p;
}

/* ---- writing into the store ------------------------------------------ */

static gboolean
importer_init (importer *imp, ls_store *store, GError **error)
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

static void
importer_clear (importer *imp)
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
    return invalid (error, "%s: conflicts with the rest of the file (%s)", where, sqlite3_errmsg (imp->db)), -1;
  if (rc != SQLITE_DONE)
    return store_failed (imp, "importing", error), -1;
  return sqlite3_last_insert_rowid (imp->db);
}

static gboolean
import_machine (importer *imp, ls_field_value *v, const char *where, GError **error)
{
  const ls_record_kind *k = &ls_record_machine;
  if (!ls_record_check (k, v, where, error))
    return FALSE;
  const char *fp = value (k, v, "fingerprint")->s;
  if (g_hash_table_contains (imp->machines, fp))
    return invalid (error, "%s: machine %s appears twice", where, fp);
  g_autofree char *expected = ls_machine_fingerprint (value (k, v, "hostname")->s, value (k, v, "os")->s,
                                                      value (k, v, "cpu_model")->s, value (k, v, "logical_cores")->i,
                                                      value (k, v, "ram_bytes")->i, value (k, v, "container")->s);
  if (strcmp (expected, fp) != 0)
    return invalid (error, "%s.fingerprint: %s does not match the machine described (that one is %s)", where, fp,
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

static gboolean
import_sweep (importer *imp, ls_field_value *v, const char *where, GError **error)
{
  const ls_record_kind *k = &ls_record_sweep;
  if (!ls_record_check (k, v, where, error))
    return FALSE;
  const char *uuid = value (k, v, "uuid")->s;
  const char *machine = value (k, v, "machine_fingerprint")->s;
  if (g_hash_table_contains (imp->sweeps, uuid))
    return invalid (error, "%s: sweep %s appears twice", where, uuid);
  if (imp->in_sweep_only && g_strcmp0 (uuid, imp->in_sweep) != 0)
    return invalid (error, "%s: sweep %s is not the one this file belongs to (%s)", where, uuid,
                    imp->in_sweep ? imp->in_sweep : "none");
  if (!g_hash_table_contains (imp->machines, machine))
    return invalid (error, "%s.machine_fingerprint: no machine %s in the file", where, machine);
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
static gint64
import_run (importer *imp, ls_field_value *v, gint64 source_id, const char *where, GError **error)
{
  const ls_record_kind *k = &ls_record_run;
  if (!ls_record_check (k, v, where, error))
    return -1;
  const char *uuid = value (k, v, "uuid")->s;
  const char *machine = value (k, v, "machine_fingerprint")->s;
  const ls_field_value *sweep = value (k, v, "sweep_uuid");
  if (g_hash_table_contains (imp->runs, uuid))
    return invalid (error, "%s: run %s appears twice", where, uuid), -1;
  g_hash_table_add (imp->runs, g_strdup (uuid));
  if (!g_hash_table_contains (imp->machines, machine))
    return invalid (error, "%s.machine_fingerprint: no machine %s in the file", where, machine), -1;
  if (sweep->type == LS_VALUE_TEXT && !g_hash_table_contains (imp->sweeps, sweep->s))
    return invalid (error, "%s.sweep_uuid: no sweep %s in the file", where, sweep->s), -1;
  if (imp->in_sweep_only && (sweep->type != LS_VALUE_TEXT || g_strcmp0 (sweep->s, imp->in_sweep) != 0))
    return invalid (error, "%s.sweep_uuid: %s, not the sweep this file belongs to (%s)", where,
                    sweep->type == LS_VALUE_TEXT ? sweep->s : "none", imp->in_sweep ? imp->in_sweep : "none"),
           -1;
  gboolean sim_sink = strcmp (value (k, v, "sink")->s, "sim") == 0;
  if (value (k, v, "simulated")->i != sim_sink)
    return invalid (error, "%s.simulated: %s, but the sink is %s", where,
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
static gboolean
import_child (importer *imp, int k, gint64 run_id, gint64 batch_size, ls_field_value *v, const char *where,
              GError **error)
{
  if (!ls_record_check (kinds[k], v, where, error))
    return FALSE;
  if (k == K_BATCH && value (kinds[k], v, "samples")->i > batch_size)
    return invalid (error, "%s.samples: %" G_GINT64_FORMAT " is more than the run's batch size (%" G_GINT64_FORMAT ")",
                    where, value (kinds[k], v, "samples")->i, batch_size);
  return run_id == 0 || insert (imp, k, run_id, v, where, error) > 0;
}

/* ---- JSON exports ------------------------------------------------------ */

/* A JSON export is walked span by span (json-spans.h): the text is held
 * once and each record parsed alone, so an import takes about the file's
 * size in memory, not json-glib's tree of all of it. */

/* Syntax: the file is no JSON after all. */
static gboolean
not_json (GError **error, const char *why)
{
  return invalid (error, "not a Loadscope export: neither an SQLite bundle nor JSON (%s); " LS_IMPORT_FORMATS_TEXT,
                  why);
}

/* The span parsed (one record, or a scalar) with the import's parser: its
 * root, owned by the parser until the next parse. */
static JsonNode *
parse_span (JsonParser *parser, const char *text, gsize len, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (!json_parser_load_from_data (parser, text, (gssize) len, &local))
    return not_json (error, local->message), NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (!root)
    return not_json (error, "a value expected"), NULL;
  return root;
}

/* A member name's raw text, for messages and lookups (an export's names
 * hold no escapes; one that does is an unknown field). */
static char *
name_text (const char *name, gsize len)
{
  g_autofree char *raw = g_strndup (name, len);
  return ls_text_clean (raw, TRUE);
}

typedef struct {
  const char *value;
  gsize len;
} span;

/* The object's members whose names are in names[] into spans[] (a name
 * twice is refused); any other name is refused, unless skip_unknown (then
 * the caller gets them through others: "name":value text, comma joined). */
static gboolean
member_spans (const char *text, gsize len, const char *const *names, span *spans, GString *others,
              const char *where, GError **error)
{
  ls_json_cursor c;
  g_autoptr (GError) local = NULL;
  if (!ls_json_cursor_open (&c, text, len, '{', &local))
    return not_json (error, local->message);
  const char *name, *value;
  gsize name_len, value_len;
  int got;
  while ((got = ls_json_cursor_member (&c, &name, &name_len, &value, &value_len, &local)) == 1)
    {
      gint found = -1;
      for (gint i = 0; names[i]; i++)
        if (strlen (names[i]) == name_len && memcmp (names[i], name, name_len) == 0)
          found = i;
      if (found < 0)
        {
          if (!others)
            {
              g_autofree char *shown = name_text (name, name_len);
              return invalid (error, "%sunknown field '%s'", where, shown);
            }
          if (others->len > 1)
            g_string_append_c (others, ',');
          g_string_append_c (others, '"');
          g_string_append_len (others, name, (gssize) name_len);
          g_string_append (others, "\":");
          g_string_append_len (others, value, (gssize) value_len);
          continue;
        }
      if (spans[found].value)
        return invalid (error, "%sfield '%s' appears twice", where, names[found]);
      spans[found] = (span){ value, value_len };
    }
  if (got < 0)
    return not_json (error, local->message);
  /* Nothing but blanks after the object. */
  while (c.pos < c.len && (c.text[c.pos] == ' ' || c.text[c.pos] == '\t' || c.text[c.pos] == '\n'
                           || c.text[c.pos] == '\r'))
    c.pos++;
  if (c.pos < c.len)
    return not_json (error, "text after the end");
  return TRUE;
}

typedef gboolean (*json_row_func) (importer *imp, JsonObject *row, int version, const char *where, gpointer user,
                                   GError **error);

/* Each element of the array at s (named `name` in `where`), an object,
 * parsed alone and handed to each. */
static gboolean
each_element (importer *imp, JsonParser *parser, span s, const char *where, const char *name, int version,
              json_row_func each, gpointer user, GError **error)
{
  if (!s.value)
    return invalid (error, "%s: missing field '%s'", where, name);
  ls_json_cursor c;
  g_autoptr (GError) local = NULL;
  if (!ls_json_cursor_open (&c, s.value, s.len, '[', &local))
    return invalid (error, "%s.%s: expected an array", where, name);
  const char *value;
  gsize len;
  int got;
  for (guint i = 0; (got = ls_json_cursor_element (&c, &value, &len, &local)) == 1; i++)
    {
      g_autofree char *at = g_strdup_printf ("%s%s%s[%u]", where, *where ? "." : "", name, i);
      JsonNode *n = parse_span (parser, value, len, error);
      if (!n)
        return FALSE;
      if (!JSON_NODE_HOLDS_OBJECT (n))
        return invalid (error, "%s: expected an object", at);
      if (!each (imp, json_node_get_object (n), version, at, user, error))
        return FALSE;
    }
  return got == 0 ? TRUE : not_json (error, local->message);
}

typedef struct {
  int k;
  gint64 run_id;
  gint64 batch_size;
} json_run_ctx;

static gboolean
json_child (importer *imp, JsonObject *row, int version, const char *where, gpointer user, GError **error)
{
  json_run_ctx *c = user;
  ls_field_value values[64];
  gboolean ok = ls_record_from_json (kinds[c->k], row, version, NULL, values, where, error)
                && import_child (imp, c->k, c->run_id, c->batch_size, values, where, error);
  ls_field_values_clear (values, kinds[c->k]->n_fields);
  return ok;
}

/* A run: its own fields parsed apart from its batches, series and worker
 * processes, which are parsed one row at a time. */
static gboolean
json_run (importer *imp, JsonParser *parser, const char *text, gsize len, int version, const char *where,
          GError **error)
{
  static const char *const children[] = { "batches", "series", "worker_processes", NULL };
  span spans[3] = { { 0 } };
  ls_field_value values[64];
  g_assert (ls_record_run.n_fields <= G_N_ELEMENTS (values));
  g_autoptr (GString) own = g_string_new ("{");
  g_autofree char *prefix = g_strdup_printf ("%s: ", where);
  if (!member_spans (text, len, children, spans, own, prefix, error))
    return FALSE;
  g_string_append_c (own, '}');
  JsonNode *n = parse_span (parser, own->str, own->len, error);
  if (!n)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return invalid (error, "%s: expected an object", where);
  if (!ls_record_from_json (&ls_record_run, json_node_get_object (n), version, child_extra, values, where, error))
    return FALSE;
  json_run_ctx c = { 0, import_run (imp, values, -1, where, error), value (&ls_record_run, values, "batch_size")->i };
  ls_field_values_clear (values, ls_record_run.n_fields);
  if (c.run_id < 0)
    return FALSE;
  for (c.k = K_BATCH; c.k <= K_WORKER; c.k++)
    if (!each_element (imp, parser, spans[c.k - K_BATCH], where, kinds[c.k]->plural, version, json_child, &c, error))
      return FALSE;
  return TRUE;
}

static gboolean
json_top_record (importer *imp, JsonObject *row, int version, const char *where, gpointer user, GError **error)
{
  int k = GPOINTER_TO_INT (user);
  ls_field_value values[64];
  gboolean ok = ls_record_from_json (kinds[k], row, version, NULL, values, where, error)
                && (k == K_MACHINE ? import_machine (imp, values, where, error)
                                   : import_sweep (imp, values, where, error));
  ls_field_values_clear (values, kinds[k]->n_fields);
  return ok;
}

/* A scalar member of the export's top: its node, or NULL when absent. */
static JsonNode *
top_value (JsonParser *parser, span s, GError **error, gboolean *bad)
{
  *bad = FALSE;
  if (!s.value)
    return NULL;
  JsonNode *n = parse_span (parser, s.value, s.len, error);
  *bad = n == NULL;
  return n;
}

static gboolean
import_json (importer *imp, const char *text, gsize len, GError **error)
{
  enum { T_FORMAT, T_VERSION, T_EXPORTED_AT, T_GENERATOR, T_MACHINES, T_SWEEPS, T_RUNS };
  static const char *const top[] = { "format", "version", "exported_at", "generator", "machines", "sweeps", "runs",
                                     NULL };
  span spans[7] = { { 0 } };
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  gboolean bad = FALSE;

  gsize i = 0;
  if (len >= 3 && (guchar) text[0] == 0xef && (guchar) text[1] == 0xbb && (guchar) text[2] == 0xbf)
    i = 3;
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    i++;
  if (i < len && text[i] != '{')
    return invalid (error, "not a Loadscope export (JSON, but not an object)");
  if (!member_spans (text, len, top, spans, NULL, "", error))
    return FALSE;

  JsonNode *format = top_value (parser, spans[T_FORMAT], error, &bad);
  if (bad)
    return FALSE;
  if (!format || !JSON_NODE_HOLDS_VALUE (format) || json_node_get_value_type (format) != G_TYPE_STRING
      || strcmp (json_node_get_string (format), LS_EXPORT_FORMAT_NAME) != 0)
    return invalid (error, "not a Loadscope export (JSON without \"format\": \"%s\")", LS_EXPORT_FORMAT_NAME);
  JsonNode *version_node = top_value (parser, spans[T_VERSION], error, &bad);
  if (bad)
    return FALSE;
  if (!version_node || !JSON_NODE_HOLDS_VALUE (version_node) || json_node_get_value_type (version_node) != G_TYPE_INT64)
    return invalid (error, "version: missing, or not an integer");
  gint64 version = json_node_get_int (version_node);
  if (version > LS_STORE_SCHEMA_VERSION)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_VERSION,
                   _("written by a newer Loadscope (export version %lld; this one reads up to %d)"),
                   (long long) version, LS_STORE_SCHEMA_VERSION);
      return FALSE;
    }
  if (version < 1)
    return invalid (error, "version: %" G_GINT64_FORMAT " is not a Loadscope export version", version);
  JsonNode *when = top_value (parser, spans[T_EXPORTED_AT], error, &bad);
  if (bad)
    return FALSE;
  GDateTime *t = when && JSON_NODE_HOLDS_VALUE (when) && json_node_get_value_type (when) == G_TYPE_STRING
                     ? g_date_time_new_from_iso8601 (json_node_get_string (when), NULL)
                     : NULL;
  if (!t)
    return invalid (error, "exported_at: missing, or not an ISO 8601 time");
  g_date_time_unref (t);
  JsonNode *generator = top_value (parser, spans[T_GENERATOR], error, &bad);
  if (bad)
    return FALSE;
  if (generator && (!JSON_NODE_HOLDS_VALUE (generator) || json_node_get_value_type (generator) != G_TYPE_STRING))
    return invalid (error, "generator: expected text");

  static const int order[] = { T_MACHINES, T_SWEEPS, T_RUNS };
  for (guint o = 0; o < G_N_ELEMENTS (order); o++)
    if (!spans[order[o]].value)
      return invalid (error, "the export: missing field '%s'", top[order[o]]);
  if (!each_element (imp, parser, spans[T_MACHINES], "", "machines", (int) version, json_top_record,
                     GINT_TO_POINTER (K_MACHINE), error)
      || !each_element (imp, parser, spans[T_SWEEPS], "", "sweeps", (int) version, json_top_record,
                        GINT_TO_POINTER (K_SWEEP), error))
    return FALSE;

  ls_json_cursor c;
  g_autoptr (GError) local = NULL;
  if (!ls_json_cursor_open (&c, spans[T_RUNS].value, spans[T_RUNS].len, '[', &local))
    return invalid (error, "the export.runs: expected an array");
  const char *value;
  gsize value_len;
  int got;
  for (guint r = 0; (got = ls_json_cursor_element (&c, &value, &value_len, &local)) == 1; r++)
    {
      g_autofree char *at = g_strdup_printf ("runs[%u]", r);
      gsize k = 0;
      while (k < value_len && value[k] != '{' && (value[k] == ' ' || value[k] == '\n'))
        k++;
      if (k >= value_len || value[k] != '{')
        return invalid (error, "%s: expected an object", at);
      if (!json_run (imp, parser, value, value_len, (int) version, at, error))
        return FALSE;
    }
  return got == 0 ? TRUE : not_json (error, local->message);
}

/* ---- sqlite bundles ---------------------------------------------------- */

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

static void
bundle_init (bundle *b)
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

static void
bundle_clear (bundle *b)
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
  return invalid (error, "%s: %s", what, sqlite3_errmsg (ls_store_db (b->store)));
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
    return invalid (error, "a damaged or truncated SQLite file (no complete header)");
  guint64 page = (guint64) head[16] << 8 | head[17];
  if (page == 1)
    page = 65536;
  if (page < 512 || (page & (page - 1)) != 0)
    return invalid (error, "a damaged or truncated SQLite file (page size %" G_GUINT64_FORMAT ")", page);
  if ((guint64) st.st_size % page != 0)
    return invalid (error, "a damaged or truncated SQLite file (%" G_GUINT64_FORMAT " bytes: not whole pages of %"
                    G_GUINT64_FORMAT ")", (guint64) st.st_size, page);
  /* The page count is valid when the change counter matches "version
   * valid for"; with a WAL beside it the file may lag. */
  guint64 pages = be32 (head + 28);
  if (be32 (head + 24) == be32 (head + 92) && pages > 0 && !g_file_test (wal, G_FILE_TEST_EXISTS)
      && (guint64) st.st_size < pages * page)
    return invalid (error, "a damaged or truncated SQLite file (%" G_GUINT64_FORMAT " of its %" G_GUINT64_FORMAT " bytes)",
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
      invalid (error, "%s \"%s\": a bundle holds only tables (no views, triggers or virtual tables)",
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
static gboolean
bundle_open (bundle *b, const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;

  GStatBuf fst;
  if (g_stat (path, &fst) != 0 || !S_ISREG (fst.st_mode))
    return invalid (error, "a bundle must be a regular file");
  if ((guint64) fst.st_size > LS_IMPORT_MAX_BYTES)
    return invalid (error, "larger than the %" G_GUINT64_FORMAT " MiB an import reads", LS_IMPORT_MAX_BYTES >> 20);
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
        return invalid (error, "damaged, or not a Loadscope bundle (%.*s)", (int) (close - open - 1), open + 1);
      return invalid (error, "damaged, or not a Loadscope bundle");
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
    return invalid (error, "a damaged or truncated SQLite file (%s)", check ? check : "unreadable");

  int version = ls_store_schema_version (b->store);
  if (version > LS_STORE_SCHEMA_VERSION)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_VERSION,
                   _("written by a newer Loadscope (schema version %d; this one knows up to %d)"), version,
                   LS_STORE_SCHEMA_VERSION);
      return FALSE;
    }
  if (version < 1)
    return invalid (error, "not a Loadscope bundle (an SQLite file without Loadscope's schema)");
  if (version < LS_STORE_SCHEMA_VERSION && !ls_store_migrate_to (b->store, LS_STORE_SCHEMA_VERSION, &local))
    return invalid (error, "migrating the bundle from schema version %d: %s", version, local->message);

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
        return invalid (error, "%" G_GINT64_FORMAT " %s", n, orphans[i].what);
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
  return import_machine (imp, values, where, error);
}

static gboolean
bundle_sweep (importer *imp, ls_field_value *values, gint64 id, gpointer user, GError **error)
{
  (void) user;
  g_autofree char *where = g_strdup_printf ("sweep %" G_GINT64_FORMAT, id);
  return import_sweep (imp, values, where, error);
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
  return import_child (imp, c->k, c->run_id, c->batch_size, values, where, error);
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
    return invalid (error, "%s.id: %" G_GINT64_FORMAT " is not a positive integer (a run's batches, samples and "
                    "workers refer to it by id)", where, id);
  c.run_id = import_run (imp, values, id, where, error);
  if (c.run_id < 0)
    return FALSE;
  c.batch_size = value (&ls_record_run, values, "batch_size")->i;
  for (c.k = K_BATCH; c.k <= K_WORKER; c.k++)
    if (!bundle_rows (c.b, imp, c.k, tails[c.k - K_BATCH], id, bundle_child, &c, error))
      return FALSE;
  return TRUE;
}

static gboolean
import_bundle (importer *imp, bundle *b, GError **error)
{
  return bundle_rows (b, imp, K_MACHINE, "ORDER BY t.id", 0, bundle_machine, NULL, error)
         && bundle_rows (b, imp, K_SWEEP, "ORDER BY t.id", 0, bundle_sweep, NULL, error)
         && bundle_rows (b, imp, K_RUN, "ORDER BY t.id", 0, bundle_run, b, error);
}

/* ---- the whole import -------------------------------------------------- */

gboolean
ls_import_file (ls_store *store, const char *path, ls_import_counts *counts, GError **error)
{
  return ls_import_file_runs (store, path, counts, NULL, error);
}

static gboolean import_file (ls_store *store, const char *path, gboolean in_sweep_only, const char *in_sweep,
                             ls_import_counts *counts, GArray **runs, GError **error);

gboolean
ls_import_file_runs (ls_store *store, const char *path, ls_import_counts *counts, GArray **runs, GError **error)
{
  return import_file (store, path, FALSE, NULL, counts, runs, error);
}

gboolean
ls_import_file_in_sweep (ls_store *store, const char *path, const char *sweep_uuid, ls_import_counts *counts,
                         GError **error)
{
  return import_file (store, path, TRUE, sweep_uuid, counts, NULL, error);
}

static gboolean
import_file (ls_store *store, const char *path, gboolean in_sweep_only, const char *in_sweep,
             ls_import_counts *counts, GArray **runs, GError **error)
{
  g_autoptr (GBytes) json_text = NULL;
  char *json_data = NULL;
  gsize json_len = 0;
  g_autoptr (GError) local = NULL;
  bundle b;
  importer imp;
  guint8 head[LS_IMPORT_SNIFF_BYTES] = { 0 };
  gboolean ok = FALSE, in_transaction = FALSE;

  memset (counts, 0, sizeof *counts);
  bundle_init (&b);
  if (runs)
    *runs = NULL;
  FILE *f = fopen (path, "rb");
  if (!f)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("%s: cannot read it: %s"), path, g_strerror (errno));
      return FALSE;
    }
  size_t got = fread (head, 1, sizeof head, f);
  fclose (f);
  ls_import_sniff kind = ls_import_sniff_head (head, got);
  gboolean is_sqlite = kind == LS_IMPORT_SNIFF_SQLITE;
  gboolean csv = g_str_has_suffix (path, ".csv") || g_str_has_suffix (path, ".CSV")
                 || (got >= 7 && memcmp (head, "run_id,", 7) == 0);

  /* Neither SQLite nor JSON from its first bytes: refused before the rest
   * is read (a 1 GiB file of zeros, /dev/zero). */
  if (kind == LS_IMPORT_SNIFF_OTHER)
    {
      if (csv)
        invalid (&local, "a CSV file: " LS_IMPORT_FORMATS_TEXT);
      else
        invalid (&local, "not a Loadscope export: neither an SQLite bundle nor JSON (it starts with byte 0x%02x); "
                 LS_IMPORT_FORMATS_TEXT, head[0]);
      goto out;
    }
  if (kind == LS_IMPORT_SNIFF_EMPTY)
    {
      invalid (&local, "not a Loadscope export: an empty file");
      goto out;
    }

  /* The file first: nothing is written until it has been opened. */
  if (is_sqlite)
    {
      if (!bundle_open (&b, path, &local))
        goto out;
    }
  else
    {
      /* The text is held once; its records are parsed one at a time. */
      if (!ls_import_read_capped (path, LS_IMPORT_MAX_BYTES, &json_text, &local))
        goto out;
      json_data = g_bytes_unref_to_data (g_steal_pointer (&json_text), &json_len);
      json_text = g_bytes_new_take (json_data, json_len); /* owns it; repaired in place */
      json_len = ls_json_text_repair_numbers (json_data, json_len);
      if (!ls_json_text_check (json_data ? json_data : "", json_len, &local))
        goto out;
    }

  if (!importer_init (&imp, store, &local))
    goto clear;
  imp.in_sweep_only = in_sweep_only;
  imp.in_sweep = in_sweep;
  /* IMMEDIATE: wait for (or fail on) another writer now, not halfway. */
  if (!ls_store_exec (store, "BEGIN IMMEDIATE", &local))
    {
      if (g_error_matches (local, LS_STORE_ERROR, LS_STORE_ERROR_BUSY))
        {
          g_clear_error (&local);
          g_set_error (&local, LS_STORE_ERROR, LS_STORE_ERROR_BUSY,
                       _("%s: the store is locked by another program (a run or an import?; waited %.1f s for it)"),
                       ls_store_path (store), ls_store_busy_ms (store) / 1000.0);
        }
      goto clear;
    }
  in_transaction = TRUE;
  if (is_sqlite)
    ls_test_hold ("import", b.copy);
  ok = is_sqlite ? import_bundle (&imp, &b, &local) : import_json (&imp, json_data ? json_data : "", json_len, &local);
  if (ok && !ls_store_exec (store, "COMMIT", &local))
    ok = FALSE;
  if (ok)
    {
      *counts = imp.counts;
      if (runs)
        *runs = g_steal_pointer (&imp.imported);
    }

clear:
  if (!ok && in_transaction)
    sqlite3_exec (ls_store_db (store), "ROLLBACK", NULL, NULL, NULL);
  importer_clear (&imp);
out:
  bundle_clear (&b);
  if (!ok)
    {
      /* Problems of the file name it; those of the store name the store. */
      if (local->domain == LS_STORE_ERROR
          && (local->code == LS_STORE_ERROR_INVALID || local->code == LS_STORE_ERROR_VERSION))
        g_prefix_error (&local, "%s: ", path);
      else if (local->domain != LS_STORE_ERROR)
        {
          g_autofree char *why = g_strdup (local->message);
          g_clear_error (&local);
          g_set_error (&local, LS_STORE_ERROR, LS_STORE_ERROR_OPEN, "%s: %s", path, why);
        }
      g_propagate_error (error, g_steal_pointer (&local));
    }
  return ok;
}
