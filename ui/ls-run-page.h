/* Run: the sweep as it goes — configuration k of n, the current run's
 * batches and memory, live. */
#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define LS_TYPE_RUN_PAGE (ls_run_page_get_type ())
G_DECLARE_FINAL_TYPE (LsRunPage, ls_run_page, LS, RUN_PAGE, GtkBox)

void ls_run_page_sweep_started (LsRunPage *self, guint total);
void ls_run_page_run_started (LsRunPage *self, guint index, guint total, const char *label);
void ls_run_page_event (LsRunPage *self, JsonObject *event);
/* failure: why the sweep stopped by itself (shown instead of the live
 * view); NULL when it did not. */
void ls_run_page_sweep_finished (LsRunPage *self, gboolean cancelled, const char *failure);

/* The live wait-per-batch chart (the tests read its marks). */
GtkWidget *ls_run_page_get_wait_chart (LsRunPage *self);

G_END_DECLS
