#include "app/store/run-sweep.h"
#include "app/core/i18n.h"

#include <sqlite3.h>

#include "app/store/store-private.h"

gboolean
ls_store_run_set_sweep (ls_store *store, gint64 run_id, gint64 sweep_id, GError **error)
{
  sqlite3 *db = ls_store_db (store);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2 (db, "UPDATE run SET sweep_id = ? WHERE id = ?", -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "adding the run to its sweep", error);
  sqlite3_bind_int64 (st, 1, sweep_id);
  sqlite3_bind_int64 (st, 2, run_id);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    return ls_store_set_error (store, rc, "adding the run to its sweep", error);
  if (sqlite3_changes (db) != 1)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("run %lld is not in %s"), (long long) run_id,
                   ls_store_path (store));
      return FALSE;
    }
  return TRUE;
}
