#include "ui/ls-compare-window.h"

#include <math.h>

#include "app/core/i18n.h"
#include "app/report/chart-compare.h"
#include "app/store/store-query.h"
#include "ui/ls-chart-view.h"

/* A run column is at least this wide and shows at most this many
 * characters (a dataset's path is ellipsized, whole in its tooltip). */
#define RUN_COLUMN_PX 190
#define RUN_COLUMN_CHARS 34
/* The overlaid waits and memory: tall enough for a plot area at the
 * window's size. */
#define CDF_HEIGHT_PX 260

struct _LsCompareWindow {
  AdwWindow parent_instance;
  ls_compare_table *table;
  GPtrArray *differing; /* char *: knob labels */
  GtkBox *header;
  GtkGrid *labels;
  GtkGrid *body;
  GtkScrolledWindow *header_scroll;
  GtkScrolledWindow *labels_scroll;
  GtkScrolledWindow *body_scroll;
  GtkBox *charts;
  LsChartView *cdf;           /* NULL until the waits are read */
  LsChartView *memory;        /* NULL until the memory samples are read */
  GCancellable *reading;      /* the waits and samples being read */
};

G_DEFINE_FINAL_TYPE (LsCompareWindow, ls_compare_window, ADW_TYPE_WINDOW)

static GtkWidget *
cell (const char *text, gboolean numeric, gboolean marked)
{
  GtkWidget *l = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (l), numeric ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (l), PANGO_ELLIPSIZE_START);
  gtk_label_set_max_width_chars (GTK_LABEL (l), RUN_COLUMN_CHARS);
  gtk_widget_set_tooltip_text (l, text);
  if (marked)
    {
      gtk_widget_add_css_class (l, "accent");
      gtk_widget_add_css_class (l, "heading");
    }
  return l;
}

/* A row label: whole, never ellipsized (the column is as wide as they are). */
static GtkWidget *
row_label (const char *text, gboolean marked)
{
  GtkWidget *l = cell (text, FALSE, marked);
  gtk_label_set_ellipsize (GTK_LABEL (l), PANGO_ELLIPSIZE_NONE);
  return l;
}

static void
build (LsCompareWindow *self)
{
  ls_compare_table *table = self->table;
  /* One size group a run: its header and its cells are equally wide, so
   * the header (outside the body's grid) lines up with its column. */
  g_autoptr (GPtrArray) widths = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint r = 0; r < table->runs->len; r++)
    {
      JsonObject *run = table->runs->pdata[r];
      g_autofree char *head = g_strdup_printf (_("Run %lld%s\n%s, %s"), (long long) json_object_get_int_member (run, "id"),
                                               r == 0 ? _(" (baseline)") : "",
                                               json_object_get_string_member_with_default (run, "machine_hostname", "?"),
                                               json_object_get_string_member_with_default (run, "machine_os", "?"));
      GtkWidget *h = cell (head, FALSE, FALSE);
      gtk_widget_add_css_class (h, "heading");
      gtk_label_set_ellipsize (GTK_LABEL (h), PANGO_ELLIPSIZE_END);
      gtk_widget_set_size_request (h, RUN_COLUMN_PX, -1);
      gtk_box_append (self->header, h);
      GtkSizeGroup *g = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
      gtk_size_group_add_widget (g, h);
      g_ptr_array_add (widths, g);
    }

  /* The figures first, each against the baseline and marked better or
   * worse; then the knobs, those that differ marked. A heading row before
   * each part (an empty cell in the body keeps the rows level). */
  JsonObject *base = table->runs->pdata[0];
  int at = 0;
  for (guint y = 0; y < table->rows->len; y++)
    {
      const ls_compare_row *row = table->rows->pdata[y];
      gboolean knob = row->kind == LS_COMPARE_KNOB;
      if (y == 0 || (knob && ((const ls_compare_row *) table->rows->pdata[y - 1])->kind != LS_COMPARE_KNOB))
        {
          g_autofree char *title = knob ? g_strdup (_("Knobs"))
                                        : g_strdup_printf (_("Figures, change against run %lld"),
                                                           (long long) json_object_get_int_member (base, "id"));
          GtkWidget *h = row_label (title, FALSE);
          gtk_widget_add_css_class (h, "heading");
          gtk_grid_attach (self->labels, h, 0, at, 1, 1);
          gtk_grid_attach (self->body, gtk_label_new (""), 0, at, 1, 1);
          at++;
        }
      g_autofree char *label = g_strdup_printf ("%s%s", row->label, row->differs ? _("  (differs)") : "");
      gtk_grid_attach (self->labels, row_label (label, row->differs), 0, at, 1, 1);
      for (guint r = 0; r < row->cells->len; r++)
        {
          const char *t = row->cells->pdata[r];
          g_autofree char *change = knob ? NULL : ls_compare_change_text (row, r);
          g_autofree char *text = change ? g_strdup_printf ("%s  (%s)", t, change) : g_strdup (t);
          GtkWidget *c = cell (text, !knob, row->differs);
          if (!knob && row->better[r] != 0)
            gtk_widget_add_css_class (c, row->better[r] > 0 ? "success" : "error");
          gtk_size_group_add_widget (widths->pdata[r], c);
          gtk_grid_attach (self->body, c, (int) r, at, 1, 1);
        }
      at++;
    }
  g_ptr_array_unref (self->differing);
  self->differing = ls_compare_table_differing_knobs (table);
}

