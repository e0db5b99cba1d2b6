#include "app/store/store-private.h"
#include "app/core/i18n.h"

#include "loadscope-app-resources.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <unistd.h> /* W_OK for g_access (mingw has it too) */
#include <stdlib.h>
#include <string.h>

#include "app/core/error-bridge.h"
#include "platform/process.h"
#include "platform/process-identity.h"
#include "platform/sysinfo.h"


struct ls_store {
  sqlite3 *db;
  char *path;
  int busy_ms; /* how long a statement waits for another writer */
};

G_DEFINE_QUARK (loadscope-store-error-quark, ls_store_error)

char *
ls_store_default_path (void)
{
  return g_build_filename (g_get_user_data_dir (), "loadscope", "history.sqlite", NULL);
}

const char *
ls_store_path (const ls_store *store)
{
  return store->path;
}

sqlite3 *
ls_store_db (ls_store *store)
{
  return store->db;
}

static int
store_error_code (int rc)
{
  switch (rc & 0xff)
    {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return LS_STORE_ERROR_BUSY;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      return rc == SQLITE_CANTOPEN ? LS_STORE_ERROR_OPEN : LS_STORE_ERROR_READONLY;
    default:
      return LS_STORE_ERROR_SQL;
    }
}

int
ls_store_busy_ms (ls_store *store)
{
  return store->busy_ms;
}

gboolean
ls_store_set_error (ls_store *store, int rc, const char *what, GError **error)
{
  const char *why = store->db ? sqlite3_errmsg (store->db) : sqlite3_errstr (rc);
  int code = store_error_code (rc);
  if (code == LS_STORE_ERROR_BUSY)
    g_set_error (error, LS_STORE_ERROR, code,
                 _("%s: %s: the store is locked by another program (%s; waited %.1f s for it)"), store->path, what, why,
                 store->busy_ms / 1000.0);
  else if (code == LS_STORE_ERROR_READONLY)
    g_set_error (error, LS_STORE_ERROR, code, _("%s: %s: the store cannot be written (%s)"), store->path, what, why);
  else
    g_set_error (error, LS_STORE_ERROR, code, "%s: %s: %s", store->path, what, why);
  return FALSE;
}

gboolean
ls_store_exec (ls_store *store, const char *sql, GError **error)
{
  char *msg = NULL;
  int rc = sqlite3_exec (store->db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, LS_STORE_ERROR, store_error_code (rc), "%s: %s", store->path, msg ? msg : sqlite3_errstr (rc));
      sqlite3_free (msg);
      return FALSE;
    }
  return TRUE;
}

int
ls_store_schema_version (ls_store *store)
{
  sqlite3_stmt *st = NULL;
  int v = -1;
  if (sqlite3_prepare_v2 (store->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW)
    v = sqlite3_column_int (st, 0);
  sqlite3_finalize (st);
  return v;
}

/* One schema step in its own transaction; rolled back whole on failure. */
static gboolean
migrate_step (ls_store *store, int v, GError **error)
{
  g_autofree char *name = g_strdup_printf ("/org/loadscope/Loadscope/schema/%03d.sql", v);
  g_autoptr (GBytes) sql = g_resources_lookup_data (name, 0, NULL);
  if (!sql)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_SQL, _("schema step %d is missing from this build"), v);
      return FALSE;
    }
  /* Another process may have opened the same store at the same time and
   * taken this step first (both read the old version before either wrote):
   * under the write lock the version is read again, and a step already taken
   * is not taken twice ("duplicate column name"). */
  if (!ls_store_exec (store, "BEGIN IMMEDIATE", error))
    {
      g_prefix_error (error, _("migrating to schema version %d: "), v);
      return FALSE;
    }
  if (ls_store_schema_version (store) >= v)
    return ls_store_exec (store, "COMMIT", error);
  /* untranslated: SQL */
  g_autofree char *text = g_strdup_printf ("%.*s\nPRAGMA user_version = %d;", (int) g_bytes_get_size (sql),
                                           (const char *) g_bytes_get_data (sql, NULL), v);
  sqlite3_stmt *st = NULL;
  gboolean ok = ls_store_exec (store, text, error);
  if (ok)
    {
      int rc = sqlite3_prepare_v2 (store->db, "PRAGMA foreign_key_check", -1, &st, NULL);
      if (rc != SQLITE_OK)
        ok = ls_store_set_error (store, rc, "checking references", error);
      else if ((rc = sqlite3_step (st)) == SQLITE_ROW)
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_SQL, _("a row of table %s refers to a missing %s row"),
                       (const char *) sqlite3_column_text (st, 0), (const char *) sqlite3_column_text (st, 2));
          ok = FALSE;
        }
      else if (rc != SQLITE_DONE)
        ok = ls_store_set_error (store, rc, "checking references", error);
      sqlite3_finalize (st);
    }
  if (ok)
    ok = ls_store_exec (store, "COMMIT", error);
  if (!ok)
    {
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      g_prefix_error (error, _("migrating to schema version %d: "), v);
    }
  return ok;
}

