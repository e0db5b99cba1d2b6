#include "app/store/store-query.h"
#include "app/core/i18n.h"
#include "app/core/summary-keys.h"
#include "app/store/store-private.h"

#include <math.h>

#include <string.h>

const ls_run_knob ls_run_knobs[] = {
  { "dataset", N_ ("dataset"), FALSE, FALSE },
  { "format", N_ ("format"), FALSE, FALSE },
  { "workers", N_ ("workers"), FALSE, FALSE },
  { "start_method", N_ ("start"), FALSE, FALSE },
  { "batch_size", N_ ("batch size"), FALSE, FALSE },
  { "prefetch", N_ ("prefetch"), FALSE, FALSE },
  { "persistent", N_ ("persistent"), TRUE, FALSE },
  { "shuffle", N_ ("shuffle"), TRUE, FALSE },
  { "drop_last", N_ ("drop last"), TRUE, FALSE },
  { "in_order", N_ ("in order"), TRUE, FALSE },
  { "seed", N_ ("seed"), FALSE, FALSE },
  { "timeout_s", N_ ("timeout (s)"), FALSE, FALSE },
  { "on_error", N_ ("on error"), FALSE, FALSE },
  { "output", N_ ("output"), FALSE, FALSE },
  { "epochs", N_ ("epochs"), FALSE, FALSE },
  { "max_batches", N_ ("batches"), FALSE, FALSE },
  { "warmup", N_ ("warm-up"), FALSE, FALSE },
  { "sink", N_ ("sink"), FALSE, FALSE },
  { "pin", N_ ("pin"), FALSE, FALSE },
  { "non_blocking", N_ ("non-blocking"), TRUE, FALSE },
  { "model_ms", N_ ("model (ms)"), FALSE, FALSE },
  { "ranks", N_ ("ranks"), FALSE, TRUE },
  { "threads", N_ ("threads per rank"), FALSE, TRUE },
};
const guint ls_n_run_knobs = G_N_ELEMENTS (ls_run_knobs);

const ls_run_figure ls_run_figures[] = {
  { LS_KEY_THROUGHPUT, N_ ("throughput"), N_ ("samples/s"), 1, 0 },
  { "wait_p50_ms", N_ ("batch wait p50"), "ms", 1, 3 },
  { "wait_p95_ms", N_ ("batch wait p95"), "ms", 1, 3 },
  { "wait_p99_ms", N_ ("batch wait p99"), "ms", 1, 3 },
  { LS_KEY_GPU_UTIL_EXACT, N_ ("GPU util (exact)"), "%", 100, 1 },
  { LS_KEY_GPU_UTIL_NVML, N_ ("GPU util (NVML)"), "%", 100, 1 },
  { LS_KEY_PSS_PEAK, N_ ("peak PSS"), "MB", 1e-6, 1 },
  { "rss_peak_bytes", N_ ("peak RSS"), "MB", 1e-6, 1 },
  { "cpu_percent", N_ ("CPU"),
    /* xgettext:no-c-format */
    N_ ("% of a core"), 1, 0 },
  { LS_KEY_FIRST_BATCH_MS, N_ ("first batch after"), "ms", 1, 1 },
  { "epoch_boundary_ms", N_ ("epoch boundary"), "ms", 1, 1 },
};
const guint ls_n_run_figures = G_N_ELEMENTS (ls_run_figures);

/* A script run's ranks and threads, from its summary (docs/ranks.md): the
 * ranks measured (or started, for a run that failed before they reported),
 * 1 for a script alone; the threads given (--threads), else those rank 0
 * reported; null for the loader's runs. Only script runs' summaries are
 * parsed, so History over a large store of loader runs pays nothing. */
#define RANKS_SQL                                                                                                      \
  "CASE WHEN r.format = 'pytorch' THEN COALESCE (json_extract (r.summary, '$.target.node.ranks'), "                    \
  "json_extract (r.summary, '$.target.ranks_started'), 1) END AS ranks, "                                               \
  "CASE WHEN r.format = 'pytorch' THEN COALESCE (json_extract (r.summary, '$.target.threads'), "                       \
  "json_extract (r.summary, '$.target.ranks[0].threads')) END AS threads"

