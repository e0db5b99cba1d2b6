#include "ui/ls-compare-window.h"

#include "app/store/store-query.h"

/* A run column is at least this wide and shows at most this many
 * characters (a dataset's path is ellipsized, whole in its tooltip). */
#define RUN_COLUMN_PX 160
#define RUN_COLUMN_CHARS 30

struct _LsCompareWindow {
  AdwWindow parent_instance;
  guint n_runs;
  GPtrArray *differing; /* char *: knob labels */
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

static GtkWidget *
table_grid (void)
{
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (grid), 18);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  /* Equal rows on both sides: the labels' rows match the body's. */
  gtk_grid_set_row_homogeneous (GTK_GRID (grid), TRUE);
  return grid;
}

static gboolean
knob_differs (GPtrArray *runs, const ls_run_knob *knob)
{
  g_autofree char *first = ls_run_knob_text (runs->pdata[0], knob);
  for (guint r = 1; r < runs->len; r++)
    {
      g_autofree char *t = ls_run_knob_text (runs->pdata[r], knob);
      if (g_strcmp0 (t, first) != 0)
        return TRUE;
    }
  return FALSE;
}

static void
build (LsCompareWindow *self, GPtrArray *runs)
{
  GtkWidget *labels = table_grid (), *body = table_grid (), *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 18);
  int y = 0;
  /* One size group a run: its header and its cells are equally wide, so
   * the header (outside the body's grid) lines up with its column. */
  g_autoptr (GPtrArray) widths = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint r = 0; r < runs->len; r++)
    {
      JsonObject *run = runs->pdata[r];
      g_autofree char *head = g_strdup_printf ("Run %" G_GINT64_FORMAT "%s\n%s, %s", json_object_get_int_member (run, "id"),
                                               r == 0 ? " (baseline)" : "",
                                               json_object_get_string_member_with_default (run, "machine_hostname", "?"),
                                               json_object_get_string_member_with_default (run, "machine_os", "?"));
      GtkWidget *h = cell (head, FALSE, FALSE);
      gtk_widget_add_css_class (h, "heading");
      gtk_label_set_ellipsize (GTK_LABEL (h), PANGO_ELLIPSIZE_END);
      gtk_widget_set_size_request (h, RUN_COLUMN_PX, -1);
      gtk_box_append (GTK_BOX (header), h);
      GtkSizeGroup *g = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
      gtk_size_group_add_widget (g, h);
      g_ptr_array_add (widths, g);
    }

  for (guint k = 0; k < ls_n_run_knobs; k++, y++)
    {
      gboolean differs = knob_differs (runs, &ls_run_knobs[k]);
      g_autofree char *label = g_strdup_printf ("%s%s", ls_run_knobs[k].label, differs ? "  (differs)" : "");
      if (differs)
        g_ptr_array_add (self->differing, g_strdup (ls_run_knobs[k].label));
      gtk_grid_attach (GTK_GRID (labels), row_label (label, differs), 0, y, 1, 1);
      for (guint r = 0; r < runs->len; r++)
        {
          g_autofree char *t = ls_run_knob_text (runs->pdata[r], &ls_run_knobs[k]);
          GtkWidget *c = cell (t, FALSE, differs);
          gtk_size_group_add_widget (widths->pdata[r], c);
          gtk_grid_attach (GTK_GRID (body), c, (int) r, y, 1, 1);
        }
    }
  for (guint f = 0; f < ls_n_run_figures; f++, y++)
    {
      g_autofree char *heading = ls_run_figure_heading (&ls_run_figures[f]);
      gtk_grid_attach (GTK_GRID (labels), row_label (heading, FALSE), 0, y, 1, 1);
      double first = 0;
      gboolean have_first = ls_json_member_double (runs->pdata[0], ls_run_figures[f].column, &first);
      for (guint r = 0; r < runs->len; r++)
        {
          g_autofree char *t = ls_run_figure_text (runs->pdata[r], &ls_run_figures[f]);
          g_autofree char *text = NULL;
          double v;
          if (r > 0 && have_first && first != 0 && ls_json_member_double (runs->pdata[r], ls_run_figures[f].column, &v))
            text = g_strdup_printf ("%s  (%+.0f %%)", t, (v - first) / first * 100);
          else
            text = g_strdup (t);
          GtkWidget *c = cell (text, TRUE, FALSE);
          gtk_size_group_add_widget (widths->pdata[r], c);
          gtk_grid_attach (GTK_GRID (body), c, (int) r, y, 1, 1);
        }
    }

  /* The body scrolls both ways; the header follows it sideways and the
   * labels follow it down, so neither leaves the view. */
  GtkWidget *body_scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (body_scroll), body);
  gtk_widget_set_hexpand (body_scroll, TRUE);
  gtk_widget_set_vexpand (body_scroll, TRUE);
  GtkWidget *header_scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (header_scroll), GTK_POLICY_EXTERNAL, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (header_scroll), header);
  gtk_scrolled_window_set_hadjustment (GTK_SCROLLED_WINDOW (header_scroll),
                                       gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (body_scroll)));
  GtkWidget *labels_scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (labels_scroll), GTK_POLICY_NEVER, GTK_POLICY_EXTERNAL);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (labels_scroll), labels);
  gtk_scrolled_window_set_vadjustment (GTK_SCROLLED_WINDOW (labels_scroll),
                                       gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (body_scroll)));

  GtkWidget *table = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (table), 18);
  gtk_grid_set_row_spacing (GTK_GRID (table), 10);
  gtk_widget_set_margin_start (table, 18);
  gtk_widget_set_margin_end (table, 18);
  gtk_widget_set_margin_top (table, 12);
  gtk_widget_set_margin_bottom (table, 18);
  gtk_grid_attach (GTK_GRID (table), header_scroll, 1, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (table), labels_scroll, 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (table), body_scroll, 1, 1, 1, 1);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (box), adw_header_bar_new ());
  gtk_box_append (GTK_BOX (box), table);
  adw_window_set_content (ADW_WINDOW (self), box);
}

static void
ls_compare_window_finalize (GObject *object)
{
  LsCompareWindow *self = LS_COMPARE_WINDOW (object);
  g_ptr_array_unref (self->differing);
  G_OBJECT_CLASS (ls_compare_window_parent_class)->finalize (object);
}

static void
ls_compare_window_class_init (LsCompareWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ls_compare_window_finalize;
}

static void
ls_compare_window_init (LsCompareWindow *self)
{
  self->differing = g_ptr_array_new_with_free_func (g_free);
}

LsCompareWindow *
ls_compare_window_new (GtkWindow *parent, GPtrArray *runs)
{
  g_return_val_if_fail (runs != NULL && runs->len >= 1, NULL);
  LsCompareWindow *self = g_object_new (LS_TYPE_COMPARE_WINDOW, "title", "Compare runs", "modal", TRUE,
                                        "transient-for", parent, "default-width", 900, "default-height", 640, NULL);
  self->n_runs = runs->len;
  build (self, runs);
  return self;
}

guint
ls_compare_window_n_runs (LsCompareWindow *self)
{
  return self->n_runs;
}

GPtrArray *
ls_compare_window_differing_knobs (LsCompareWindow *self)
{
  return self->differing;
}
