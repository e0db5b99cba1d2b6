#include "ui/ls-history-page.h"

#include "app/chart/chart-export.h"
#include "app/report/chart-store.h"
#include "app/store/export.h"
#include "app/store/import.h"
#include "app/store/store-query.h"
#include "ui/ls-compare-window.h"
#include "ui/ls-window.h"

/* ------------------------------------------------------------ one row */

#define LS_TYPE_RUN_ROW (ls_run_row_get_type ())
G_DECLARE_FINAL_TYPE (LsRunRow, ls_run_row, LS, RUN_ROW, GObject)

struct _LsRunRow {
  GObject parent_instance;
  JsonObject *run;
};

G_DEFINE_FINAL_TYPE (LsRunRow, ls_run_row, G_TYPE_OBJECT)

static void
ls_run_row_finalize (GObject *object)
{
  g_clear_pointer (&LS_RUN_ROW (object)->run, json_object_unref);
  G_OBJECT_CLASS (ls_run_row_parent_class)->finalize (object);
}

static void
ls_run_row_class_init (LsRunRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ls_run_row_finalize;
}

static void
ls_run_row_init (LsRunRow *self)
{
}

/* ------------------------------------------------------------ the page */

struct _LsHistoryPage {
  GtkBox parent_instance;
  char *db;
  GListStore *rows;
  GtkCustomFilter *filter;
  GtkMultiSelection *selection;
  GtkSearchEntry *search;
  GtkColumnView *view;
  GtkLabel *count;
};

G_DEFINE_FINAL_TYPE (LsHistoryPage, ls_history_page, GTK_TYPE_BOX)

typedef struct {
  const char *title;
  const char *member;
  gboolean numeric;
  double scale;
  int decimals;       /* for numbers */
  const char *suffix; /* after numbers */
  int width;          /* pixels; the columns fill 1280 together */
} column_spec;

static const column_spec columns[] = {
  { "Run", "id", TRUE, 1, 0, "", 46 },
  { "Date (UTC)", "started_at", FALSE, 0, 0, NULL, 136 },
  { "Machine", "machine", FALSE, 0, 0, NULL, 70 },
  { "OS", "os", FALSE, 0, 0, NULL, 72 },
  { "Dataset", "dataset", FALSE, 0, 0, NULL, 80 },
  { "Sweep", "sweep_id", TRUE, 1, 0, "", 54 },
  { "Workers", "workers", TRUE, 1, 0, "", 62 },
  { "Start", "start", FALSE, 0, 0, NULL, 48 },
  { "Batch", "batch_size", TRUE, 1, 0, "", 50 },
  { "Prefetch", "prefetch_shown", TRUE, 1, 0, "", 62 },
  { "Persistent", "persistent_shown", FALSE, 0, 0, NULL, 74 },
  { "Pin", "pin", FALSE, 0, 0, NULL, 56 },
  { "Model", "model_ms", TRUE, 1, 0, " ms", 62 },
  { "Consumer", "sink_shown", FALSE, 0, 0, NULL, 74 },
  { "Status", "status", FALSE, 0, 0, NULL, 62 },
  { "img/s", "throughput_sps", TRUE, 1, 0, "", 55 },
  { "Wait p50", "wait_p50_ms", TRUE, 1, 1, " ms", 80 },
  { "Wait p95", "wait_p95_ms", TRUE, 1, 1, " ms", 80 },
  { "GPU", "gpu_util_exact", TRUE, 100, 0, " %", 54 },
  { "Memory", "memory_peak_bytes", TRUE, 1e-6, 0, " MB", 70 },
};

static char *
cell_text (JsonObject *run, const column_spec *c)
{
  JsonNode *n = json_object_get_member (run, c->member);
  if (!n || json_node_is_null (n))
    return g_strdup ("–");
  if (c->numeric)
    return g_strdup_printf ("%.*f%s", c->decimals, json_node_get_double (n) * c->scale, c->suffix);
  if (g_str_equal (c->member, "started_at"))
    return ls_store_time_short (json_node_get_string (n));
  if (g_str_equal (c->member, "dataset"))
    return g_path_get_basename (json_node_get_string (n));
  return g_strdup (json_node_get_string (n));
}

