#include "app/store/run-list.h"

#include "app/store/store-query.h"

struct _LsRunList {
  GObject parent_instance;
  char *db;
  GPtrArray *rows;   /* LsRunRow */
  guint serial;      /* of the latest load asked for */
  guint in_flight;   /* loads not yet finished */
};

static void ls_run_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LsRunList, ls_run_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, ls_run_list_model_init))

/* ------------------------------------------------------------ GListModel */

static GType
get_item_type (GListModel *model)
{
  return LS_TYPE_RUN_ROW;
}

static guint
get_n_items (GListModel *model)
{
  return LS_RUN_LIST (model)->rows->len;
}

static gpointer
get_item (GListModel *model, guint position)
{
  LsRunList *self = LS_RUN_LIST (model);
  return position < self->rows->len ? g_object_ref (self->rows->pdata[position]) : NULL;
}

static void
ls_run_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

/* ------------------------------------------------------------ reading */

/* The store's runs as rows (a missing store: none), or NULL with the error. */
static GPtrArray *
read_rows (const char *db, GError **error)
{
  g_autofree char *default_path = db ? NULL : ls_store_default_path ();
  const char *path = db ? db : default_path;
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_object_unref);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return rows;
  g_autoptr (ls_store) store = ls_store_open_to_read (path, error);
  g_autoptr (JsonArray) runs = store ? ls_store_history (store, 0, 0, error) : NULL;
  if (!runs)
    {
      g_ptr_array_unref (rows);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (runs); i++)
    g_ptr_array_add (rows, ls_run_row_new (json_array_get_object_element (runs, i)));
  return rows;
}

static void
replace_rows (LsRunList *self, GPtrArray *rows)
{
  guint removed = self->rows->len;
  g_ptr_array_unref (self->rows);
  self->rows = g_ptr_array_ref (rows);
  if (removed > 0 || rows->len > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, rows->len);
}

gboolean
ls_run_list_load (LsRunList *self, GError **error)
{
  g_return_val_if_fail (LS_IS_RUN_LIST (self), FALSE);
  g_autoptr (GPtrArray) rows = read_rows (self->db, error);
  if (!rows)
    return FALSE;
  self->serial++; /* what a load still in flight read is older */
  replace_rows (self, rows);
  return TRUE;
}

static void
read_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  GPtrArray *rows = read_rows (data, &error);
  if (rows)
    g_task_return_pointer (task, rows, (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

/* Back on the caller's thread: show what the thread read, unless a later
 * load was asked for meanwhile, then complete the caller's task. */
static void
read_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (GTask) outer = data;
  LsRunList *self = LS_RUN_LIST (source);
  GError *error = NULL;
  g_autoptr (GPtrArray) rows = g_task_propagate_pointer (G_TASK (result), &error);
  guint serial = GPOINTER_TO_UINT (g_task_get_task_data (outer));

  self->in_flight--;
  if (!rows)
    g_task_return_error (outer, error);
  else if (serial != self->serial || g_cancellable_is_cancelled (g_task_get_cancellable (outer)))
    g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_CANCELLED, "a later load of %s replaced this one",
                             self->db ? self->db : "the store");
  else
    {
      replace_rows (self, rows);
      g_task_return_boolean (outer, TRUE);
    }
}

void
ls_run_list_load_async (LsRunList *self, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (LS_IS_RUN_LIST (self));
  GTask *outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ls_run_list_load_async);
  g_task_set_task_data (outer, GUINT_TO_POINTER (++self->serial), NULL);
  self->in_flight++;

  g_autoptr (GTask) inner = g_task_new (self, cancellable, read_done, outer);
  g_task_set_task_data (inner, g_strdup (self->db), g_free);
  g_task_run_in_thread (inner, read_in_thread);
}

gboolean
ls_run_list_load_finish (LsRunList *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ls_run_list_load_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
ls_run_list_is_loading (LsRunList *self)
{
  g_return_val_if_fail (LS_IS_RUN_LIST (self), FALSE);
  return self->in_flight > 0;
}

LsRunRow *
ls_run_list_find (LsRunList *self, gint64 run_id)
{
  g_return_val_if_fail (LS_IS_RUN_LIST (self), NULL);
  for (guint i = 0; i < self->rows->len; i++)
    if (ls_run_row_get_id (self->rows->pdata[i]) == run_id)
      return self->rows->pdata[i];
  return NULL;
}

/* ------------------------------------------------------------ life */

const char *
ls_run_list_get_db (LsRunList *self)
{
  g_return_val_if_fail (LS_IS_RUN_LIST (self), NULL);
  return self->db;
}

void
ls_run_list_set_db (LsRunList *self, const char *db)
{
  g_return_if_fail (LS_IS_RUN_LIST (self));
  g_free (self->db);
  self->db = g_strdup (db);
}

static void
ls_run_list_finalize (GObject *object)
{
  LsRunList *self = LS_RUN_LIST (object);
  g_free (self->db);
  g_ptr_array_unref (self->rows);
  G_OBJECT_CLASS (ls_run_list_parent_class)->finalize (object);
}

static void
ls_run_list_class_init (LsRunListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ls_run_list_finalize;
}

static void
ls_run_list_init (LsRunList *self)
{
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
}

LsRunList *
ls_run_list_new (const char *db)
{
  LsRunList *self = g_object_new (LS_TYPE_RUN_LIST, NULL);
  self->db = g_strdup (db);
  return self;
}
