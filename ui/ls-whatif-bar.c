/* The what-if bar (ls-whatif-bar.h). The model is fitted once per sweep
 * shown (the sweep's first finished run and its siblings); each move of
 * the scale predicts every worker count of the chart for each pin mode of
 * the sweep and adds the lines to a freshly read utilization chart. The
 * store is read in a thread (the model's basis, the chart); a later read
 * replaces an earlier one still on its way. */
#include "ui/ls-whatif-bar-private.h"

#include <math.h>

#include "app/core/i18n.h"
#include "app/analysis/whatif-basis.h"
#include "app/report/chart-store.h"
#include "app/store/store-query.h"

struct _LsWhatifBar {
  GtkBox parent_instance;
  GtkLabel *title;
  GtkScale *scale;
  GtkLabel *value;
  GtkLabel *note;
  char *db;
  gint64 sweep_id;
  LsChartView *view;          /* not owned: the page's */
  ls_whatif_basis *basis;     /* NULL: nothing to fit to */
  guint n_predicted;
  guint redraw;               /* a pending redraw (the scale moved) */
  guint serial;               /* of the last read started */
  guint reading;              /* reads in their thread */
  gboolean fitting;           /* the sweep's read (basis and chart) is on its way: it draws */
  GCancellable *cancellable;  /* cancelled when the bar goes */
};

G_DEFINE_FINAL_TYPE (LsWhatifBar, ls_whatif_bar, GTK_TYPE_BOX)

double
ls_whatif_bar_get_speed (LsWhatifBar *self)
{
  return exp2 (gtk_range_get_value (GTK_RANGE (self->scale)));
}

void
ls_whatif_bar_set_speed (LsWhatifBar *self, double speed)
{
  gtk_range_set_value (GTK_RANGE (self->scale), log2 (CLAMP (speed, 0.25, 4.0)));
}

guint
ls_whatif_bar_n_predicted (LsWhatifBar *self)
{
  return self->n_predicted;
}

gboolean
ls_whatif_bar_is_reading (LsWhatifBar *self)
{
  return self->reading > 0 || self->redraw != 0;
}

/* No GPU consumer (sink none: a script's training step on the CPU): the
 * scale is the step's time, not a GPU's speed. */
static gboolean
without_gpu (LsWhatifBar *self)
{
  const ls_whatif_run *r = self->basis && self->basis->runs->len ? g_ptr_array_index (self->basis->runs, 0) : NULL;
  return r && g_strcmp0 (r->sink, "none") == 0;
}

gboolean
ls_whatif_bar_is_step_time (LsWhatifBar *self)
{
  return without_gpu (self);
}

/* The scale's value in words: "2×" (GPU speed), or the step's time on
 * the CPU ("10 ms step"). */
static char *
value_text (LsWhatifBar *self)
{
  double speed = ls_whatif_bar_get_speed (self);
  if (!without_gpu (self))
    return g_strdup_printf ("%.2g×", speed);
  const ls_whatif_run *r = g_ptr_array_index (self->basis->runs, 0);
  return g_strdup_printf (_("%.3g ms"), r->compute_ms / speed);
}

/* The words around the scale for the sweep shown. */
static void
set_mode (LsWhatifBar *self)
{
  gboolean cpu = without_gpu (self);
  gtk_label_set_text (self->title, cpu ? _("What if the training step on the CPU took") : _("What if the GPU were"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->scale), cpu ? _("The training step's time on the CPU: 4× to ¼× of the "
                                                                  "measured time")
                                                              : _("GPU speed: the model step takes 1/k of the measured "
                                                                  "time"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->scale), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  cpu ? _("Training step time") : _("GPU speed"), -1);
  static const char *const speed_marks[] = { "¼×", "½×", "1×", "2×", "4×" };
  static const char *const time_marks[] = { N_ ("4× time"), "2×", N_ ("as measured"), "½", N_ ("¼ time") };
  gtk_scale_clear_marks (self->scale);
  for (int i = 0; i < 5; i++)
    gtk_scale_add_mark (self->scale, i - 2, GTK_POS_BOTTOM, cpu ? _(time_marks[i]) : speed_marks[i]);
}

/* The worker counts and pin modes of the sweep's runs. */
static void
sweep_axes (LsWhatifBar *self, GArray *workers, GPtrArray *pins)
{
  for (guint i = 0; i < self->basis->runs->len; i++)
    {
      const ls_whatif_run *r = g_ptr_array_index (self->basis->runs, i);
      gboolean seen = FALSE;
      for (guint j = 0; j < workers->len; j++)
        seen |= g_array_index (workers, guint, j) == r->workers;
      if (!seen)
        g_array_append_val (workers, r->workers);
      if (r->pin && !g_ptr_array_find_with_equal_func (pins, r->pin, g_str_equal, NULL))
        g_ptr_array_add (pins, r->pin);
    }
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? -1 : x > y;
}

