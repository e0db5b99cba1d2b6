/* Runs from several machines or systems side by side: worker start-up by
 * platform and start method, throughput and memory where two machines ran
 * the same knobs, and what differs, said in words with the figures. */
#include "app/core/i18n.h"
#include "app/report/report-data.h"

#include <math.h>
#include <string.h>

#include "app/core/summary-keys.h"
#include "app/store/store-query.h"
#include "loader/stats.h"

/* A start ratio below this is not worth a sentence: start-up jitters. */
#define NOTABLE_RATIO 1.5
/* Throughputs closer than this (per cent) are the same for a sentence. */
#define SAME_PERCENT 5
/* Sentences on the knobs two machines share: the first few say enough. */
#define MAX_SAME_SENTENCES 3

void
ls_report_start_group_free (gpointer data)
{
  ls_report_start_group *g = data;
  g_free (g->label);
  g_free (g->platform);
  g_free (g->start);
  g_free (g);
}

static void
cell_free (gpointer data)
{
  ls_report_cell *c = data;
  g_free (c->start);
  g_free (c);
}

void
ls_report_same_knobs_free (gpointer data)
{
  ls_report_same_knobs *s = data;
  g_free (s->knobs);
  g_ptr_array_unref (s->cells);
  g_free (s);
}

static double
median_of (GArray *values)
{
  return ls_median ((double *) (void *) values->data, values->len);
}

typedef struct {
  ls_report_start_group *group;
  GArray *startup; /* double, ms */
  GArray *first;   /* double, ms */
} start_acc;

static void
start_acc_free (gpointer data)
{
  start_acc *a = data;
  if (a->group)
    ls_report_start_group_free (a->group);
  g_array_unref (a->startup);
  g_array_unref (a->first);
  g_free (a);
}

static gboolean
add_start_groups (ls_report *report, ls_store *store, GError **error)
{
  g_autoptr (GPtrArray) accs = g_ptr_array_new_with_free_func (start_acc_free);
  for (guint r = 0; r < report->runs->len; r++)
    {
      JsonObject *run = report->runs->pdata[r];
      const ls_report_machine *m = ls_report_machine_of (report, run);
      const char *start = json_object_get_string_member_with_default (run, "start_method", "fork");
      gint64 workers = json_object_get_int_member_with_default (run, "workers", 0);
      if (workers <= 0)
        continue; /* no worker was started */
      g_autofree char *label = g_strdup_printf ("%s %s", m->platform, start);
      start_acc *acc = NULL;
      for (guint i = 0; i < accs->len && !acc; i++)
        if (strcmp (((start_acc *) accs->pdata[i])->group->label, label) == 0)
          acc = accs->pdata[i];
      if (!acc)
        {
          acc = g_new0 (start_acc, 1);
          acc->group = g_new0 (ls_report_start_group, 1);
          acc->group->label = g_steal_pointer (&label);
          acc->group->platform = g_strdup (m->platform);
          acc->group->start = g_strdup (start);
          acc->startup = g_array_new (FALSE, FALSE, sizeof (double));
          acc->first = g_array_new (FALSE, FALSE, sizeof (double));
          g_ptr_array_add (accs, acc);
        }
      g_autoptr (JsonArray) starts
          = ls_store_run_workers (store, json_object_get_int_member_with_default (run, "id", 0), error);
      if (!starts)
        return FALSE;
      for (guint w = 0; w < json_array_get_length (starts); w++)
        {
          double ms;
          if (ls_json_number (json_array_get_object_element (starts, w), "startup_ms", &ms) && isfinite (ms))
            {
              g_array_append_val (acc->startup, ms);
              acc->group->n_workers++;
              acc->group->startup_max_ms = MAX (acc->group->startup_max_ms, ms);
            }
        }
      double first;
      if (ls_json_number (run, LS_KEY_FIRST_BATCH_MS, &first) && isfinite (first))
        g_array_append_val (acc->first, first);
      if (!json_object_get_int_member_with_default (run, "persistent", 1))
        acc->group->max_workers_non_persistent = MAX (acc->group->max_workers_non_persistent, workers);
      acc->group->n_runs++;
    }
  for (guint i = 0; i < accs->len; i++)
    {
      start_acc *acc = accs->pdata[i];
      if (acc->group->n_workers == 0)
        continue;
      acc->group->startup_p50_ms = median_of (acc->startup);
      acc->group->first_batch_p50_ms = median_of (acc->first);
      g_ptr_array_add (report->start_groups, g_steal_pointer (&acc->group));
    }
  return TRUE;
}

/* The knobs a machine's figures are compared at: the loader's, not the
 * start method (Windows only spawns) nor the dataset's path (each machine
 * has its own copy). */
