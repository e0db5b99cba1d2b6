#include "ui/ls-results-page.h"

#include "app/report/chart-store.h"
#include "app/core/recommend.h"
#include "app/store/store-query.h"
#include "ui/ls-chart-view.h"

#define N_CHARTS 3

struct _LsResultsPage {
  GtkBox parent_instance;
  AdwStatusPage *empty;
  GtkWidget *content;
  GtkLabel *recommendation;
  GtkLabel *subtitle;
  LsChartView *charts[N_CHARTS];
};

G_DEFINE_FINAL_TYPE (LsResultsPage, ls_results_page, GTK_TYPE_BOX)

static const char *const chart_names[N_CHARTS] = { "utilization", "wait", "memory" };

void
ls_results_page_show_sweep (LsResultsPage *self, const char *db, gint64 sweep_id, JsonArray *summaries)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);

  gtk_widget_set_visible (GTK_WIDGET (self->empty), FALSE);
  gtk_widget_set_visible (self->content, TRUE);
  ls_recommendation rec = ls_recommend (summaries);
  g_autofree char *advice = rec.dataloader ? g_strdup_printf ("%s\nIn PyTorch: %s", rec.reason, rec.dataloader)
                                            : g_strdup (rec.reason);
  gtk_label_set_text (self->recommendation, advice);
  ls_recommendation_clear (&rec);
  gboolean simulated = FALSE;
  for (guint i = 0; i < json_array_get_length (summaries); i++)
    simulated |= json_object_get_boolean_member_with_default (json_array_get_object_element (summaries, i),
                                                              "simulated", FALSE);
  g_autofree char *sub = g_strdup_printf ("Sweep %" G_GINT64_FORMAT ", %u runs; hover a point for its exact value.%s%s",
                                          sweep_id, json_array_get_length (summaries), simulated ? "\n" : "",
                                          simulated ? LS_CHART_SIMULATED_NOTE : "");
  gtk_label_set_text (self->subtitle, sub);
  for (int i = 0; i < N_CHARTS; i++)
    {
      ls_chart *chart = store ? ls_chart_sweep (store, sweep_id, chart_names[i], &error) : NULL;
      if (!chart && error)
        {
          g_warning_once ("results: %s", error->message);
          g_clear_error (&error);
        }
      ls_chart_view_set_chart (self->charts[i], chart);
    }
}

guint
ls_results_page_count_charts_with_data (LsResultsPage *self)
{
  guint n = 0;
  for (int i = 0; i < N_CHARTS; i++)
    n += ls_chart_view_n_points (self->charts[i]) > 0;
  return n;
}

static void
ls_results_page_class_init (LsResultsPageClass *klass)
{
}

static void
ls_results_page_init (LsResultsPage *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  self->empty = ADW_STATUS_PAGE (adw_status_page_new ());
  adw_status_page_set_icon_name (self->empty, "x-office-presentation-symbolic");
  adw_status_page_set_title (self->empty, "No results yet");
  adw_status_page_set_description (self->empty, "The charts of a sweep appear here when it ends.");
  gtk_widget_set_vexpand (GTK_WIDGET (self->empty), TRUE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->empty));

  self->content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_visible (self->content, FALSE);
  gtk_widget_set_margin_start (self->content, 18);
  gtk_widget_set_margin_end (self->content, 18);
  gtk_widget_set_margin_top (self->content, 12);
  gtk_widget_set_margin_bottom (self->content, 12);
  gtk_widget_set_vexpand (self->content, TRUE);

  /* The recommendation, as a banner across the top. */
  GtkWidget *banner = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_add_css_class (banner, "card");
  GtkWidget *icon = gtk_image_new_from_icon_name ("emblem-ok-symbolic");
  gtk_widget_set_margin_start (icon, 12);
  self->recommendation = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->recommendation, TRUE);
  gtk_label_set_xalign (self->recommendation, 0);
  gtk_label_set_selectable (self->recommendation, TRUE);
  gtk_widget_set_margin_top (GTK_WIDGET (self->recommendation), 10);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->recommendation), 10);
  gtk_widget_set_margin_end (GTK_WIDGET (self->recommendation), 12);
  gtk_box_append (GTK_BOX (banner), icon);
  gtk_box_append (GTK_BOX (banner), GTK_WIDGET (self->recommendation));
  self->subtitle = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->subtitle, 0);
  gtk_label_set_wrap (self->subtitle, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->subtitle), "dim-label");

  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 12);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_grid_set_row_homogeneous (GTK_GRID (grid), TRUE);
  gtk_grid_set_column_homogeneous (GTK_GRID (grid), TRUE);
  gtk_widget_set_vexpand (grid, TRUE);
  for (int i = 0; i < N_CHARTS; i++)
    {
      self->charts[i] = ls_chart_view_new (NULL, NULL, NULL);
      ls_chart_view_set_simulated_note_elsewhere (self->charts[i], TRUE);
      gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->charts[i]), i == 2 ? 0 : i, i == 2 ? 1 : 0, i == 2 ? 2 : 1, 1);
    }
  gtk_box_append (GTK_BOX (self->content), banner);
  gtk_box_append (GTK_BOX (self->content), GTK_WIDGET (self->subtitle));
  /* Charts keep their text size: in a small window they scroll. */
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), grid);
  gtk_widget_set_vexpand (scroll, TRUE);
  gtk_box_append (GTK_BOX (self->content), scroll);
  gtk_box_append (GTK_BOX (self), self->content);
}