ls_store *
ls_store_open_to_read (const char *path, GError **error)
{
  g_autofree char *default_path = path ? NULL : ls_store_default_path ();
  if (!path)
    path = default_path;
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND, _("%s: no store there (nothing recorded yet)"), path);
      return NULL;
    }
  /* Readers repair (dead runs) and migrate when they can write; where they
   * cannot (read-only folder or mount, a full disk, a writer holding the
   * lock), they read as the file is: reads never need to write. */
  g_autoptr (GError) local = NULL;
  ls_store *store = ls_store_open (path, &local);
  if (store)
    return store;
  if (g_error_matches (local, LS_STORE_ERROR, LS_STORE_ERROR_VERSION))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  g_autoptr (GError) ro_error = NULL;
  store = ls_store_open_read_only (path, &ro_error);
  if (!store)
    g_propagate_error (error, g_steal_pointer (&local));
  return store;
}

static gboolean
sql_failed (ls_store *store, const char *what, GError **error)
{
  g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_SQL, "%s: %s: %s", ls_store_path (store), what,
               sqlite3_errmsg (ls_store_db (store)));
  return FALSE;
}

/* `table` is "run" or "sweep". */
static gint64
find_by_ref (ls_store *store, const char *table, const char *ref, GError **error)
{
  sqlite3 *db = ls_store_db (store);
  sqlite3_stmt *st = NULL;
  g_autofree char *lower = g_ascii_strdown (ref, -1);
  gboolean digits = lower[0] != '\0', uuidish = lower[0] != '\0';
  gint64 found = -1;
  guint matches = 0;

  for (const char *p = lower; *p; p++)
    {
      digits &= g_ascii_isdigit (*p);
      uuidish &= g_ascii_isxdigit (*p) || *p == '-';
    }
  if (digits)
    {
      /* untranslated: SQL */
      g_autofree char *sql = g_strdup_printf ("SELECT id FROM %s WHERE id = ?", table);
      if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_failed (store, "finding the run", error), -1;
      sqlite3_bind_int64 (st, 1, g_ascii_strtoll (lower, NULL, 10));
      if (sqlite3_step (st) == SQLITE_ROW)
        found = sqlite3_column_int64 (st, 0);
      sqlite3_finalize (st);
      if (found > 0)
        return found;
    }
  /* A short number is an id, never a uuid prefix by chance; a prefix
   * needs 4 characters (a uuid starts with 8 hex digits). */
  if (uuidish && strlen (lower) >= 4 && !(digits && strlen (lower) < 8))
    {
      /* untranslated: SQL */
      g_autofree char *sql = g_strdup_printf ("SELECT id FROM %s WHERE substr (uuid, 1, ?) = ? LIMIT 2", table);
      if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_failed (store, "finding the run", error), -1;
      sqlite3_bind_int (st, 1, (int) strlen (lower));
      sqlite3_bind_text (st, 2, lower, -1, SQLITE_TRANSIENT);
      while (sqlite3_step (st) == SQLITE_ROW)
        {
          if (matches++ == 0)
            found = sqlite3_column_int64 (st, 0);
        }
      sqlite3_finalize (st);
      if (matches == 1)
        return found;
      if (matches > 1)
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                       _("'%s' is the start of several %s uuids in %s: give more of it"), ref, table,
                       ls_store_path (store));
          return -1;
        }
    }
  g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND, "no %s '%s' in %s", table, ref, ls_store_path (store));
  return -1;
}

gint64
ls_store_find_run (ls_store *store, const char *ref, GError **error)
{
  return find_by_ref (store, "run", ref, error);
}

gint64
ls_store_find_sweep (ls_store *store, const char *ref, GError **error)
{
  return find_by_ref (store, "sweep", ref, error);
}