static char *
knobs_key (JsonObject *run)
{
  gint64 workers = json_object_get_int_member_with_default (run, "workers", 0);
  const char *pin = json_object_get_string_member_with_default (run, "pin", NULL);
  double model = NAN;
  ls_json_number (run, "model_ms", &model);
  GString *s = g_string_new (NULL);
  /* untranslated: the knobs as typed, also the key the machines are grouped by */
  g_string_append_printf (s, "%" G_GINT64_FORMAT " worker%s, batch %" G_GINT64_FORMAT, workers,
                          workers == 1 ? "" : "s", json_object_get_int_member_with_default (run, "batch_size", 0));
  if (workers > 0)
    g_string_append_printf (s, ", prefetch %" G_GINT64_FORMAT ", persistent %s",
                            json_object_get_int_member_with_default (run, "prefetch", 0),
                            json_object_get_int_member_with_default (run, "persistent", 0) ? "on" : "off");
  g_string_append_printf (s, ", pin %s", pin ? pin : "n/a");
  if (isfinite (model))
    /* untranslated: the knobs as typed */
    g_string_append_printf (s, ", model step %g ms", model);
  return g_string_free (s, FALSE);
}

typedef struct {
  char *knobs;
  GPtrArray *cells;   /* ls_report_cell */
  GArray *tp_n, *mem_n; /* guint per cell: how many figures the means are of */
} knob_acc;

static void
knob_acc_free (gpointer data)
{
  knob_acc *a = data;
  g_free (a->knobs);
  if (a->cells)
    g_ptr_array_unref (a->cells);
  g_array_unref (a->tp_n);
  g_array_unref (a->mem_n);
  g_free (a);
}

static void
add_same_knobs (ls_report *report)
{
  g_autoptr (GPtrArray) accs = g_ptr_array_new_with_free_func (knob_acc_free);
  for (guint r = 0; r < report->runs->len; r++)
    {
      JsonObject *run = report->runs->pdata[r];
      if (g_strcmp0 (json_object_get_string_member_with_default (run, "status", ""), "done") != 0)
        continue;
      const ls_report_machine *m = ls_report_machine_of (report, run);
      g_autofree char *key = knobs_key (run);
      knob_acc *acc = NULL;
      for (guint i = 0; i < accs->len && !acc; i++)
        if (strcmp (((knob_acc *) accs->pdata[i])->knobs, key) == 0)
          acc = accs->pdata[i];
      if (!acc)
        {
          acc = g_new0 (knob_acc, 1);
          acc->knobs = g_steal_pointer (&key);
          acc->cells = g_ptr_array_new_with_free_func (cell_free);
          acc->tp_n = g_array_new (FALSE, TRUE, sizeof (guint));
          acc->mem_n = g_array_new (FALSE, TRUE, sizeof (guint));
          g_ptr_array_add (accs, acc);
        }
      guint c = 0;
      while (c < acc->cells->len && ((ls_report_cell *) acc->cells->pdata[c])->machine != m)
        c++;
      if (c == acc->cells->len)
        {
          ls_report_cell *cell = g_new0 (ls_report_cell, 1);
          cell->machine = m;
          cell->start = g_strdup (json_object_get_string_member_with_default (run, "start_method", "?"));
          g_ptr_array_add (acc->cells, cell);
          g_array_set_size (acc->tp_n, c + 1);
          g_array_set_size (acc->mem_n, c + 1);
        }
      ls_report_cell *cell = acc->cells->pdata[c];
      cell->n_runs++;
      if (!strstr (cell->start, json_object_get_string_member_with_default (run, "start_method", "?")))
        {
          char *both = g_strdup_printf ("%s, %s", cell->start,
                                        json_object_get_string_member_with_default (run, "start_method", "?"));
          g_free (cell->start);
          cell->start = both;
        }
      double tp, mem = ls_report_run_memory (run);
      if (ls_json_number (run, LS_KEY_THROUGHPUT, &tp) && isfinite (tp))
        {
          /* Running means, kept in the cell. */
          guint *n = &g_array_index (acc->tp_n, guint, c);
          cell->throughput_sps = *n == 0 ? tp : cell->throughput_sps + (tp - cell->throughput_sps) / (*n + 1);
          (*n)++;
        }
      if (isfinite (mem))
        {
          guint *n = &g_array_index (acc->mem_n, guint, c);
          cell->memory_bytes = *n == 0 ? mem : cell->memory_bytes + (mem - cell->memory_bytes) / (*n + 1);
          (*n)++;
        }
    }
  for (guint i = 0; i < accs->len; i++)
    {
      knob_acc *acc = accs->pdata[i];
      if (acc->cells->len < 2)
        continue;
      for (guint c = 0; c < acc->cells->len; c++)
        {
          ls_report_cell *cell = acc->cells->pdata[c];
          if (g_array_index (acc->tp_n, guint, c) == 0)
            cell->throughput_sps = NAN;
          if (g_array_index (acc->mem_n, guint, c) == 0)
            cell->memory_bytes = NAN;
        }
      ls_report_same_knobs *same = g_new0 (ls_report_same_knobs, 1);
      same->knobs = g_steal_pointer (&acc->knobs);
      same->cells = g_steal_pointer (&acc->cells);
      g_ptr_array_add (report->same_knobs, same);
    }
}