static void
setup_cell (GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (label), ((const column_spec *) data)->numeric ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
  LsRunRow *row = gtk_list_item_get_item (item);
  g_autofree char *text = cell_text (row->run, data);
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text);
  gtk_widget_set_tooltip_text (gtk_list_item_get_child (item), text);
}

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer data)
{
  const column_spec *c = data;
  JsonObject *ra = LS_RUN_ROW ((gpointer) a)->run, *rb = LS_RUN_ROW ((gpointer) b)->run;
  JsonNode *na = json_object_get_member (ra, c->member), *nb = json_object_get_member (rb, c->member);
  gboolean ea = !na || json_node_is_null (na), eb = !nb || json_node_is_null (nb);
  if (ea || eb)
    return ea == eb ? 0 : ea ? 1 : -1;
  if (c->numeric)
    {
      double x = json_node_get_double (na), y = json_node_get_double (nb);
      return x < y ? -1 : x > y;
    }
  return g_strcmp0 (json_node_get_string (na), json_node_get_string (nb));
}

static gboolean
matches (gpointer item, gpointer data)
{
  LsHistoryPage *self = data;
  const char *needle = gtk_editable_get_text (GTK_EDITABLE (self->search));
  if (!needle || !*needle)
    return TRUE;
  JsonObject *run = LS_RUN_ROW (item)->run;
  g_autofree char *lower = g_utf8_strdown (needle, -1);
  const char *fields[] = { "machine", "os", "dataset", "started_at", "sink_shown", "status", "pin", "start" };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const char *v = json_object_get_string_member_with_default (run, fields[i], NULL);
      if (!v)
        continue;
      g_autofree char *lv = g_utf8_strdown (v, -1);
      if (strstr (lv, lower))
        return TRUE;
    }
  return FALSE;
}

static void
update_count (LsHistoryPage *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->selection));
  guint all = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  g_autofree char *text = shown == all ? g_strdup_printf ("%u runs", all) : g_strdup_printf ("%u of %u runs", shown, all);
  gtk_label_set_text (self->count, text);
}

static void
on_search_changed (LsHistoryPage *self)
{
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_count (self);
}

static void
toast (LsHistoryPage *self, const char *message)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  if (LS_IS_WINDOW (root))
    ls_window_toast (LS_WINDOW (root), message);
}

void
ls_history_page_set_db (LsHistoryPage *self, const char *db)
{
  g_free (self->db);
  self->db = g_strdup (db);
  ls_history_page_reload (self);
}

/* What a row shows that is not a stored value as it is. */
static void
add_shown_members (JsonObject *run)
{
  gboolean simulated = json_object_get_boolean_member_with_default (run, "simulated", FALSE);
  json_object_set_string_member (run, "sink_shown",
                                 simulated ? "sim GPU" : json_object_get_string_member_with_default (run, "sink", "?"));
  /* Prefetch and persistence mean nothing without workers. */
  JsonNode *p = json_object_get_member (run, "persistent");
  gboolean applies = json_object_get_int_member_with_default (run, "workers", 0) > 0;
  if (applies)
    json_object_set_int_member (run, "prefetch_shown", json_object_get_int_member_with_default (run, "prefetch", 0));
  else
    json_object_set_null_member (run, "prefetch_shown");
  json_object_set_string_member (run, "persistent_shown",
                                 !applies || !p || json_node_is_null (p) ? "–"
                                 : json_node_get_boolean (p)            ? "on"
                                                                        : "off");
}