GArray *
ls_store_select_runs (ls_store *store, const char *run_ref, const char *sweep_ref, GError **error)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  sqlite3_stmt *st = NULL;
  gint64 id;

  if (run_ref)
    {
      if ((id = ls_store_find_run (store, run_ref, error)) < 0)
        return NULL;
      g_array_append_val (ids, id);
      return g_steal_pointer (&ids);
    }
  if (sweep_ref && (id = ls_store_find_sweep (store, sweep_ref, error)) < 0)
    return NULL;
  if (sqlite3_prepare_v2 (ls_store_db (store),
                          sweep_ref ? "SELECT id FROM run WHERE sweep_id = ? ORDER BY id" : "SELECT id FROM run ORDER BY id",
                          -1, &st, NULL)
      != SQLITE_OK)
    return sql_failed (store, "selecting runs", error), NULL;
  if (sweep_ref)
    sqlite3_bind_int64 (st, 1, id);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      gint64 run = sqlite3_column_int64 (st, 0);
      g_array_append_val (ids, run);
    }
  sqlite3_finalize (st);
  return g_steal_pointer (&ids);
}

JsonArray *
ls_store_query_objects (ls_store *store, const char *sql, const gint64 *params, guint n_params, GError **error)
{
  sqlite3_stmt *st = NULL;
  JsonArray *rows;
  int rc;

  if (sqlite3_prepare_v2 (ls_store_db (store), sql, -1, &st, NULL) != SQLITE_OK)
    return sql_failed (store, "reading", error), NULL;
  for (guint i = 0; i < n_params; i++)
    sqlite3_bind_int64 (st, (int) i + 1, params[i]);
  rows = json_array_new ();
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      JsonObject *o = json_object_new ();
      for (int c = 0; c < sqlite3_column_count (st); c++)
        {
          const char *name = sqlite3_column_name (st, c);
          switch (sqlite3_column_type (st, c))
            {
            case SQLITE_INTEGER:
              json_object_set_int_member (o, name, sqlite3_column_int64 (st, c));
              break;
            case SQLITE_FLOAT:
              json_object_set_double_member (o, name, sqlite3_column_double (st, c));
              break;
            case SQLITE_TEXT:
              json_object_set_string_member (o, name, (const char *) sqlite3_column_text (st, c));
              break;
            default:
              json_object_set_null_member (o, name);
              break;
            }
        }
      json_array_add_object_element (rows, o);
    }
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    {
      json_array_unref (rows);
      return sql_failed (store, "reading", error), NULL;
    }
  return rows;
}

JsonObject *
ls_store_run_object (ls_store *store, gint64 run_id, GError **error)
{
  g_autoptr (JsonArray) rows = ls_store_query_objects (
      store,
      "SELECT r.*, m.hostname AS machine_hostname, m.os AS machine_os, m.kernel AS machine_kernel, "
      "m.arch AS machine_arch, m.cpu_model AS machine_cpu_model, m.logical_cores AS machine_logical_cores, "
      "m.ram_bytes AS machine_ram_bytes, m.gpu AS machine_gpu, m.driver AS machine_driver, m.cuda AS machine_cuda, "
      "m.container AS machine_container, m.fingerprint AS machine_fingerprint, s.uuid AS sweep_uuid, " RANKS_SQL ", "
      "(SELECT count (*) FROM batch WHERE batch.run_id = r.id) AS batches_recorded, "
      "(SELECT count (DISTINCT epoch) FROM batch WHERE batch.run_id = r.id) AS epochs_run, "
      "(SELECT avg (copy_ms) FROM batch WHERE batch.run_id = r.id AND batch.seq >= r.warmup) AS copy_ms_mean, "
      "(SELECT avg (compute_ms) FROM batch WHERE batch.run_id = r.id AND batch.seq >= r.warmup) AS compute_ms_mean "
      "FROM run r JOIN machine m ON m.id = r.machine_id LEFT JOIN sweep s ON s.id = r.sweep_id WHERE r.id = ?",
      &run_id, 1, error);
  if (!rows)
    return NULL;
  if (json_array_get_length (rows) == 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND, _("no run %lld in %s"), (long long) run_id,
                   ls_store_path (store));
      return NULL;
    }
  return json_object_ref (json_array_get_object_element (rows, 0));
}