/* Adds the predictions to chart (the sweep's utilization chart, freshly
 * read) and shows it on the view. */
static void
draw_predictions (LsWhatifBar *self, ls_chart *chart)
{
  double speed = ls_whatif_bar_get_speed (self);
  g_autofree char *text = value_text (self);
  gtk_label_set_text (self->value, text);
  gboolean cpu = without_gpu (self);
  self->n_predicted = 0;
  if (!self->view)
    {
      ls_chart_free (chart);
      return;
    }
  if (!self->basis || ls_chart_n_points (chart) == 0)
    {
      ls_chart_view_set_chart (self->view, chart);
      return;
    }

  g_autoptr (GArray) workers = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) pins = g_ptr_array_new ();
  sweep_axes (self, workers, pins);
  g_array_sort (workers, compare_guint);
  gboolean util = ls_chart_has_y2 (chart);
  for (guint p = 0; p < MAX (pins->len, 1u); p++)
    {
      const char *pin = pins->len ? g_ptr_array_index (pins, p) : NULL;
      g_autofree char *label_util = g_strdup_printf (_("predicted %s%s%s"), cpu ? _("share in the step") : _("GPU busy"),
                                                     pin ? ", pin " : "", pin ? pin : "");
      g_autofree char *label_tput = g_strdup_printf (_("predicted throughput%s%s"), pin ? ", pin " : "", pin ? pin : "");
      /* The colour of the pin mode's measured series (the chart's groups
       * come in the sweep's order, as the pins here). */
      ls_chart_series *su = util ? ls_chart_add_series (chart, label_util, LS_CHART_LINE, (int) p, LS_CHART_Y) : NULL;
      ls_chart_series *st = ls_chart_add_series (chart, label_tput, LS_CHART_LINE, (int) p,
                                                 util ? LS_CHART_Y2 : LS_CHART_Y);
      for (guint i = 0; i < workers->len; i++)
        {
          ls_whatif_change change;
          ls_whatif_prediction pred;
          ls_whatif_change_init (&change);
          change.workers = (int) g_array_index (workers, guint, i);
          change.pin = pin;
          change.gpu_speed = speed;
          ls_whatif_predict (self->basis, &change, &pred);
          if (su)
            ls_chart_series_add (su, change.workers, pred.gpu_util_exact);
          ls_chart_series_add (st, change.workers, pred.throughput_sps);
        }
      for (ls_chart_series *s = su; s; s = s == su ? st : NULL)
        {
          s->dash = LS_CHART_DASHED;
          s->markers = FALSE;
          self->n_predicted++;
        }
      if (!su)
        {
          st->dash = LS_CHART_DASHED;
          st->markers = FALSE;
          self->n_predicted++;
        }
    }
  if (chart->legend->len > 0)
    {
      g_autofree char *legend = cpu ? g_strdup_printf (_("model, a %s step on the CPU"), text)
                                    : g_strdup_printf (_("model, GPU %.2g×"), speed);
      ls_chart_add_legend (chart, legend, -1, LS_CHART_LINE, LS_CHART_DASHED, FALSE, FALSE);
    }
  ls_chart_view_set_chart (self->view, chart);
}

/* ------------------------------------------------------------ reading */

typedef struct {
  char *db;
  gint64 sweep_id;
  gboolean fit;            /* the model's basis too */
  ls_chart *chart;         /* out */
  ls_whatif_basis *basis;  /* out (fit) */
} reading;

static void
reading_free (gpointer data)
{
  reading *r = data;
  g_free (r->db);
  g_clear_pointer (&r->chart, ls_chart_free);
  g_clear_pointer (&r->basis, ls_whatif_basis_free);
  g_free (r);
}