/* ---- the runs' waits and memory overlaid, read from the store in a thread */

typedef struct {
  char *db;
  GArray *ids; /* gint64 */
} cdf_read;

static void
cdf_read_free (gpointer data)
{
  cdf_read *r = data;
  g_free (r->db);
  g_array_unref (r->ids);
  g_free (r);
}

static void
free_chart (gpointer chart)
{
  ls_chart_free (chart);
}

/* Returns a GPtrArray: the waits' CDF, then the memory over time. */
static void
read_cdf (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  cdf_read *r = data;
  GError *error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (r->db, &error);
  const gint64 *ids = (const gint64 *) (void *) r->ids->data;
  g_autoptr (GPtrArray) charts = g_ptr_array_new_with_free_func (free_chart);
  ls_chart *chart = store ? ls_chart_runs_wait_cdf (store, ids, r->ids->len, &error) : NULL;
  if (chart)
    g_ptr_array_add (charts, chart);
  chart = chart ? ls_chart_runs_memory (store, ids, r->ids->len, &error) : NULL;
  if (chart)
    g_ptr_array_add (charts, chart);
  if (charts->len == 2)
    g_task_return_pointer (task, g_steal_pointer (&charts), (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

static LsChartView *
add_chart (LsCompareWindow *self, ls_chart *chart)
{
  LsChartView *view = ls_chart_view_new (NULL, NULL, NULL);
  gtk_widget_set_size_request (GTK_WIDGET (view), -1, CDF_HEIGHT_PX);
  ls_chart_view_set_chart (view, chart);
  gtk_box_append (self->charts, GTK_WIDGET (view));
  return view;
}

static void
cdf_read_done (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) charts = g_task_propagate_pointer (G_TASK (res), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || (!charts && !error))
    return; /* the window went */
  LsCompareWindow *self = LS_COMPARE_WINDOW (source);
  g_clear_object (&self->reading);
  if (!charts)
    {
      /* The table stands on its own; say why the charts are missing. */
      g_autofree char *why = g_strdup_printf (_("The runs' batch waits could not be read: %s"), error->message);
      GtkWidget *l = gtk_label_new (why);
      gtk_label_set_wrap (GTK_LABEL (l), TRUE);
      gtk_widget_add_css_class (l, "dim-label");
      gtk_box_append (self->charts, l);
    }
  else
    {
      /* The views own the charts from here. */
      g_ptr_array_set_free_func (charts, NULL);
      self->cdf = add_chart (self, charts->pdata[0]);
      self->memory = add_chart (self, charts->pdata[1]);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->charts), TRUE);
}

static void
start_cdf (LsCompareWindow *self)
{
  if (!self->table->db)
    return;
  cdf_read *r = g_new0 (cdf_read, 1);
  r->db = g_strdup (self->table->db);
  r->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < self->table->runs->len; i++)
    {
      gint64 id = json_object_get_int_member (self->table->runs->pdata[i], "id");
      g_array_append_val (r->ids, id);
    }
  self->reading = g_cancellable_new ();
  g_autoptr (GTask) task = g_task_new (self, self->reading, cdf_read_done, NULL);
  g_task_set_task_data (task, r, cdf_read_free);
  g_task_run_in_thread (task, read_cdf);
}