gboolean
ls_store_migrate_to (ls_store *store, int version, GError **error)
{
  int current = ls_store_schema_version (store);

  /* Referencing the resource keeps its object (and the schema) linked in. */
  (void) ls_app_resources_get_resource ();
  if (current < 0)
    return ls_store_set_error (store, sqlite3_errcode (store->db), "reading the schema version", error);
  if (current > LS_STORE_SCHEMA_VERSION)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_VERSION,
                   _("%s: written by a newer Loadscope (schema version %d; this one knows up to %d)"), store->path,
                   current, LS_STORE_SCHEMA_VERSION);
      return FALSE;
    }
  /* Foreign keys off while the schema changes, as SQLite's procedure for
   * rebuilding a table asks (a dropped parent table would otherwise clear
   * its children's references), and checked before each step commits. */
  if (current < version && !ls_store_exec (store, "PRAGMA foreign_keys = OFF", error))
    return FALSE;
  gboolean ok = TRUE;
  for (int v = current + 1; ok && v <= version; v++)
    ok = migrate_step (store, v, error);
  if (current < version && !ls_store_exec (store, "PRAGMA foreign_keys = ON", ok ? error : NULL))
    ok = FALSE;
  return ok;
}

char *
ls_store_now (void)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  return g_date_time_format (now, "%Y-%m-%dT%H:%M:%S.%fZ");
}

/* A runner is alive when its pid exists and runs loadscope (or, where its
 * command line cannot be read, when its pid exists). */
static gboolean
runner_alive (gint64 pid)
{
  return ls_process_is_alive (pid, "loadscope");
}

/* The name this machine's row was made with: on Windows GLib's host name
 * is the upper-case NetBIOS one, sysinfo's the DNS one. Read once: every
 * writing open and every finished runner asks. */
static const char *
this_host (void)
{
  static char *host;
  if (g_once_init_enter (&host))
    {
      ls_sysinfo info;
      ls_error err = { 0 };
      g_once_init_leave (&host, g_strdup (ls_sysinfo_read (&info, &err) == LS_OK ? info.hostname : g_get_host_name ()));
    }
  return host;
}

/* Marks the rows whose ids are in DEAD interrupted through UPDATE_SQL (it
 * binds finished_at, error and id), each with "WHO (pid P) stopped before
 * the WHAT finished", P from PIDS. */
