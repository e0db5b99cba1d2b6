#include "test-sql.h"

#include <sqlite3.h>

/* Runs sql on a read-only connection and steps to its first row. */
static sqlite3_stmt *
first_row (const char *db_path, const char *sql, sqlite3 **db)
{
  sqlite3_stmt *st = NULL;
  *db = NULL;
  if (sqlite3_open_v2 (db_path, db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
      && sqlite3_prepare_v2 (*db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW)
    return st;
  sqlite3_finalize (st);
  sqlite3_close (*db);
  *db = NULL;
  return NULL;
}

gint64
ls_test_sql_int (const char *db_path, const char *sql)
{
  sqlite3 *db;
  sqlite3_stmt *st = first_row (db_path, sql, &db);
  gint64 n = st ? sqlite3_column_int64 (st, 0) : -1;
  sqlite3_finalize (st);
  sqlite3_close (db);
  return n;
}

char *
ls_test_sql_text (const char *db_path, const char *sql)
{
  sqlite3 *db;
  sqlite3_stmt *st = first_row (db_path, sql, &db);
  char *out = st ? g_strdup ((const char *) sqlite3_column_text (st, 0)) : NULL;
  sqlite3_finalize (st);
  sqlite3_close (db);
  return out;
}

void
ls_test_sql_exec (const char *db_path, const char *sql)
{
  sqlite3 *db = NULL;
  char *msg = NULL;
  if (sqlite3_open (db_path, &db) != SQLITE_OK || sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s: %s", db_path, sql, msg ? msg : sqlite3_errmsg (db));
  sqlite3_close (db);
}
