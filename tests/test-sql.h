/* Reading a store file from a test, on a connection of its own. */
#pragma once

#include <glib.h>

/* The first column of the first row as a number (-1 when there is none). */
gint64 ls_test_sql_int (const char *db_path, const char *sql);

/* The same as text (newly allocated; NULL when there is none). */
char *ls_test_sql_text (const char *db_path, const char *sql);

/* Runs sql (any statements) on a writable connection; a failure ends the
 * test naming the statement. */
void ls_test_sql_exec (const char *db_path, const char *sql);