static gboolean
mark_interrupted (ls_store *store, const char *update_sql, GArray *dead, GArray *pids, const char *who,
                  const char *what, GError **error)
{
  sqlite3_stmt *st = NULL;
  g_autofree char *now = ls_store_now ();
  /* untranslated: the store's own word for the row (run, sweep) is put into it */
  g_autofree char *context = g_strdup_printf ("marking interrupted %ss", what);
  int rc = sqlite3_prepare_v2 (store->db, update_sql, -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, context, error);
  for (guint i = 0; i < dead->len; i++)
    {
      /* untranslated: kept in the store */
      g_autofree char *why = g_strdup_printf ("%s (pid %" G_GINT64_FORMAT ") stopped before the %s finished", who,
                                              g_array_index (pids, gint64, i), what);
      sqlite3_bind_text (st, 1, now, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (st, 2, why, -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (st, 3, g_array_index (dead, gint64, i));
      rc = sqlite3_step (st);
      sqlite3_reset (st);
      if (rc != SQLITE_DONE)
        {
          sqlite3_finalize (st);
          return ls_store_set_error (store, rc, context, error);
        }
    }
  sqlite3_finalize (st);
  return TRUE;
}

/* Runs of this machine left 'running' by a runner that is gone. */
gboolean
ls_store_mark_dead_runs (ls_store *store, GError **error)
{
  sqlite3_stmt *st = NULL;
  g_autoptr (GArray) dead = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint64));
  int rc = sqlite3_prepare_v2 (store->db,
                               "SELECT run.id, run.runner_pid FROM run JOIN machine ON machine.id = run.machine_id "
                               "WHERE run.status = 'running' AND machine.hostname = ?",
                               -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "looking for interrupted runs", error);
  sqlite3_bind_text (st, 1, this_host (), -1, SQLITE_TRANSIENT);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (st, 0), pid = sqlite3_column_int64 (st, 1);
      if (!runner_alive (pid))
        {
          g_array_append_val (dead, id);
          g_array_append_val (pids, pid);
        }
    }
  sqlite3_finalize (st);
  return dead->len == 0
         || mark_interrupted (store,
                              "UPDATE run SET status = 'interrupted', finished_at = ?, error = ? "
                              "WHERE id = ? AND status = 'running'",
                              dead, pids, "its runner", "run", error);
}

/* Sweeps of this machine left 'running' by a process that is gone (killed
 * mid-sweep): interrupted. Sweeps without an owner (before schema 5,
 * imported, Slurm) are left alone. */
gboolean
ls_store_mark_dead_sweeps (ls_store *store, GError **error)
{
  sqlite3_stmt *st = NULL;
  g_autoptr (GArray) dead = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint64));
  int rc = sqlite3_prepare_v2 (store->db,
                               "SELECT sweep.id, sweep.owner_pid, sweep.owner_start FROM sweep "
                               "JOIN machine ON machine.id = sweep.machine_id "
                               "WHERE sweep.status = 'running' AND sweep.owner_pid IS NOT NULL AND machine.hostname = ?",
                               -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "looking for interrupted sweeps", error);
  sqlite3_bind_text (st, 1, this_host (), -1, SQLITE_TRANSIENT);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (st, 0), pid = sqlite3_column_int64 (st, 1);
      guint64 start = (guint64) sqlite3_column_int64 (st, 2);
      if (!ls_process_is_same (pid, start))
        {
          g_array_append_val (dead, id);
          g_array_append_val (pids, pid);
        }
    }
  sqlite3_finalize (st);
  return dead->len == 0
         || mark_interrupted (store,
                              "UPDATE sweep SET status = 'interrupted', finished_at = ?, error = ?, owner_pid = NULL, "
                              "owner_start = NULL WHERE id = ? AND status = 'running'",
                              dead, pids, "its process", "sweep", error);
}

/* SQLite's page caches without their first bulk allocation: each INSERT
 * into run builds an ephemeral table for its CHECK (... IN (...)) lists,
 * whose cache's bulk block, freed at the statement's end, made glibc trim
 * and regrow its heap once per run (perf: brk and the TLB flushes of the
 * unmapping took most of a bundle import's CPU). Set before SQLite starts;
 * where it already has, nothing changes. */
static void
sqlite_config_once (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      sqlite3_config (SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
      g_once_init_leave (&done, 1);
    }
}

static ls_store *
open_common (const char *path, int flags, GError **error)
{
  sqlite_config_once ();
  ls_store *store = g_new0 (ls_store, 1);
  store->path = g_strdup (path);
  int rc = sqlite3_open_v2 (path, &store->db, flags, NULL);
  if (rc != SQLITE_OK)
    {
      if (!(flags & SQLITE_OPEN_CREATE) && !g_file_test (path, G_FILE_TEST_EXISTS))
        g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_OPEN, _("%s: no such file"), path);
      else
        ls_store_set_error (store, rc, "opening", error);
      ls_store_close (store);
      return NULL;
    }
  /* Wait for another writer for a while rather than fail at once. */
  store->busy_ms = g_getenv ("LOADSCOPE_STORE_BUSY_MS") ? MAX (atoi (g_getenv ("LOADSCOPE_STORE_BUSY_MS")), 0) : 5000;
  sqlite3_busy_timeout (store->db, store->busy_ms);
  sqlite3_extended_result_codes (store->db, 0);
  return store;
}