gboolean
ls_compare_window_is_reading (LsCompareWindow *self)
{
  return self->reading != NULL;
}

guint
ls_compare_window_n_cdf_points (LsCompareWindow *self)
{
  return self->cdf ? ls_chart_view_n_points (self->cdf) : 0;
}

guint
ls_compare_window_n_memory_points (LsCompareWindow *self)
{
  return self->memory ? ls_chart_view_n_points (self->memory) : 0;
}

static void
ls_compare_window_dispose (GObject *object)
{
  LsCompareWindow *self = LS_COMPARE_WINDOW (object);
  if (self->reading)
    g_cancellable_cancel (self->reading);
  g_clear_object (&self->reading);
  gtk_widget_dispose_template (GTK_WIDGET (object), LS_TYPE_COMPARE_WINDOW);
  G_OBJECT_CLASS (ls_compare_window_parent_class)->dispose (object);
}

static void
ls_compare_window_finalize (GObject *object)
{
  LsCompareWindow *self = LS_COMPARE_WINDOW (object);
  g_ptr_array_unref (self->differing);
  ls_compare_table_free (self->table);
  G_OBJECT_CLASS (ls_compare_window_parent_class)->finalize (object);
}

static void
ls_compare_window_class_init (LsCompareWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = ls_compare_window_dispose;
  G_OBJECT_CLASS (klass)->finalize = ls_compare_window_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-compare-window.ui");
  gtk_widget_class_bind_template_child (widget_class, LsCompareWindow, header);
  gtk_widget_class_bind_template_child (widget_class, LsCompareWindow, labels);
  gtk_widget_class_bind_template_child (widget_class, LsCompareWindow, body);
  gtk_widget_class_bind_template_child (widget_class, LsCompareWindow, header_scroll);
  gtk_widget_class_bind_template_child (widget_class, LsCompareWindow, labels_scroll);
  gtk_widget_class_bind_template_child (widget_class, LsCompareWindow, body_scroll);
  gtk_widget_class_bind_template_child (widget_class, LsCompareWindow, charts);
}

static void
ls_compare_window_init (LsCompareWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->differing = g_ptr_array_new_with_free_func (g_free);
  /* The header follows the body sideways, the labels follow it down. */
  gtk_scrolled_window_set_hadjustment (self->header_scroll, gtk_scrolled_window_get_hadjustment (self->body_scroll));
  gtk_scrolled_window_set_vadjustment (self->labels_scroll, gtk_scrolled_window_get_vadjustment (self->body_scroll));
}

LsCompareWindow *
ls_compare_window_new (GtkWindow *parent, ls_compare_table *table)
{
  g_return_val_if_fail (table != NULL && ls_compare_table_n_runs (table) >= 1, NULL);
  LsCompareWindow *self = g_object_new (LS_TYPE_COMPARE_WINDOW, "transient-for", parent, NULL);
  self->table = table;
  build (self);
  start_cdf (self);
  return self;
}

guint
ls_compare_window_n_runs (LsCompareWindow *self)
{
  return ls_compare_table_n_runs (self->table);
}

GPtrArray *
ls_compare_window_differing_knobs (LsCompareWindow *self)
{
  return self->differing;
}
