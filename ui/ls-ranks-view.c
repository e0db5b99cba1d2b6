/* A run's ranks on Results (ls-ranks-view.h). */
#include "ui/ls-ranks-view.h"

#include <math.h>

#include "app/core/i18n.h"
#include "app/core/ranks-table.h"

struct _LsRanksView {
  GtkBox parent_instance;
  GtkLabel *title;
  GtkLabel *said;     /* the slowest rank and the node, in a sentence */
  GtkGrid *grid;
  guint n_rows;
  int highlighted;    /* the rank shown as the slowest; -1: none */
  gboolean node_row;
};

G_DEFINE_FINAL_TYPE (LsRanksView, ls_ranks_view, GTK_TYPE_BOX)

enum { COL_RANK, COL_SPS, COL_WAIT, COL_STEP, COL_WORKERS, COL_THREADS, COL_CPU, COL_NOTE, N_COLS };

static GtkWidget *
cell (const char *text, gboolean numeric)
{
  GtkWidget *l = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (l), numeric ? 1 : 0);
  gtk_widget_add_css_class (l, "numeric");
  return l;
}

static char *
number (double v, int decimals)
{
  return isfinite (v) ? g_strdup_printf ("%.*f", decimals, v) : g_strdup ("–");
}

static char *
count (gint64 v)
{
  return v >= 0 ? g_strdup_printf ("%lld", (long long) v) : g_strdup ("–");
}

/* One row of the grid: a rank's, or the node's (rank -1). */
static void
add_row (LsRanksView *self, int y, const ls_rank_row *r, const char *stage)
{
  g_autofree char *name = r->rank >= 0 ? g_strdup_printf (_("Rank %d"), r->rank) : g_strdup (_("Node"));
  g_autofree char *sps = number (r->throughput_sps, 1), *wait = number (r->wait_ms_p50, 1);
  g_autofree char *step = number (r->step_ms_p50, 1), *workers = count (r->workers), *threads = count (r->threads);
  g_autofree char *cpu = number (r->cpu_ms / 1000.0, 1);
  g_autofree char *note = r->slowest ? g_strdup_printf (_("slowest: %s"), stage ? stage : "loader") : NULL;
  const char *texts[N_COLS] = { name, sps, wait, step, workers, threads, cpu, note ? note : "" };
  for (int x = 0; x < N_COLS; x++)
    {
      GtkWidget *l = cell (texts[x], x != COL_RANK && x != COL_NOTE);
      /* The rank the others wait for stands out; the node's totals are bold. */
      if (r->slowest)
        gtk_widget_add_css_class (l, "warning");
      if (r->slowest || r->rank < 0)
        gtk_widget_add_css_class (l, "heading");
      gtk_grid_attach (self->grid, l, x, y, 1, 1);
    }
}

static void
clear_grid (LsRanksView *self)
{
  GtkWidget *c;
  while ((c = gtk_widget_get_first_child (GTK_WIDGET (self->grid))))
    gtk_grid_remove (self->grid, c);
  self->n_rows = 0;
  self->highlighted = -1;
  self->node_row = FALSE;
}

static void
add_header (LsRanksView *self)
{
  const char *heads[N_COLS] = { _("Rank"), _("Samples/s"), _("Wait p50 (ms)"), _("Step p50 (ms)"), _("Workers"),
                                _("Threads"), _("CPU (s)"), "" };
  const char *tips[N_COLS] = {
    NULL,
    _("The rank's measured samples per second; the node's row: their sum"),
    _("Median time the rank's training loop waited in next() for a batch"),
    _("Median time between its next() calls: its step, including its wait for the other ranks in the gradient "
      "allreduce"),
    _("Its DataLoader's num_workers"),
    _("torch.get_num_threads() in the rank; the node's row: the ranks' threads plus one per worker"),
    _("CPU time of the rank's own process (not its workers')"),
    NULL,
  };
  for (int x = 0; x < N_COLS; x++)
    {
      GtkWidget *l = cell (heads[x], x != COL_RANK && x != COL_NOTE);
      gtk_widget_add_css_class (l, "dim-label");
      gtk_widget_add_css_class (l, "caption-heading");
      if (tips[x])
        gtk_widget_set_tooltip_text (l, tips[x]);
      gtk_grid_attach (self->grid, l, x, 0, 1, 1);
    }
}

