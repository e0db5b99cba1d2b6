#include "ui/ls-results-page.h"

#include "app/core/i18n.h"
#include "app/core/verdict.h"
#include "app/report/sweep-charts.h"
#include "app/report/sweep-open.h"
#include "ui/ls-ranks-view.h"
#include "ui/ls-timeline-window.h"
#include "ui/ls-whatif-bar.h"

struct _LsResultsPage {
  GtkBox parent_instance;
  AdwStatusPage *empty;
  GtkWidget *content;
  GtkImage *status_icon;
  GtkLabel *headline;
  GtkLabel *failures;
  GtkWidget *code_box;
  GtkLabel *code;
  GtkLabel *try_next;
  GtkWidget *details_expander;
  GtkLabel *details;
  GtkDropDown *sweep_picker;
  GtkLabel *subtitle;
  GtkPopover *whatif_popover;
  GtkMenuButton *timeline_button; /* a menu of the sweep's runs */
  GtkGrid *grid;
  LsRanksView *ranks;         /* the ranks of the run the verdict is about, when it has them */
  GPtrArray *charts;          /* LsChartView, one per ls_chart_sweep_names */
  GCancellable *loading;      /* the charts being read, NULL when none */
  GCancellable *opening;      /* a sweep (or the picker's list) being read, NULL when none */
  LsWhatifBar *whatif;        /* the GPU-speed control over the utilization chart */
  char *db;
  gint64 sweep_id;            /* shown; 0: none */
  GArray *picker_ids;         /* gint64: the sweep of each picker entry */
  gboolean picking;           /* the picker is being filled, not chosen from */
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

/* The picker lists the store's sweeps, the one shown selected. */
static void
fill_picker (LsResultsPage *self, GArray *sweeps)
{
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);
  guint selected = GTK_INVALID_LIST_POSITION;
  g_array_set_size (self->picker_ids, 0);
  for (guint i = 0; i < sweeps->len; i++)
    {
      const ls_sweep_entry *e = &g_array_index (sweeps, ls_sweep_entry, i);
      g_autofree char *label = ls_sweep_entry_label (e);
      gtk_string_list_append (list, label);
      g_array_append_val (self->picker_ids, e->sweep_id);
      if (e->sweep_id == self->sweep_id)
        selected = i;
    }
  self->picking = TRUE;
  gtk_drop_down_set_model (self->sweep_picker, G_LIST_MODEL (list));
  gtk_drop_down_set_selected (self->sweep_picker, selected);
  self->picking = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->sweep_picker), sweeps->len > 0);
}

static void show_sweep (LsResultsPage *self, gint64 sweep_id, JsonArray *summaries);

typedef struct {
  LsResultsPage *self; /* a reference */
  gboolean show;       /* show the sweep read (else only the picker) */
} open_request;

static void
sweep_opened (GObject *source, GAsyncResult *result, gpointer data)
{
  open_request *req = data;
  g_autoptr (LsResultsPage) self = req->self;
  gboolean show = req->show;
  g_free (req);
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_sweep_opened) opened = ls_sweep_open_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->opening);
  if (!opened)
    {
      gtk_label_set_text (self->subtitle, error->message);
      return;
    }
  if (show && opened->sweep_id > 0)
    show_sweep (self, opened->sweep_id, opened->summaries);
  fill_picker (self, opened->sweeps);
}

static void
start_open (LsResultsPage *self, const char *db, gint64 sweep_id, gboolean show)
{
  if (self->opening)
    g_cancellable_cancel (self->opening);
  g_clear_object (&self->opening);
  if (db != self->db)
    {
      g_free (self->db);
      self->db = g_strdup (db);
    }
  self->opening = g_cancellable_new ();
  open_request *req = g_new0 (open_request, 1);
  req->self = g_object_ref (self);
  req->show = show;
  ls_sweep_open_async (self->db, sweep_id, self->opening, sweep_opened, req);
}

void
ls_results_page_open_sweep (LsResultsPage *self, const char *db, gint64 sweep_id)
{
  g_return_if_fail (LS_IS_RESULTS_PAGE (self));
  start_open (self, db, sweep_id, TRUE);
}

static void
on_sweep_picked (LsResultsPage *self)
{
  guint i = gtk_drop_down_get_selected (self->sweep_picker);
  if (self->picking || !self->picker_ids || i >= self->picker_ids->len) /* filling it, or the page is going */
    return;
  gint64 id = g_array_index (self->picker_ids, gint64, i);
  if (id != self->sweep_id)
    start_open (self, self->db, id, TRUE);
}