ls_store *
ls_store_open_existing (const char *path, int flags, GError **error)
{
  ls_store *store = open_common (path, flags ? flags : SQLITE_OPEN_READONLY, error);
  if (!store)
    return NULL;
  /* A file that is not SQLite fails on its first read. */
  if (ls_store_schema_version (store) < 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("%s: not a Loadscope store (%s)"), path,
                   sqlite3_errmsg (store->db));
      ls_store_close (store);
      return NULL;
    }
  return store;
}

/* Turning a new store's journal into WAL needs the file to itself, and
 * SQLite answers "locked" at once, without its busy handler, while another
 * process opening the same new store holds it: wait for it here instead,
 * as long as for any other writer. Once one opener has switched, the
 * others' switch is a no-op. */
static gboolean
use_wal (ls_store *store, GError **error)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) store->busy_ms * 1000;
  for (;;)
    {
      int rc = sqlite3_exec (store->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
      if (rc == SQLITE_OK)
        return TRUE;
      if ((rc & 0xff) != SQLITE_BUSY || g_get_monotonic_time () >= deadline)
        return ls_store_set_error (store, rc, "switching the journal to WAL", error);
      g_usleep (10 * 1000);
    }
}

ls_store *
ls_store_open (const char *path, GError **error)
{
  g_autofree char *default_path = path ? NULL : ls_store_default_path ();
  g_autofree char *dir = NULL;
  ls_store *store;

  if (!path)
    path = default_path;
  dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_OPEN, _("%s: cannot create the folder: %s"), dir,
                   g_strerror (errno));
      return NULL;
    }
  store = open_common (path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, error);
  if (!store)
    return NULL;
  if (ls_store_schema_version (store) < 0)
    {
      /* A store on a read-only mount or in a read-only folder fails here
       * too (its -wal and -shm cannot be made): say that, not "not a store". */
      int rc = sqlite3_errcode (store->db);
      gboolean frozen = (rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY || rc == SQLITE_PERM)
                        && g_file_test (path, G_FILE_TEST_IS_REGULAR) && (g_access (path, W_OK) != 0 || g_access (dir, W_OK) != 0);
      if (frozen)
        g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_READONLY,
                     _("%s: the store cannot be written: it or its folder is read-only (%s)"), path,
                     sqlite3_errmsg (store->db));
      else
        g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("%s: not a Loadscope store (%s)"), path,
                     sqlite3_errmsg (store->db));
      ls_store_close (store);
      return NULL;
    }
  if (!ls_store_exec (store, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;", error) || !use_wal (store, error)
      || !ls_store_migrate_to (store, LS_STORE_SCHEMA_VERSION, error) || !ls_store_mark_dead_runs (store, error)
      || !ls_store_mark_dead_sweeps (store, error))
    {
      ls_store_close (store);
      return NULL;
    }
  return store;
}

ls_store *
ls_store_open_read_only (const char *path, GError **error)
{
  /* Without a writable folder no -shm can be made beside a WAL store:
   * read the file as it is (immutable). Otherwise a plain read-only open,
   * which sees the writers' committed rows. */
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *abs = g_canonicalize_filename (path, NULL);
  g_autofree char *escaped = g_uri_escape_string (abs, "/", FALSE);
  gboolean frozen = g_access (dir, W_OK) != 0;
  ls_store *store = NULL;
  int version = -1;
  /* A full disk may not take even the -shm: then immutable too. */
  for (int attempt = frozen; attempt < 2 && version < 0; attempt++)
    {
      g_autofree char *uri = g_strdup_printf ("file:%s?mode=ro%s", escaped, attempt ? "&immutable=1" : "");
      g_clear_pointer (&store, ls_store_close);
      g_clear_error (error);
      store = open_common (uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, error);
      if (!store)
        continue;
      g_free (store->path);
      store->path = g_strdup (path);
      version = ls_store_schema_version (store);
    }
  if (!store)
    return NULL;
  if (version < 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("%s: not a Loadscope store (%s)"), path,
                   sqlite3_errmsg (store->db));
      ls_store_close (store);
      return NULL;
    }
  if (version != LS_STORE_SCHEMA_VERSION)
    {
      g_set_error (error, LS_STORE_ERROR, version > LS_STORE_SCHEMA_VERSION ? LS_STORE_ERROR_VERSION
                                                                            : LS_STORE_ERROR_READONLY,
                   version > LS_STORE_SCHEMA_VERSION
                       ? _("%s: schema version %d, and this Loadscope (version %d) cannot read it")
                       : _("%s: schema version %d, and this Loadscope (version %d) cannot write to migrate it"),
                   path, version, LS_STORE_SCHEMA_VERSION);
      ls_store_close (store);
      return NULL;
    }
  ls_store_exec (store, "PRAGMA temp_store = MEMORY", NULL); /* export's selection table, on a full disk too */
  return store;
}