JsonArray *
ls_store_history (ls_store *store, gint64 sweep_id, int limit, GError **error)
{
  gint64 params[2];
  guint n = 0;
  if (sweep_id > 0)
    params[n++] = sweep_id;
  params[n++] = limit > 0 ? limit : -1;
  g_autofree char *sql = g_strdup_printf (
      /* untranslated: SQL */
      "SELECT r.id, r.uuid, r.started_at, m.hostname AS machine, COALESCE (m.container, '') AS container, m.os, r.dataset, r.format, r.workers, "
      "r.start_method AS start, r.batch_size, r.prefetch, r.persistent, r.pin, r.non_blocking, r.model_ms, r.sink, "
      "r.simulated, r.status, r.error, r.throughput_sps, r.wait_p50_ms, r.wait_p95_ms, r.gpu_util_exact, "
      "r.gpu_util_nvml, r.pss_peak_bytes, COALESCE (r.pss_peak_bytes, r.private_peak_bytes) AS memory_peak_bytes, "
      "r.sweep_id, s.uuid AS sweep_uuid, " RANKS_SQL " "
      "FROM run r JOIN machine m ON m.id = r.machine_id LEFT JOIN sweep s ON s.id = r.sweep_id %s "
      "ORDER BY r.started_at DESC, r.id DESC LIMIT ?",
      sweep_id > 0 ? "WHERE r.sweep_id = ?" : "");
  JsonArray *rows = ls_store_query_objects (store, sql, params, n, error);
  if (!rows)
    return NULL;
  static const char *const flags[] = { "simulated", "persistent", "non_blocking" };
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);
      for (guint f = 0; f < G_N_ELEMENTS (flags); f++)
        if (!json_object_get_null_member (r, flags[f]))
          json_object_set_boolean_member (r, flags[f], json_object_get_int_member (r, flags[f]) != 0);
    }
  return rows;
}

char *
ls_run_machine_shown (JsonObject *run)
{
  const char *host = json_object_get_string_member_with_default (run, "machine", "?");
  const char *kind = json_object_get_string_member_with_default (run, "container", "");
  if (!kind || !*kind || g_str_equal (kind, "none"))
    return g_strdup (host);
  return g_strdup_printf ("%s (%s)", host, kind);
}