static void
on_copy (LsResultsPage *self)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), gtk_label_get_text (self->code));
}

/* The answer first: the verdict, the code, one line to try; the rest
 * (the recommendation's reasons, findings, warnings) under Details. */
static void
show_answer (LsResultsPage *self, JsonArray *summaries)
{
  ls_verdict verdict;
  ls_verdict_for_sweep (summaries, 0, &verdict);
  g_autofree char *failed = ls_sweep_failures_text (summaries);
  gtk_label_set_text (self->headline, verdict.headline ? verdict.headline : "");
  gtk_label_set_text (self->failures, failed ? failed : "");
  gtk_widget_set_visible (GTK_WIDGET (self->failures), failed != NULL);
  gtk_image_set_from_icon_name (self->status_icon, failed ? "dialog-warning-symbolic" : "emblem-ok-symbolic");
  gtk_label_set_text (self->code, verdict.dataloader ? verdict.dataloader : "");
  gtk_widget_set_visible (self->code_box, verdict.dataloader != NULL);
  gboolean other = verdict.suggested && g_strcmp0 (verdict.suggested, verdict.dataloader) != 0;
  g_autofree char *next = other ? g_strdup_printf (_("To try next: %s"), verdict.suggested) : NULL;
  gtk_label_set_text (self->try_next, next ? next : "");
  gtk_widget_set_visible (GTK_WIDGET (self->try_next), next != NULL);
  g_autofree char *all = ls_verdict_text (&verdict);
  g_strchomp (all);
  gtk_label_set_text (self->details, all);
  /* Its summary is already here: the ranks need no store read. */
  guint n = json_array_get_length (summaries);
  JsonObject *judged = verdict.index >= 0 && (guint) verdict.index < n
                           ? json_array_get_object_element (summaries, (guint) verdict.index) : NULL;
  ls_ranks_view_set_summary (self->ranks, judged);
  ls_verdict_clear (&verdict);
}

/* Timeline…: one item per recorded run of the sweep, its knobs named. */
static void
fill_timeline_menu (LsResultsPage *self, JsonArray *summaries)
{
  g_autoptr (GMenu) menu = g_menu_new ();
  guint n = json_array_get_length (summaries);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = json_array_get_object_element (summaries, i);
      gint64 run_id = json_object_get_int_member_with_default (o, "run_id", 0);
      if (run_id <= 0)
        continue; /* not recorded: nothing to draw it from */
      gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
      guint nw = (guint) CLAMP (workers, 0, G_MAXUINT);
      g_autofree char *w = g_strdup_printf (ngettext ("%u worker", "%u workers", nw), nw);
      char id[24];
      g_snprintf (id, sizeof id, "%" G_GINT64_FORMAT, run_id);
      g_autofree char *label = g_strdup_printf (_("Run %s: %s, pin %s, %s"), id, w,
                                                json_object_get_string_member_with_default (o, "pin", "-"),
                                                json_object_get_string_member_with_default (o, "start", "-"));
      g_autoptr (GMenuItem) item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "results.timeline", g_variant_new_int64 (run_id));
      g_menu_append_item (menu, item);
    }
  gtk_menu_button_set_menu_model (self->timeline_button, G_MENU_MODEL (menu));
  gtk_widget_set_sensitive (GTK_WIDGET (self->timeline_button), g_menu_model_get_n_items (G_MENU_MODEL (menu)) > 0);
}

