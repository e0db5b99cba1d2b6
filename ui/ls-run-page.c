#include "ui/ls-run-page.h"

#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "ui/ls-chart-view.h"

typedef struct {
  double x;     /* on the batch axis */
  gint64 epoch; /* the epoch that begins there */
} run_page_mark;

struct _LsRunPage {
  GtkBox parent_instance;
  AdwStatusPage *idle;
  GtkWidget *live;
  GtkLabel *heading;
  GtkProgressBar *sweep_progress;
  GtkProgressBar *run_progress;
  GtkLabel *figures;
  GtkLabel *sink_note;
  LsChartView *timeline;
  LsChartView *memory;
  GArray *waits;       /* double: wait_ms of the current run's batches */
  GArray *epoch_marks; /* run_page_mark: where each epoch after the first began */
  gint64 last_epoch;
  GArray *mem_t, *mem_total, *mem_runner;
  gint64 planned;
  guint total;
};

G_DEFINE_FINAL_TYPE (LsRunPage, ls_run_page, GTK_TYPE_BOX)

void
ls_run_page_sweep_started (LsRunPage *self, guint total)
{
  self->total = total;
  gtk_label_set_text (self->heading, _("Starting the sweep…"));
  gtk_widget_set_visible (GTK_WIDGET (self->idle), FALSE);
  gtk_widget_set_visible (self->live, TRUE);
  gtk_progress_bar_set_fraction (self->sweep_progress, 0);
}

void
ls_run_page_run_started (LsRunPage *self, guint index, guint total, const char *label)
{
  g_autofree char *text = g_strdup_printf (_("Configuration %u of %u: %s"), index, total, label);
  gtk_label_set_text (self->heading, text);
  gtk_progress_bar_set_fraction (self->sweep_progress, (double) (index - 1) / MAX (total, 1));
  g_autofree char *of = g_strdup_printf (ngettext ("%u of %u configuration done", "%u of %u configurations done",
                                                     total),
                                         index - 1, total);
  gtk_progress_bar_set_text (self->sweep_progress, of);
  gtk_progress_bar_set_fraction (self->run_progress, 0);
  gtk_label_set_text (self->figures, _("Starting the runner…"));
  g_array_set_size (self->waits, 0);
  g_array_set_size (self->epoch_marks, 0);
  self->last_epoch = -1;
  g_array_set_size (self->mem_t, 0);
  g_array_set_size (self->mem_total, 0);
  g_array_set_size (self->mem_runner, 0);
  self->planned = 0;
  ls_chart_view_set_series (self->timeline, NULL, NULL, 0, NULL, NULL, 0);
  ls_chart_view_set_series (self->memory, NULL, NULL, 0, NULL, NULL, 0);
}

