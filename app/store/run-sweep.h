/* A run recorded elsewhere joining a sweep of this store: a run made on a
 * target machine (app/remote/) arrives through import without a sweep,
 * and the local sweep that asked for it takes it in. */
#pragma once

#include <glib.h>

#include "app/store/store.h"

/* Sets run run_id's sweep to sweep_id. FALSE with the store's error, or
 * LS_STORE_ERROR_INVALID when no such run is there. */
gboolean ls_store_run_set_sweep (ls_store *store, gint64 run_id, gint64 sweep_id, GError **error);