static void
timeline_activated (GtkWidget *widget, const char *name, GVariant *parameter)
{
  LsResultsPage *self = LS_RESULTS_PAGE (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  if (self->db && GTK_IS_WINDOW (root))
    gtk_window_present (GTK_WINDOW (ls_timeline_window_new (GTK_WINDOW (root), self->db, g_variant_get_int64 (parameter))));
}

/* The sweep of self->db. */
static void
show_sweep (LsResultsPage *self, gint64 sweep_id, JsonArray *summaries)
{
  const char *db = self->db;
  gtk_widget_set_visible (GTK_WIDGET (self->empty), FALSE);
  gtk_widget_set_visible (self->content, TRUE);
  self->sweep_id = sweep_id;
  show_answer (self, summaries);
  fill_timeline_menu (self, summaries);
  gboolean simulated = FALSE;
  guint n = json_array_get_length (summaries);
  for (guint i = 0; i < n; i++)
    simulated |= json_object_get_boolean_member_with_default (json_array_get_object_element (summaries, i),
                                                              "simulated", FALSE);
  g_autofree char *runs = g_strdup_printf (ngettext ("%u run", "%u runs", n), n);
  g_autofree char *sub = g_strdup_printf (_("%s; hover a point for its exact value.%s%s"), runs, simulated ? "\n" : "",
                                          simulated ? ls_chart_simulated_note () : "");
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

void
ls_results_page_show_sweep (LsResultsPage *self, const char *db, gint64 sweep_id, JsonArray *summaries)
{
  g_return_if_fail (LS_IS_RESULTS_PAGE (self));
  if (db != self->db)
    {
      g_free (self->db);
      self->db = g_strdup (db);
    }
  show_sweep (self, sweep_id, summaries);
  /* The picker learns of the sweep (a new one is listed). */
  start_open (self, db, sweep_id, FALSE);
}

GMenuModel *
ls_results_page_get_timeline_menu (LsResultsPage *self)
{
  return gtk_menu_button_get_menu_model (self->timeline_button);
}

guint
ls_results_page_count_charts_with_data (LsResultsPage *self)
{
  guint n = 0;
  for (guint i = 0; i < self->charts->len; i++)
    n += ls_chart_view_n_points (self->charts->pdata[i]) > 0;
  return n;
}

LsRanksView *
ls_results_page_get_ranks_view (LsResultsPage *self)
{
  return self->ranks;
}

GtkWidget *
ls_results_page_get_whatif_bar (LsResultsPage *self)
{
  return GTK_WIDGET (self->whatif);
}

gboolean
ls_results_page_is_loading (LsResultsPage *self)
{
  return self->loading != NULL || self->opening != NULL;
}

gint64
ls_results_page_get_sweep_id (LsResultsPage *self)
{
  return self->sweep_id;
}

guint
ls_results_page_n_charts (LsResultsPage *self)
{
  return self->charts->len;
}

LsChartView *
ls_results_page_get_chart (LsResultsPage *self, guint i)
{
  g_return_val_if_fail (i < self->charts->len, NULL);
  return self->charts->pdata[i];
}

const char *
ls_results_page_get_failures (LsResultsPage *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->failures)) ? gtk_label_get_text (self->failures) : NULL;
}

const char *
ls_results_page_get_headline (LsResultsPage *self)
{
  return gtk_label_get_text (self->headline);
}

guint
ls_results_page_n_sweeps (LsResultsPage *self)
{
  return self->picker_ids->len;
}

static void
ls_results_page_dispose (GObject *object)
{
  LsResultsPage *self = LS_RESULTS_PAGE (object);
  if (self->loading)
    g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
  if (self->opening)
    g_cancellable_cancel (self->opening);
  g_clear_object (&self->opening);
  g_clear_pointer (&self->charts, g_ptr_array_unref);
  g_clear_pointer (&self->picker_ids, g_array_unref);
  g_clear_pointer (&self->db, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), LS_TYPE_RESULTS_PAGE);
  G_OBJECT_CLASS (ls_results_page_parent_class)->dispose (object);
}

static void
ls_results_page_class_init (LsResultsPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = ls_results_page_dispose;
  g_type_ensure (LS_TYPE_RANKS_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-results-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, empty);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, content);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, status_icon);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, headline);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, failures);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, code_box);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, code);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, try_next);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, details_expander);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, details);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, sweep_picker);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, subtitle);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, whatif_popover);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, timeline_button);
  gtk_widget_class_install_action (widget_class, "results.timeline", "x", timeline_activated);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, grid);
  gtk_widget_class_bind_template_child (widget_class, LsResultsPage, ranks);
  gtk_widget_class_bind_template_callback (widget_class, on_copy);
}

static void
ls_results_page_init (LsResultsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->picker_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_signal_connect_swapped (self->sweep_picker, "notify::selected", G_CALLBACK (on_sweep_picked), self);
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
  gtk_widget_set_margin_start (GTK_WIDGET (self->whatif), 6);
  gtk_widget_set_margin_end (GTK_WIDGET (self->whatif), 6);
  gtk_widget_set_size_request (GTK_WIDGET (self->whatif), 560, -1);
  gtk_popover_set_child (self->whatif_popover, GTK_WIDGET (self->whatif));
}
