#include "ui/ls-results-page.h"

#include "app/core/verdict.h"
#include "app/report/sweep-charts.h"
#include "ui/ls-chart-view.h"
#include "ui/ls-whatif-bar.h"

struct _LsResultsPage {
  GtkBox parent_instance;
  AdwStatusPage *empty;
  GtkWidget *content;
  GtkLabel *recommendation;
  GtkLabel *subtitle;
  GtkGrid *grid;
  GPtrArray *charts;          /* LsChartView, one per ls_chart_sweep_names */
  GCancellable *loading;      /* the charts being read, NULL when none */
  LsWhatifBar *whatif;        /* the GPU-speed control over the utilization chart */
};

G_DEFINE_FINAL_TYPE (LsResultsPage, ls_results_page, GTK_TYPE_BOX)

static void
charts_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (LsResultsPage) self = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) charts = ls_sweep_charts_load_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return; /* a later sweep is shown, or the page is gone */
  g_clear_object (&self->loading);
  if (!charts)
    g_warning_once ("results: %s", error->message);
  for (guint i = 0; i < self->charts->len; i++)
    ls_chart_view_set_chart (self->charts->pdata[i], charts ? g_steal_pointer (&charts->pdata[i]) : NULL);
  ls_whatif_bar_refresh (self->whatif);
}

void
ls_results_page_show_sweep (LsResultsPage *self, const char *db, gint64 sweep_id, JsonArray *summaries)
{
  gtk_widget_set_visible (GTK_WIDGET (self->empty), FALSE);
  gtk_widget_set_visible (self->content, TRUE);
  /* The recommendation and the verdict, as `loadscope sweep` prints them. */
  ls_verdict verdict;
  ls_verdict_for_sweep (summaries, 0, &verdict);
  g_autofree char *advice = ls_verdict_text (&verdict);
  g_strchomp (advice);
  gtk_label_set_text (self->recommendation, advice);
  ls_verdict_clear (&verdict);
  gboolean simulated = FALSE;
  for (guint i = 0; i < json_array_get_length (summaries); i++)
    simulated |= json_object_get_boolean_member_with_default (json_array_get_object_element (summaries, i),
                                                              "simulated", FALSE);
  g_autofree char *sub = g_strdup_printf ("Sweep %" G_GINT64_FORMAT ", %u runs; hover a point for its exact value.%s%s",
                                          sweep_id, json_array_get_length (summaries), simulated ? "\n" : "",
                                          simulated ? LS_CHART_SIMULATED_NOTE : "");
  gtk_label_set_text (self->subtitle, sub);

  /* The charts come from the store, read off the main loop. */
  if (self->loading)
    g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
  self->loading = g_cancellable_new ();
  ls_sweep_charts_load_async (db, sweep_id, self->loading, charts_loaded, g_object_ref (self));
  LsChartView *util = NULL;
  for (guint i = 0; ls_chart_sweep_names[i] && i < self->charts->len; i++)
    if (g_str_equal (ls_chart_sweep_names[i], "utilization"))
      util = self->charts->pdata[i];
  ls_whatif_bar_set_sweep (self->whatif, db, sweep_id, util);
}

guint
ls_results_page_count_charts_with_data (LsResultsPage *self)
{
  guint n = 0;
  for (guint i = 0; i < self->charts->len; i++)
    n += ls_chart_view_n_points (self->charts->pdata[i]) > 0;
  return n;
}

GtkWidget *
ls_results_page_get_whatif_bar (LsResultsPage *self)
{
  return GTK_WIDGET (self->whatif);
}

gboolean
ls_results_page_is_loading (LsResultsPage *self)
{
  return self->loading != NULL;
}

static void
ls_results_page_dispose (GObject *object)
{
  LsResultsPage *self = LS_RESULTS_PAGE (object);
  if (self->loading)
    g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
  g_clear_pointer (&self->charts, g_ptr_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), LS_TYPE_RESULTS_PAGE);
  G_OBJECT_CLASS (ls_results_page_parent_class)->dispose (object);
}

static void
ls_results_page_class_init (LsResultsPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = ls_results_page_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-results-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, empty);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, content);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, recommendation);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, subtitle);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, grid);
}

static void
ls_results_page_init (LsResultsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Two charts a row; an odd last one spans the row. */
  guint n = ls_sweep_charts_n ();
  self->charts = g_ptr_array_new ();
  for (guint i = 0; i < n; i++)
    {
      LsChartView *view = ls_chart_view_new (NULL, NULL, NULL);
      ls_chart_view_set_simulated_note_elsewhere (view, TRUE);
      gboolean alone = i + 1 == n && n % 2 == 1;
      gtk_grid_attach (self->grid, GTK_WIDGET (view), (int) (i % 2), (int) (i / 2), alone ? 2 : 1, 1);
      g_ptr_array_add (self->charts, view);
    }
  self->whatif = ls_whatif_bar_new ();
  gtk_box_insert_child_after (GTK_BOX (self->content), GTK_WIDGET (self->whatif), GTK_WIDGET (self->subtitle));
}