/* "Rank 1 is the slowest (__getitem__): …; 4 processes on 2 cores." */
static char *
sentence (const ls_ranks_table *t)
{
  GString *s = g_string_new (NULL);
  if (t->slowest >= 0)
    g_string_append_printf (s,
                            _("Rank %d is the slowest (%s): its median batch wait %.1f ms against the others' "
                              "%.1f ms. DDP waits for it at every step."),
                            ls_ranks_table_row (t, (guint) t->slowest)->rank, _(t->slowest_stage), t->slowest_wait_ms,
                            t->others_wait_ms);
  else
    g_string_append (s, _("No rank's waits can be told apart."));
  if (t->processes > 0 && t->cores > 0)
    {
      g_autofree char *procs = g_strdup_printf (ngettext ("%lld process (ranks and workers)",
                                                          "%lld processes (ranks and workers)", t->processes),
                                                (long long) t->processes);
      g_autofree char *cores = g_strdup_printf (ngettext ("%lld core", "%lld cores", t->cores), (long long) t->cores);
      g_string_append_c (s, ' ');
      /* TRANSLATORS: "4 processes (ranks and workers) on 2 cores." */
      g_string_append_printf (s, _("%s on %s."), procs, cores);
    }
  return g_string_free (s, FALSE);
}

void
ls_ranks_view_set_summary (LsRanksView *self, JsonObject *summary)
{
  g_return_if_fail (LS_IS_RANKS_VIEW (self));
  clear_grid (self);
  g_autoptr (ls_ranks_table) t = summary ? ls_ranks_table_new (summary) : NULL;
  gtk_widget_set_visible (GTK_WIDGET (self), t != NULL);
  if (!t)
    return;
  g_autofree char *title = t->run_id > 0 ? g_strdup_printf (_("Ranks of run %lld"), (long long) t->run_id)
                                         : g_strdup (_("Ranks"));
  gtk_label_set_text (self->title, title);
  g_autofree char *said = sentence (t);
  gtk_label_set_text (self->said, said);
  add_header (self);
  guint n = ls_ranks_table_n_rows (t);
  for (guint i = 0; i < n; i++)
    {
      const ls_rank_row *r = ls_ranks_table_row (t, i);
      add_row (self, (int) i + 1, r, t->slowest_stage ? _(t->slowest_stage) : NULL);
      if (r->slowest)
        self->highlighted = r->rank;
    }
  self->n_rows = n;
  gtk_grid_attach (self->grid, gtk_separator_new (GTK_ORIENTATION_HORIZONTAL), 0, (int) n + 1, N_COLS, 1);
  add_row (self, (int) n + 2, &t->node, NULL);
  self->node_row = TRUE;
}

guint
ls_ranks_view_n_rows (LsRanksView *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self)) ? self->n_rows : 0;
}

int
ls_ranks_view_highlighted (LsRanksView *self)
{
  return self->highlighted;
}

gboolean
ls_ranks_view_has_node_row (LsRanksView *self)
{
  return self->node_row;
}

static void
ls_ranks_view_class_init (LsRanksViewClass *klass)
{
  gtk_widget_class_set_accessible_role (GTK_WIDGET_CLASS (klass), GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
ls_ranks_view_init (LsRanksView *self)
{
  GtkBox *box = GTK_BOX (self);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (box, 6);
  gtk_widget_add_css_class (GTK_WIDGET (self), "card");
  self->title = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->title, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->title), "heading");
  self->said = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->said, 0);
  gtk_label_set_wrap (self->said, TRUE);
  gtk_label_set_selectable (self->said, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->said), "dim-label");
  self->grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->grid, 18);
  gtk_grid_set_row_spacing (self->grid, 4);
  GtkWidget *parts[] = { GTK_WIDGET (self->title), GTK_WIDGET (self->said), GTK_WIDGET (self->grid) };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      gtk_widget_set_margin_start (parts[i], 12);
      gtk_widget_set_margin_end (parts[i], 12);
      gtk_box_append (box, parts[i]);
    }
  gtk_widget_set_margin_top (GTK_WIDGET (self->title), 8);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->grid), 10);
  self->highlighted = -1;
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

LsRanksView *
ls_ranks_view_new (void)
{
  return g_object_new (LS_TYPE_RANKS_VIEW, NULL);
}