void
ls_history_page_reload (LsHistoryPage *self)
{
  g_autoptr (GError) error = NULL;
  g_list_store_remove_all (self->rows);
  if (!self->db || !g_file_test (self->db, G_FILE_TEST_EXISTS))
    {
      update_count (self);
      return;
    }
  g_autoptr (ls_store) store = ls_store_open_to_read (self->db, &error);
  g_autoptr (JsonArray) runs = store ? ls_store_history (store, 0, 0, &error) : NULL;
  if (!runs)
    {
      toast (self, error->message);
      update_count (self);
      return;
    }
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      LsRunRow *row = g_object_new (LS_TYPE_RUN_ROW, NULL);
      row->run = json_object_ref (json_array_get_object_element (runs, i));
      add_shown_members (row->run);
      g_list_store_append (self->rows, row);
      g_object_unref (row);
    }
  update_count (self);
}

guint
ls_history_page_count_runs (LsHistoryPage *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->rows));
}

/* The run ids selected, or every shown run when none is. */
static GArray *
chosen_ids (LsHistoryPage *self, gboolean all_if_none)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  GListModel *model = G_LIST_MODEL (self->selection);
  guint n = g_list_model_get_n_items (model);
  for (int pass = 0; pass < 2 && ids->len == 0; pass++)
    for (guint i = 0; i < n; i++)
      if ((pass == 1 && all_if_none) || gtk_selection_model_is_selected (GTK_SELECTION_MODEL (self->selection), i))
        {
          g_autoptr (LsRunRow) row = g_list_model_get_item (model, i);
          gint64 id = json_object_get_int_member (row->run, "id");
          g_array_append_val (ids, id);
        }
  return ids;
}

/* ------------------------------------------------------------ compare */

/* The runs selected (or, all_if_none, every shown run) side by side. */
static GtkWindow *
compare (LsHistoryPage *self, gboolean all_if_none)
{
  g_autoptr (GArray) ids = chosen_ids (self, all_if_none);
  g_autoptr (GError) error = NULL;
  if (ids->len < 2)
    {
      toast (self, "Select two runs or more to compare them (Ctrl+click).");
      return NULL;
    }
  g_autoptr (ls_store) store = ls_store_open_to_read (self->db, &error);
  if (!store)
    {
      toast (self, error->message);
      return NULL;
    }
  g_autoptr (GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  for (guint i = 0; i < ids->len; i++)
    {
      JsonObject *o = ls_store_run_object (store, g_array_index (ids, gint64, i), &error);
      if (!o)
        {
          toast (self, error->message);
          return NULL;
        }
      g_ptr_array_add (runs, o);
    }

  LsCompareWindow *win = ls_compare_window_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), runs);
  gtk_window_present (GTK_WINDOW (win));
  return GTK_WINDOW (win);
}

static void
on_compare (LsHistoryPage *self)
{
  compare (self, FALSE);
}

GtkWindow *
ls_history_page_compare_shown (LsHistoryPage *self)
{
  return compare (self, TRUE);
}

/* ------------------------------------------------------------ delete */

static void
on_delete_response (AdwMessageDialog *dialog, const char *response, LsHistoryPage *self)
{
  if (g_strcmp0 (response, "delete") != 0)
    return;
  g_autoptr (GArray) ids = chosen_ids (self, FALSE);
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open (self->db, &error);
  if (!store)
    {
      toast (self, error->message);
      return;
    }
  if (!ls_store_delete_runs (store, (const gint64 *) (void *) ids->data, ids->len, &error))
    toast (self, error->message);
  ls_history_page_reload (self);
}

static void
on_delete (LsHistoryPage *self)
{
  g_autoptr (GArray) ids = chosen_ids (self, FALSE);
  if (ids->len == 0)
    {
      toast (self, "Select the runs to delete first.");
      return;
    }
  g_autofree char *body = g_strdup_printf ("%u run%s and every batch and sample recorded with %s will be removed from "
                                           "the store. This cannot be undone.",
                                           ids->len, ids->len == 1 ? "" : "s", ids->len == 1 ? "it" : "them");
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), "Delete runs?", body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", "_Cancel", "delete", "_Delete", NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "delete", ADW_RESPONSE_DESTRUCTIVE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_delete_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------ export, import */