char *
ls_run_knob_text (JsonObject *run, const ls_run_knob *knob)
{
  JsonNode *n = json_object_get_member (run, knob->column);
  if (!n || JSON_NODE_HOLDS_NULL (n) || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return g_strdup ("-");
  GType t = json_node_get_value_type (n);
  if (t == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  if (knob->flag)
    return g_strdup (json_node_get_int (n) ? "on" : "off");
  if (t == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (n));
  return g_strdup_printf ("%g", json_node_get_double (n));
}

char *
ls_run_figure_heading (const ls_run_figure *figure)
{
  gsize n = strlen (figure->label);
  if (n > 0 && figure->label[n - 1] == ')')
    {
      /* "GPU util (exact)" and "%": "GPU util (exact, %)" */
      const char *label = _(figure->label);
      gsize m = strlen (label);
      if (m > 0 && label[m - 1] == ')')
        return g_strdup_printf ("%.*s, %s)", (int) (m - 1), label, _(figure->unit));
      /* a translation without the parenthesis */
      return g_strdup_printf ("%s (%s)", label, _(figure->unit));
    }
  return g_strdup_printf ("%s (%s)", _(figure->label), _(figure->unit));
}

char *
ls_run_figure_text (JsonObject *run, const ls_run_figure *figure)
{
  double v;
  if (!ls_json_number (run, figure->column, &v))
    return g_strdup ("-");
  return g_strdup_printf ("%.*f", figure->decimals, v * figure->scale);
}

char *
ls_store_time_short (const char *iso)
{
  if (!iso)
    return g_strdup ("-");
  g_autoptr (GDateTime) t = g_date_time_new_from_iso8601 (iso, NULL);
  if (!t)
    return g_strdup (iso);
  return g_date_time_format (t, "%Y-%m-%d %H:%M");
}

char *
ls_store_column_text (sqlite3_stmt *st, int column)
{
  return sqlite3_column_type (st, column) == SQLITE_NULL ? NULL
                                                         : g_strdup ((const char *) sqlite3_column_text (st, column));
}

double
ls_store_column_double (sqlite3_stmt *st, int column)
{
  return sqlite3_column_type (st, column) == SQLITE_NULL ? NAN : sqlite3_column_double (st, column);
}

sqlite3_stmt *
ls_store_row_by_id (ls_store *store, const char *sql, gint64 id, const char *what, GError **error)
{
  sqlite3_stmt *st = NULL;
  /* untranslated: said with a table's name */
  g_autofree char *doing = g_strdup_printf ("reading the %s", what);
  int rc = sqlite3_prepare_v2 (ls_store_db (store), sql, -1, &st, NULL);
  if (rc != SQLITE_OK)
    {
      ls_store_set_error (store, rc, doing, error);
      return NULL;
    }
  sqlite3_bind_int64 (st, 1, id);
  rc = sqlite3_step (st);
  if (rc == SQLITE_ROW)
    return st;
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    ls_store_set_error (store, rc, doing, error);
  else
    g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND, "%s: no %s %" G_GINT64_FORMAT, ls_store_path (store),
                 what, id);
  return NULL;
}

JsonArray *
ls_store_run_workers (ls_store *store, gint64 run_id, GError **error)
{
  return ls_store_query_objects (store,
                                 "SELECT idx, epoch, pid, startup_ms, exit, cpu_ns FROM worker WHERE run_id = ? "
                                 "ORDER BY epoch, idx",
                                 &run_id, 1, error);
}

gint64
ls_store_run_n_samples (ls_store *store, gint64 run_id, GError **error)
{
  g_autoptr (JsonArray) rows
      = ls_store_query_objects (store, "SELECT count (*) AS n FROM sample WHERE run_id = ?", &run_id, 1, error);
  return rows ? json_object_get_int_member (json_array_get_object_element (rows, 0), "n") : -1;
}

struct ls_store_rows {
  ls_store *store;
  sqlite3_stmt *st;
  char *what;
};

void
ls_store_rows_free (ls_store_rows *rows)
{
  if (!rows)
    return;
  sqlite3_finalize (rows->st);
  g_free (rows->what);
  g_free (rows);
}

ls_store_rows *
ls_store_rows_new (ls_store *store, const char *sql, const gint64 *params, guint n_params, const char *what,
                   GError **error)
{
  g_return_val_if_fail (store != NULL && sql != NULL && what != NULL, NULL);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2 (ls_store_db (store), sql, -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, what, error), NULL;
  for (guint i = 0; i < n_params; i++)
    sqlite3_bind_int64 (st, (int) i + 1, params[i]);
  ls_store_rows *rows = g_new0 (ls_store_rows, 1);
  rows->store = store;
  rows->st = st;
  rows->what = g_strdup (what);
  return rows;
}

ls_store_rows *
ls_store_rows_new_for_id (ls_store *store, const char *sql, gint64 id, const char *what, GError **error)
{
  g_return_val_if_fail (store != NULL && sql != NULL && what != NULL, NULL);
  sqlite3_stmt *st = ls_store_row_by_id (store, sql, id, what, error);
  if (!st)
    return NULL;
  ls_store_rows *rows = g_new0 (ls_store_rows, 1);
  rows->store = store;
  rows->st = st;
  /* untranslated: said with a table's name */
  rows->what = g_strdup_printf ("reading the %s", what);
  return rows;
}

gboolean
ls_store_rows_next (ls_store_rows *rows, GError **error)
{
  int rc = sqlite3_step (rows->st);
  if (rc == SQLITE_ROW)
    return TRUE;
  if (rc != SQLITE_DONE)
    ls_store_set_error (rows->store, rc, rows->what, error);
  return FALSE;
}

gboolean
ls_store_rows_is_null (ls_store_rows *rows, int column)
{
  return sqlite3_column_type (rows->st, column) == SQLITE_NULL;
}

gint64
ls_store_rows_get_int (ls_store_rows *rows, int column)
{
  return sqlite3_column_int64 (rows->st, column);
}

double
ls_store_rows_get_double (ls_store_rows *rows, int column)
{
  return ls_store_column_double (rows->st, column);
}

const char *
ls_store_rows_get_text (ls_store_rows *rows, int column)
{
  return (const char *) sqlite3_column_text (rows->st, column);
}

char *
ls_store_rows_dup_text (ls_store_rows *rows, int column)
{
  return ls_store_column_text (rows->st, column);
}
