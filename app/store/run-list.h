/* The runs of a store as a list model of LsRunRow (app/store/run-row.h),
 * newest first, as `loadscope history` lists them (ls_store_history): the
 * window's history shows it. Loading reads the store in a worker thread
 * (GTask) and replaces the items on the thread that asked, in one
 * items-changed; a load asked while another runs supersedes it (the older
 * one's rows are never shown). A store file that does not exist is an empty
 * list, not an error: nothing has been recorded there yet. */
#pragma once

#include <gio/gio.h>

#include "app/store/run-row.h"

G_BEGIN_DECLS

#define LS_TYPE_RUN_LIST (ls_run_list_get_type ())
G_DECLARE_FINAL_TYPE (LsRunList, ls_run_list, LS, RUN_LIST, GObject)

/* db: the store's path (NULL: the default store). Empty until loaded. */
LsRunList *ls_run_list_new (const char *db);

const char *ls_run_list_get_db (LsRunList *self);
/* Changes the store; the items stay until the next load. */
void ls_run_list_set_db (LsRunList *self, const char *db);

/* Reads the store here and now (tests, the command line). On failure the
 * items are left as they were. */
gboolean ls_run_list_load (LsRunList *self, GError **error);

/* Reads the store in a thread; the items are replaced before callback runs.
 * finish: FALSE with the error when the store could not be read (items
 * unchanged), or G_IO_ERROR_CANCELLED when cancelled or superseded by a
 * later load. */
void ls_run_list_load_async (LsRunList *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);
gboolean ls_run_list_load_finish (LsRunList *self, GAsyncResult *result, GError **error);

/* Whether a load is in flight. */
gboolean ls_run_list_is_loading (LsRunList *self);

/* The row of a run, or NULL (borrowed). */
LsRunRow *ls_run_list_find (LsRunList *self, gint64 run_id);

G_END_DECLS
