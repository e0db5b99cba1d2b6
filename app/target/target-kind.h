/* Which target a recorded run measured: Loadscope's own loader or the
 * user's PyTorch script. The store keeps no column of its own for it: a
 * script's run has format "pytorch" (and the script as its dataset), so
 * history rows (ls_store_history) tell it without a schema change. Used
 * by `loadscope history --target` and the window's History search
 * ("target:pytorch"). */
#pragma once

#include <json-glib/json-glib.h>

/* "pytorch" or "loadscope". */
const char *ls_target_of_run (JsonObject *run);

/* TRUE when name is a target a filter takes ("loadscope", "pytorch", any
 * case); FALSE with an error naming it and the choices. */
gboolean ls_target_kind_check (const char *name, GError **error);

/* Whether the run was measured on target `name` (any case). */
gboolean ls_target_run_is (JsonObject *run, const char *name);

/* The runs of `rows` measured on target `name`, in their order, at most
 * `limit` (0: all); a new array sharing the row objects. */
JsonArray *ls_target_filter_runs (JsonArray *rows, const char *name, guint limit);
