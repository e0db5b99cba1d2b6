/* One exit status for a store the read commands (history, show, export,
 * compare, whatif) cannot use, whichever command it is. */
#pragma once

#include <glib.h>

/* 2 (bad input) when the store is missing, not a Loadscope store (not
 * SQLite, a folder, unreadable), written by a newer Loadscope, or the run
 * or sweep named is not in it; 1 when a sound store could not be read now
 * (locked, an SQL failure). */
int ls_cli_store_error_status (const GError *error);
