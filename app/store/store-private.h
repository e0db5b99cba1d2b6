/* The store's SQLite side, for app/store/ alone (and the tests that build
 * or inspect stores by hand). Everything outside app/store/ reads and
 * writes through store.h, store-query.h, run-recorder.h, export.h and
 * import.h, which name no SQLite type. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <sqlite3.h>

#include "app/store/store.h"
#include "app/store/store-query.h"

sqlite3 *ls_store_db (ls_store *store);

/* Opens an existing file without creating or migrating it (import, tests).
 * flags: sqlite3_open_v2's; 0 is SQLITE_OPEN_READONLY. */
ls_store *ls_store_open_existing (const char *path, int flags, GError **error);

/* How long a statement waits for another writer before it fails, in ms
 * (LOADSCOPE_STORE_BUSY_MS, else 5000); said in "locked" errors. */
int ls_store_busy_ms (ls_store *store);

/* Sets *error for an SQLite result code: the store's path, what was being
 * done, and the reason in words (locked, read-only, ...). Returns FALSE. */
gboolean ls_store_set_error (ls_store *store, int rc, const char *what, GError **error);

/* Runs SQL with no results; errors name the statement's purpose. */
gboolean ls_store_exec (ls_store *store, const char *sql, GError **error);

/* The rows of a query, one object per row and one member per column
 * (integer, real, text or null). params are bound as integers. */
JsonArray *ls_store_query_objects (ls_store *store, const char *sql, const gint64 *params, guint n_params,
                                   GError **error);

/* A column of the current row: a copy of the text (NULL for null), or the
 * number (NAN for null). */
char *ls_store_column_text (sqlite3_stmt *st, int column);
double ls_store_column_double (sqlite3_stmt *st, int column);

/* Prepares sql, binds id to its one parameter and steps to the row. NULL
 * with an error on failure, LS_STORE_ERROR_NOT_FOUND ("no <what> <id>")
 * when there is no row; finalize the statement when done. */
sqlite3_stmt *ls_store_row_by_id (ls_store *store, const char *sql, gint64 id, const char *what, GError **error);

/* Rows of one read-only query: sql prepared, params bound as integers;
 * `what` says what is being read in errors ("reading the run's batches").
 * Only app/store/ writes SQL: others ask for a named query (store-named.h). */
ls_store_rows *ls_store_rows_new (ls_store *store, const char *sql, const gint64 *params, guint n_params,
                                  const char *what, GError **error);

/* Prepares sql, binds id to its one parameter and steps to the first row
 * (read it at once, then ls_store_rows_next for more). NULL with the error;
 * LS_STORE_ERROR_NOT_FOUND "<path>: no <what> <id>" when there is no row,
 * and "reading the <what>" in other errors. */
ls_store_rows *ls_store_rows_new_for_id (ls_store *store, const char *sql, gint64 id, const char *what,
                                         GError **error);