static char *
machine_name (const ls_report_machine *m)
{
  return g_strdup_printf ("%s (%s)", m->hostname ? m->hostname : "?", m->platform);
}

static void
say_start_costs (ls_report *report)
{
  const ls_report_start_group *base = NULL;
  for (guint i = 0; i < report->start_groups->len; i++)
    {
      const ls_report_start_group *g = report->start_groups->pdata[i];
      if (!base || g->startup_p50_ms < base->startup_p50_ms)
        base = g;
    }
  if (!base || report->start_groups->len < 2)
    return;
  for (guint i = 0; i < report->start_groups->len; i++)
    {
      const ls_report_start_group *g = report->start_groups->pdata[i];
      if (g == base)
        continue;
      double ratio = base->startup_p50_ms > 0 ? g->startup_p50_ms / base->startup_p50_ms : INFINITY;
      GString *s = g_string_new (NULL);
      if (ratio < NOTABLE_RATIO)
        g_string_append_printf (s, _("worker start-up by %s on %s (%.1f ms) is within %.1f× of %s (%.1f ms)"), g->start,
                                g->platform, g->startup_p50_ms, NOTABLE_RATIO, base->label, base->startup_p50_ms);
      else
        {
          g_string_append_printf (s,
                                  ngettext ("%s on %s costs %.1f ms per worker (median of %u start), ",
                                            "%s on %s costs %.1f ms per worker (median of %u starts), ", g->n_workers),
                                  g->start, g->platform, g->startup_p50_ms, g->n_workers);
          if (isfinite (ratio))
            g_string_append_printf (s, _("%.1f× %s (%.1f ms)"), ratio, base->label, base->startup_p50_ms);
          else
            g_string_append_printf (s, _("against %.1f ms for %s"), base->startup_p50_ms, base->label);
          if (g->max_workers_non_persistent > 0)
            g_string_append_printf (s,
                                    _("; at %1$lld workers with persistent_workers off that is %2$.0f ms "
                                      "of worker start-up every epoch (%1$lld × %3$.1f ms), paid once "
                                      "with persistent_workers=True"),
                                    (long long) g->max_workers_non_persistent,
                                    (double) g->max_workers_non_persistent * g->startup_p50_ms, g->startup_p50_ms);
        }
      if (isfinite (g->first_batch_p50_ms) && isfinite (base->first_batch_p50_ms))
        g_string_append_printf (s, _("; first batch after %.0f ms against %.0f ms"), g->first_batch_p50_ms,
                                base->first_batch_p50_ms);
      g_ptr_array_add (report->differences, g_string_free (s, FALSE));
    }
}

static void
say_same_knobs (ls_report *report)
{
  for (guint i = 0; i < report->same_knobs->len && i < MAX_SAME_SENTENCES; i++)
    {
      const ls_report_same_knobs *same = report->same_knobs->pdata[i];
      const ls_report_cell *best = NULL;
      for (guint c = 0; c < same->cells->len; c++)
        {
          const ls_report_cell *cell = same->cells->pdata[c];
          if (isfinite (cell->throughput_sps) && (!best || cell->throughput_sps > best->throughput_sps))
            best = cell;
        }
      if (!best)
        continue;
      GString *s = g_string_new (NULL);
      g_autofree char *best_name = machine_name (best->machine);
      g_string_append_printf (s, "at %s: %s %.0f samples/s (%s)", same->knobs, best_name, best->throughput_sps,
                              best->start);
      for (guint c = 0; c < same->cells->len; c++)
        {
          const ls_report_cell *cell = same->cells->pdata[c];
          if (cell == best || !isfinite (cell->throughput_sps))
            continue;
          g_autofree char *name = machine_name (cell->machine);
          double less = (1 - cell->throughput_sps / best->throughput_sps) * 100;
          if (less < SAME_PERCENT)
            g_string_append_printf (s, ", %s %.0f samples/s (%s, within %d %%)", name, cell->throughput_sps,
                                    cell->start, SAME_PERCENT);
          else
            g_string_append_printf (s, ", %s %.0f samples/s (%s, %.0f %% less)", name, cell->throughput_sps,
                                    cell->start, less);
        }
      g_ptr_array_add (report->differences, g_string_free (s, FALSE));
    }
}

gboolean
ls_report_compare_platforms (ls_report *report, ls_store *store, GError **error)
{
  if (!add_start_groups (report, store, error))
    return FALSE;
  add_same_knobs (report);
  say_start_costs (report);
  say_same_knobs (report);
  if (report->same_knobs->len == 0)
    g_ptr_array_add (report->differences,
                     g_strdup (_("no two machines ran the same knobs: their throughput and memory are not compared")));
  return TRUE;
}