void
ls_store_close (ls_store *store)
{
  if (!store)
    return;
  sqlite3_close_v2 (store->db);
  g_free (store->path);
  g_free (store);
}

char *
ls_machine_fingerprint (const char *hostname, const char *os, const char *cpu_model, gint64 cores, gint64 ram_bytes,
                        const char *container)
{
  gboolean contained = container && container[0] && strcmp (container, "none") != 0;
  g_autofree char *key = g_strdup_printf ("%s\n%s\n%s\n%" G_GINT64_FORMAT "\n%" G_GINT64_FORMAT "%s%s", hostname, os,
                                          cpu_model, cores, ram_bytes, contained ? "\ncontainer " : "",
                                          contained ? container : "");
  g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  return g_strndup (sum, 32);
}

gint64
ls_store_this_machine (ls_store *store, const char *gpu, const char *driver, GError **error)
{
  ls_sysinfo info;
  ls_error err = { 0 };
  sqlite3_stmt *st = NULL;
  gint64 id = -1;

  if (ls_sysinfo_read (&info, &err) != LS_OK)
    {
      ls_error_to_gerror (&err, error);
      g_prefix_error (error, _("describing this machine: "));
      return -1;
    }
  g_autofree char *fp = ls_machine_fingerprint (info.hostname, info.os_name, info.cpu_model, info.logical_cores,
                                                (gint64) info.total_ram_bytes, info.container);
  int rc = sqlite3_prepare_v2 (store->db,
                               "INSERT INTO machine (fingerprint, hostname, os, kernel, arch, cpu_model, logical_cores, "
                               "ram_bytes, gpu, driver, container) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
                               "ON CONFLICT (fingerprint) DO UPDATE SET kernel = excluded.kernel, "
                               "container = COALESCE (excluded.container, machine.container), "
                               "gpu = COALESCE (excluded.gpu, machine.gpu), driver = COALESCE (excluded.driver, machine.driver) "
                               "RETURNING id",
                               -1, &st, NULL);
  if (rc != SQLITE_OK)
    {
      ls_store_set_error (store, rc, "recording this machine", error);
      return -1;
    }
  sqlite3_bind_text (st, 1, fp, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 2, info.hostname, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 3, info.os_name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 4, info.kernel, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 5, info.arch, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 6, info.cpu_model, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, 7, info.logical_cores);
  sqlite3_bind_int64 (st, 8, (gint64) info.total_ram_bytes);
  if (gpu)
    sqlite3_bind_text (st, 9, gpu, -1, SQLITE_TRANSIENT);
  if (driver)
    sqlite3_bind_text (st, 10, driver, -1, SQLITE_TRANSIENT);
  if (info.container[0])
    sqlite3_bind_text (st, 11, info.container, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (st);
  if (rc == SQLITE_ROW)
    id = sqlite3_column_int64 (st, 0);
  else
    ls_store_set_error (store, rc, "recording this machine", error);
  sqlite3_finalize (st);
  return id;
}

gint64
ls_store_sweep_begin (ls_store *store, gint64 machine_id, const char *grid_json, int configurations, int repeat,
                      GError **error)
{
  sqlite3_stmt *st = NULL;
  g_autofree char *uuid = g_uuid_string_random ();
  g_autofree char *now = ls_store_now ();
  int rc = sqlite3_prepare_v2 (store->db,
                               "INSERT INTO sweep (uuid, machine_id, started_at, status, grid, configurations, repeat, "
                               "owner_pid, owner_start) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?)",
                               -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "recording the sweep", error), -1;
  sqlite3_bind_text (st, 1, uuid, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, 2, machine_id);
  sqlite3_bind_text (st, 3, now, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 4, grid_json, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int (st, 5, configurations);
  sqlite3_bind_int (st, 6, repeat);
  /* This process owns it until it ends it (ls_store_mark_dead_sweeps). */
  sqlite3_bind_int64 (st, 7, (gint64) ls_process_self_pid ());
  sqlite3_bind_int64 (st, 8, (gint64) ls_process_start_time ((int64_t) ls_process_self_pid ()));
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    return ls_store_set_error (store, rc, "recording the sweep", error), -1;
  return sqlite3_last_insert_rowid (store->db);
}

gboolean
ls_store_sweep_end (ls_store *store, gint64 sweep_id, const char *status, const char *reason, GError **error)
{
  sqlite3_stmt *st = NULL;
  g_autofree char *now = ls_store_now ();
  int rc = sqlite3_prepare_v2 (store->db,
                               "UPDATE sweep SET status = ?, finished_at = ?, error = ?, owner_pid = NULL, "
                               "owner_start = NULL WHERE id = ?",
                               -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "finishing the sweep", error);
  sqlite3_bind_text (st, 1, status, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 2, now, -1, SQLITE_TRANSIENT);
  if (reason)
    sqlite3_bind_text (st, 3, reason, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, 3);
  sqlite3_bind_int64 (st, 4, sweep_id);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  return rc == SQLITE_DONE ? TRUE : ls_store_set_error (store, rc, "finishing the sweep", error);
}

gboolean
ls_store_sweep_end_unowned (ls_store *store, gint64 sweep_id, const char *status, const char *reason,
                            gboolean *ended, GError **error)
{
  sqlite3_stmt *st = NULL;
  g_autofree char *now = ls_store_now ();
  *ended = FALSE;
  int rc = sqlite3_prepare_v2 (store->db,
                               "UPDATE sweep SET status = ?, finished_at = ?, error = ? WHERE id = ? AND "
                               "status = 'running' AND owner_pid IS NULL",
                               -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "finishing the sweep", error);
  sqlite3_bind_text (st, 1, status, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 2, now, -1, SQLITE_TRANSIENT);
  if (reason)
    sqlite3_bind_text (st, 3, reason, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, 3);
  sqlite3_bind_int64 (st, 4, sweep_id);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    return ls_store_set_error (store, rc, "finishing the sweep", error);
  *ended = sqlite3_changes (store->db) > 0;
  return TRUE;
}

gboolean
ls_store_sweep_disown (ls_store *store, gint64 sweep_id, GError **error)
{
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2 (store->db, "UPDATE sweep SET owner_pid = NULL, owner_start = NULL WHERE id = ?", -1,
                               &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "recording the sweep", error);
  sqlite3_bind_int64 (st, 1, sweep_id);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  return rc == SQLITE_DONE ? TRUE : ls_store_set_error (store, rc, "recording the sweep", error);
}

gboolean
ls_store_delete_runs (ls_store *store, const gint64 *ids, guint n, GError **error)
{
  sqlite3_stmt *st = NULL;
  if (!ls_store_exec (store, "BEGIN IMMEDIATE", error))
    return FALSE;
  int rc = sqlite3_prepare_v2 (store->db, "DELETE FROM run WHERE id = ?", -1, &st, NULL);
  for (guint i = 0; rc == SQLITE_OK && i < n; i++)
    {
      sqlite3_bind_int64 (st, 1, ids[i]);
      rc = sqlite3_step (st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode (store->db);
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);
  if (rc != SQLITE_OK || !ls_store_exec (store, "COMMIT", NULL))
    {
      ls_store_set_error (store, rc != SQLITE_OK ? rc : sqlite3_errcode (store->db), "deleting runs", error);
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      return FALSE;
    }
  return TRUE;
}