void
ls_run_page_event (LsRunPage *self, JsonObject *ev)
{
  const char *kind = json_object_get_string_member_with_default (ev, "event", "");

  if (g_str_equal (kind, "started"))
    {
      self->planned = json_object_get_int_member_with_default (ev, "planned_batches", 0);
      const char *note = json_object_get_string_member_with_default (ev, "sink_note", NULL);
      gboolean sim = json_object_get_boolean_member_with_default (ev, "simulated", FALSE);
      g_autofree char *text = sim ? g_strdup_printf (_("Simulated GPU: copies and model steps are modelled, not measured%s%s%s"),
                                                     note ? " (" : ".", note ? note : "", note ? ")." : "")
                                  : g_strdup_printf (_("Consumer: %s"), json_object_get_string_member_with_default (ev, "sink", "?"));
      gtk_label_set_text (self->sink_note, text);
    }
  else if (g_str_equal (kind, "batch"))
    {
      double wait = ls_json_number_or (ev, "wait_ms", 0);
      gint64 seq = json_object_get_int_member_with_default (ev, "seq", 0);
      gint64 epoch = json_object_get_int_member_with_default (ev, "epoch", 0);
      if (self->last_epoch >= 0 && epoch != self->last_epoch)
        {
          /* Halfway between the last batch of one epoch and the first of the
           * next: the wait that starts an epoch (workers restarting) shows
           * right of its mark. */
          run_page_mark m = { self->waits->len - 0.5, epoch };
          g_array_append_val (self->epoch_marks, m);
        }
      self->last_epoch = epoch;
      g_array_append_val (self->waits, wait);
      if (self->planned > 0)
        gtk_progress_bar_set_fraction (self->run_progress, (double) (seq + 1) / (double) self->planned);
      /* A run without a planned count (epochs of an unknown length) says none. */
      g_autofree char *text = self->planned > 0
                                  ? g_strdup_printf (_("Batch %lld of %lld: waited %.2f ms for data"), (long long) (seq + 1),
                                                     (long long) self->planned, wait)
                                  : g_strdup_printf (_("Batch %lld: waited %.2f ms for data"), (long long) (seq + 1), wait);
      gtk_label_set_text (self->figures, text);
      g_autoptr (GArray) xs = g_array_sized_new (FALSE, FALSE, sizeof (double), self->waits->len);
      for (guint i = 0; i < self->waits->len; i++)
        {
          double x = i;
          g_array_append_val (xs, x);
        }
      ls_chart_view_set_series (self->timeline, _("wait per batch"), (double *) xs->data, xs->len,
                                (double *) self->waits->data, NULL, 0);
      for (guint i = 0; i < self->epoch_marks->len; i++)
        {
          const run_page_mark *m = &g_array_index (self->epoch_marks, run_page_mark, i);
          char label[64];
          g_snprintf (label, sizeof label, _("epoch %u"), (guint) CLAMP (m->epoch, 0, G_MAXUINT));
          ls_chart_view_add_x_mark (self->timeline, m->x, label);
        }
    }
  else if (g_str_equal (kind, "sample"))
    {
      double t = ls_json_number_or (ev, "t_ms", 0) / 1000.0, total = ls_json_number_or (ev, "pss_bytes", 0);
      double runner = ls_json_number_or (ev, "runner_pss_bytes", 0);
      if (total <= 0)
        total = ls_json_number_or (ev, "private_bytes", 0);
      total /= 1e6;
      runner /= 1e6;
      g_array_append_val (self->mem_t, t);
      g_array_append_val (self->mem_total, total);
      g_array_append_val (self->mem_runner, runner);
      ls_chart_view_set_series (self->memory, _("runner + workers"), (double *) self->mem_t->data, self->mem_t->len,
                                (double *) self->mem_total->data, _("runner alone"), (double *) self->mem_runner->data);
    }
}

GtkWidget *
ls_run_page_get_wait_chart (LsRunPage *self)
{
  return GTK_WIDGET (self->timeline);
}

void
ls_run_page_sweep_finished (LsRunPage *self, gboolean cancelled, const char *failure)
{
  if (failure)
    {
      /* Nothing more to watch: the reason, where the live view was. */
      adw_status_page_set_icon_name (self->idle, "dialog-error-symbolic");
      adw_status_page_set_title (self->idle, _("Sweep failed"));
      g_autofree char *text = g_markup_printf_escaped (_("%s\n\nThe sweep is recorded as failed. Fix the setup and run "
                                                         "it again (Ctrl+R)."),
                                                       failure);
      adw_status_page_set_description (self->idle, text);
      gtk_widget_set_visible (self->live, FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->idle), TRUE);
      return;
    }
  gtk_progress_bar_set_fraction (self->sweep_progress, cancelled ? gtk_progress_bar_get_fraction (self->sweep_progress) : 1);
  gtk_progress_bar_set_text (self->sweep_progress, cancelled ? _("Cancelled") : _("Sweep finished"));
}

static void
ls_run_page_dispose (GObject *object)
{
  LsRunPage *self = LS_RUN_PAGE (object);
  g_clear_pointer (&self->waits, g_array_unref);
  g_clear_pointer (&self->epoch_marks, g_array_unref);
  g_clear_pointer (&self->mem_t, g_array_unref);
  g_clear_pointer (&self->mem_total, g_array_unref);
  g_clear_pointer (&self->mem_runner, g_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), LS_TYPE_RUN_PAGE);
  G_OBJECT_CLASS (ls_run_page_parent_class)->dispose (object);
}

static void
ls_run_page_class_init (LsRunPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = ls_run_page_dispose;
  g_type_ensure (LS_TYPE_CHART_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-run-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, idle);
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, live);
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, heading);
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, sweep_progress);
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, run_progress);
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, figures);
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, sink_note);
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, timeline);
  gtk_widget_class_bind_template_child (widget_class, LsRunPage, memory);
}

static void
ls_run_page_init (LsRunPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->waits = g_array_new (FALSE, FALSE, sizeof (double));
  self->epoch_marks = g_array_new (FALSE, FALSE, sizeof (run_page_mark));
  self->last_epoch = -1;
  self->mem_t = g_array_new (FALSE, FALSE, sizeof (double));
  self->mem_total = g_array_new (FALSE, FALSE, sizeof (double));
  self->mem_runner = g_array_new (FALSE, FALSE, sizeof (double));
}