gboolean
ls_history_page_export_to (LsHistoryPage *self, const char *path, GError **error)
{
  g_autoptr (GArray) ids = chosen_ids (self, TRUE);
  g_autoptr (ls_store) store = ls_store_open_to_read (self->db, error);
  if (!store)
    return FALSE;
  if (g_str_has_suffix (path, ".sqlite") || g_str_has_suffix (path, ".db"))
    return ls_export_sqlite (store, ids, path, error);
  if (g_str_has_suffix (path, ".png") || g_str_has_suffix (path, ".svg") || g_str_has_suffix (path, ".pdf"))
    {
      /* The headline charts of the (first) chosen run's sweep. */
      gint64 sweep = 0;
      for (guint i = 0; i < ids->len && sweep <= 0; i++)
        {
          g_autoptr (JsonObject) run = ls_store_run_object (store, g_array_index (ids, gint64, i), NULL);
          sweep = run ? json_object_get_int_member_with_default (run, "sweep_id", 0) : 0;
        }
      if (sweep <= 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "Charts are drawn for a sweep: choose a run that belongs to one.");
          return FALSE;
        }
      ls_chart *charts[8];
      guint n = 0;
      for (const char *const *name = ls_chart_sweep_names; *name && n < G_N_ELEMENTS (charts); name++)
        {
          ls_chart *c = ls_chart_sweep (store, sweep, *name, error);
          if (!c)
            {
              for (guint k = 0; k < n; k++)
                ls_chart_free (charts[k]);
              return FALSE;
            }
          charts[n++] = c;
        }
      const char *format = strrchr (path, '.') + 1;
      gboolean ok = ls_chart_export (charts, n, path, format, 0, 0,
                                     adw_style_manager_get_dark (adw_style_manager_get_default ()), error);
      for (guint k = 0; k < n; k++)
        ls_chart_free (charts[k]);
      return ok;
    }
  g_autoptr (GString) out = g_string_new (NULL);
  if (g_str_has_suffix (path, ".json"))
    {
      g_autoptr (JsonNode) node = ls_export_json (store, ids, error);
      if (!node)
        return FALSE;
      g_autofree char *text = json_to_string (node, TRUE);
      g_string_append (out, text);
    }
  else if (g_str_has_suffix (path, ".csv"))
    {
      if (!ls_export_csv_runs (store, ids, out, error))
        return FALSE;
    }
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: name the file .csv, .json, .sqlite, .png, .svg or .pdf to choose the format", path);
      return FALSE;
    }
  return g_file_set_contents (path, out->str, (gssize) out->len, error);
}

gboolean
ls_history_page_import_from (LsHistoryPage *self, const char *path, GError **error)
{
  ls_import_counts counts = { 0 };
  g_autoptr (ls_store) store = ls_store_open (self->db, error);
  if (!store || !ls_import_file (store, path, &counts, error))
    return FALSE;
  g_autofree char *msg = g_strdup_printf ("Imported %u runs (%u already present) from %s", counts.runs_imported,
                                          counts.runs_present, path);
  toast (self, msg);
  ls_history_page_reload (self);
  return TRUE;
}

static void
on_export_response (GtkNativeDialog *dialog, int response, LsHistoryPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      g_autoptr (GError) error = NULL;
      if (ls_history_page_export_to (self, path, &error))
        {
          g_autofree char *msg = g_strdup_printf ("Exported to %s", path);
          toast (self, msg);
        }
      else
        toast (self, error->message);
    }
  g_object_unref (dialog);
}

void
ls_history_page_export (LsHistoryPage *self)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
      "Export the selected runs (or all shown): .csv, .json, .sqlite bundle, or the sweep's charts as .png, .svg, .pdf",
      GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "loadscope-runs.sqlite");
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_import_response (GtkNativeDialog *dialog, int response, LsHistoryPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      g_autoptr (GError) error = NULL;
      if (!ls_history_page_import_from (self, path, &error))
        toast (self, error->message);
    }
  g_object_unref (dialog);
}

