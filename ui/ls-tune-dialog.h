/* The Tune window: memory and time budgets, then tune through an
 * LsTuneSession (app/analysis/tune-session.h) over the Setup page's dataset
 * or script and the knobs it holds at one value; the verdict and DataLoader
 * line at the end. What the tests drive: ls-tune-dialog-private.h. */
#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "app/core/sweep-request.h"

G_BEGIN_DECLS

#define LS_TYPE_TUNE_DIALOG (ls_tune_dialog_get_type ())
G_DECLARE_FINAL_TYPE (LsTuneDialog, ls_tune_dialog, LS, TUNE_DIALOG, AdwWindow)

/* Called when tune has recorded its sweep: the store, the sweep and its
 * runs' summaries (to show on the Results page). */
typedef void (*LsTuneDoneFunc) (const char *db, gint64 sweep_id, JsonArray *summaries, gpointer user_data);

/* request: the Setup page's (copied); db: the store. */
LsTuneDialog *ls_tune_dialog_new (GtkWindow *parent, const ls_sweep_request *request, const char *db,
                                  LsTuneDoneFunc done, gpointer user_data);

G_END_DECLS