static void
read_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  reading *r = data;
  GError *error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (r->db, &error);
  if (store && r->fit)
    {
      char ref[32];
      g_snprintf (ref, sizeof ref, "%" G_GINT64_FORMAT, r->sweep_id);
      g_autoptr (GArray) ids = ls_store_select_runs (store, NULL, ref, NULL);
      for (guint i = 0; ids && i < ids->len && !r->basis; i++)
        r->basis = ls_whatif_basis_load (store, g_array_index (ids, gint64, i), TRUE, NULL);
    }
  r->chart = store ? ls_chart_sweep (store, r->sweep_id, "utilization", &error) : NULL;
  if (!r->chart)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_read (GObject *source, GAsyncResult *result, gpointer data)
{
  LsWhatifBar *self = LS_WHATIF_BAR (source);
  reading *r = g_task_get_task_data (G_TASK (result));
  guint serial = GPOINTER_TO_UINT (data);
  g_autoptr (GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);
  self->reading--;
  if (serial != self->serial || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return; /* a later read replaces this one */
  if (r->fit)
    {
      self->fitting = FALSE;
      g_clear_pointer (&self->basis, ls_whatif_basis_free);
      self->basis = g_steal_pointer (&r->basis);
      gtk_widget_set_sensitive (GTK_WIDGET (self->scale), self->basis != NULL);
      set_mode (self);
      g_autofree char *note = !self->basis ? g_strdup (_("No finished run to fit the model to."))
                              : without_gpu (self)
                                  ? g_strdup_printf (_("Lines without markers: the model fitted to this sweep (build "
                                                       "time %s), for every worker count, with the training step on "
                                                       "the CPU taking the time chosen."), self->basis->source)
                                  : g_strdup_printf (_("Lines without markers in the utilization chart: the model "
                                                       "fitted to this sweep (build time %s), with the model step "
                                                       "× 1/speed."), self->basis->source);
      gtk_label_set_text (self->note, note);
    }
  if (ok)
    draw_predictions (self, g_steal_pointer (&r->chart));
}

/* Reads the chart (and, fit, the model's basis) in a thread, then draws. */
static void
read_and_draw (LsWhatifBar *self, gboolean fit)
{
  if (!self->db || self->sweep_id <= 0 || (self->fitting && !fit))
    return; /* nothing shown, or the sweep's own read draws when it comes */
  self->fitting |= fit;
  reading *r = g_new0 (reading, 1);
  r->db = g_strdup (self->db);
  r->sweep_id = self->sweep_id;
  r->fit = fit;
  g_autoptr (GTask) task = g_task_new (self, self->cancellable, on_read, GUINT_TO_POINTER (++self->serial));
  g_task_set_task_data (task, r, reading_free);
  self->reading++;
  g_task_run_in_thread (task, read_in_thread);
}

static gboolean
redraw_now (gpointer data)
{
  LsWhatifBar *self = data;
  self->redraw = 0;
  read_and_draw (self, FALSE);
  return G_SOURCE_REMOVE;
}

static void
on_value_changed (GtkRange *range, LsWhatifBar *self)
{
  g_autofree char *text = value_text (self);
  gtk_label_set_text (self->value, text);
  /* A dragged scale moves many times a second: draw once it rests. */
  g_clear_handle_id (&self->redraw, g_source_remove);
  self->redraw = g_timeout_add (120, redraw_now, self);
}

void
ls_whatif_bar_refresh (LsWhatifBar *self)
{
  g_clear_handle_id (&self->redraw, g_source_remove);
  read_and_draw (self, FALSE);
}

void
ls_whatif_bar_set_sweep (LsWhatifBar *self, const char *db, gint64 sweep_id, LsChartView *view)
{
  g_free (self->db);
  self->db = g_strdup (db);
  self->sweep_id = sweep_id;
  /* Weak: the view may go first (the Results page's template children are
   * disposed before the popover that holds this bar), with a read pending. */
  g_set_weak_pointer (&self->view, view);
  g_clear_pointer (&self->basis, ls_whatif_basis_free);
  gtk_widget_set_sensitive (GTK_WIDGET (self->scale), FALSE);
  gtk_label_set_text (self->note, _("Fitting the model to this sweep…"));
  read_and_draw (self, TRUE);
}

static void
ls_whatif_bar_dispose (GObject *object)
{
  LsWhatifBar *self = LS_WHATIF_BAR (object);
  g_clear_handle_id (&self->redraw, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->basis, ls_whatif_basis_free);
  g_clear_pointer (&self->db, g_free);
  g_clear_weak_pointer (&self->view);
  gtk_widget_dispose_template (GTK_WIDGET (object), LS_TYPE_WHATIF_BAR);
  G_OBJECT_CLASS (ls_whatif_bar_parent_class)->dispose (object);
}

static void
ls_whatif_bar_class_init (LsWhatifBarClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = ls_whatif_bar_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-whatif-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, LsWhatifBar, title);
  gtk_widget_class_bind_template_child (widget_class, LsWhatifBar, scale);
  gtk_widget_class_bind_template_child (widget_class, LsWhatifBar, value);
  gtk_widget_class_bind_template_child (widget_class, LsWhatifBar, note);
  gtk_widget_class_bind_template_callback (widget_class, on_value_changed);
}

static void
ls_whatif_bar_init (LsWhatifBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
}

LsWhatifBar *
ls_whatif_bar_new (void)
{
  return g_object_new (LS_TYPE_WHATIF_BAR, NULL);
}