void
ls_history_page_import (LsHistoryPage *self)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
      "Import runs from another machine (.sqlite bundle or .json export)",
      GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), GTK_FILE_CHOOSER_ACTION_OPEN, "_Import", "_Cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (on_import_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ------------------------------------------------------------ life */

static void
ls_history_page_dispose (GObject *object)
{
  LsHistoryPage *self = LS_HISTORY_PAGE (object);
  g_clear_pointer (&self->db, g_free);
  g_clear_object (&self->rows);
  G_OBJECT_CLASS (ls_history_page_parent_class)->dispose (object);
}

static void
ls_history_page_class_init (LsHistoryPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ls_history_page_dispose;
}

static void
ls_history_page_init (LsHistoryPage *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  self->rows = g_list_store_new (LS_TYPE_RUN_ROW);

  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start (bar, 12);
  gtk_widget_set_margin_end (bar, 12);
  gtk_widget_set_margin_top (bar, 8);
  gtk_widget_set_margin_bottom (bar, 8);
  self->search = GTK_SEARCH_ENTRY (gtk_search_entry_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->search), TRUE);
  g_object_set (self->search, "placeholder-text", "Filter by machine, OS, dataset, date, consumer or status", NULL);
  GtkWidget *compare = gtk_button_new_with_label ("Compare");
  gtk_widget_set_tooltip_text (compare, "Put the selected runs side by side");
  GtkWidget *del = gtk_button_new_with_label ("Delete");
  gtk_widget_add_css_class (del, "destructive-action");
  GtkWidget *reload = gtk_button_new_from_icon_name ("view-refresh-symbolic");
  gtk_widget_set_tooltip_text (reload, "Read the store again");
  self->count = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->count), "dim-label");
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->search));
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->count));
  gtk_box_append (GTK_BOX (bar), compare);
  gtk_box_append (GTK_BOX (bar), del);
  gtk_box_append (GTK_BOX (bar), reload);
  gtk_box_append (GTK_BOX (self), bar);

  self->filter = gtk_custom_filter_new (matches, self, NULL);
  GtkFilterListModel *filtered = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (self->rows)),
                                                            GTK_FILTER (self->filter));
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  GtkSortListModel *sorted = gtk_sort_list_model_new (G_LIST_MODEL (filtered),
                                                      g_object_ref (gtk_column_view_get_sorter (self->view)));
  self->selection = gtk_multi_selection_new (G_LIST_MODEL (sorted));
  gtk_column_view_set_model (self->view, GTK_SELECTION_MODEL (self->selection));
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->view), "data-table");
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    {
      GtkListItemFactory *f = gtk_signal_list_item_factory_new ();
      g_signal_connect (f, "setup", G_CALLBACK (setup_cell), (gpointer) &columns[i]);
      g_signal_connect (f, "bind", G_CALLBACK (bind_cell), (gpointer) &columns[i]);
      GtkColumnViewColumn *col = gtk_column_view_column_new (columns[i].title, f);
      gtk_column_view_column_set_sorter (col, GTK_SORTER (gtk_custom_sorter_new (compare_rows, (gpointer) &columns[i], NULL)));
      gtk_column_view_column_set_resizable (col, TRUE);
      gtk_column_view_column_set_fixed_width (col, columns[i].width);
      if (g_str_equal (columns[i].member, "dataset") || g_str_equal (columns[i].member, "os"))
        gtk_column_view_column_set_expand (col, TRUE);
      gtk_column_view_append_column (self->view, col);
      g_object_unref (col);
    }
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_widget_set_vexpand (scroll, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), GTK_WIDGET (self->view));
  gtk_box_append (GTK_BOX (self), scroll);

  g_signal_connect_swapped (self->search, "search-changed", G_CALLBACK (on_search_changed), self);
  g_signal_connect_swapped (compare, "clicked", G_CALLBACK (on_compare), self);
  g_signal_connect_swapped (del, "clicked", G_CALLBACK (on_delete), self);
  g_signal_connect_swapped (reload, "clicked", G_CALLBACK (ls_history_page_reload), self);
  update_count (self);
}
