#include "app/report/report-data.h"

#include <math.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/summary-keys.h"
#include "app/store/store-query.h"

static void
machine_free (gpointer data)
{
  ls_report_machine *m = data;
  g_free (m->fingerprint);
  g_free (m->hostname);
  g_free (m->os);
  g_free (m->kernel);
  g_free (m->arch);
  g_free (m->cpu_model);
  g_free (m->gpu);
  g_free (m->driver);
  g_free (m->cuda);
  g_free (m->container);
  g_free (m->platform);
  g_free (m);
}

static void
verdict_free (gpointer data)
{
  ls_report_verdict *v = data;
  json_array_unref (v->summaries);
  g_array_unref (v->run_index);
  ls_verdict_clear (&v->verdict);
  g_free (v);
}

static void
script_free (gpointer data)
{
  ls_report_script *s = data;
  g_free (s->name);
  g_free (s->sha256);
  g_free (s->python);
  g_free (s->torch);
  g_free (s);
}

void
ls_report_free (ls_report *report)
{
  if (!report)
    return;
  g_free (report->title);
  g_free (report->store_path);
  g_free (report->generated_at);
  g_clear_pointer (&report->table, ls_compare_table_free);
  g_ptr_array_unref (report->verdicts); /* before the machines they point to */
  g_ptr_array_unref (report->runs);
  g_ptr_array_unref (report->datasets);
  g_ptr_array_unref (report->scripts);
  g_ptr_array_unref (report->start_groups);
  g_ptr_array_unref (report->same_knobs);
  g_ptr_array_unref (report->differences);
  g_ptr_array_unref (report->charts);
  g_ptr_array_unref (report->chart_names);
  g_ptr_array_unref (report->notes);
  g_ptr_array_unref (report->ranks);
  g_ptr_array_unref (report->machines);
  g_free (report);
}

static char *
dup_member (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
             ? g_strdup (json_node_get_string (n))
             : NULL;
}

double
ls_report_run_memory (JsonObject *run)
{
  double v;
  if (ls_json_number (run, LS_KEY_PSS_PEAK, &v) || ls_json_number (run, "private_peak_bytes", &v))
    return v;
  return NAN;
}

static const char *const figure_columns[] = { LS_KEY_THROUGHPUT, "wait_p50_ms", "wait_p95_ms", LS_KEY_GPU_UTIL_EXACT,
                                              "cpu_percent", LS_KEY_FIRST_BATCH_MS };
const guint ls_report_n_figures = G_N_ELEMENTS (figure_columns);

const ls_run_figure *
ls_report_figure (guint i)
{
  g_return_val_if_fail (i < ls_report_n_figures, NULL);
  for (guint k = 0; k < ls_n_run_figures; k++)
    if (strcmp (ls_run_figures[k].column, figure_columns[i]) == 0)
      return &ls_run_figures[k];
  g_return_val_if_reached (NULL);
}

gboolean
ls_report_run_is_recommended (const ls_report *report, guint run)
{
  for (guint i = 0; i < report->verdicts->len; i++)
    {
      const ls_report_verdict *v = report->verdicts->pdata[i];
      if (v->sweep && v->verdict.index >= 0 && g_array_index (v->run_index, guint, (guint) v->verdict.index) == run)
        return TRUE;
    }
  return FALSE;
}

gboolean
ls_report_all_simulated (const ls_report *report)
{
  for (guint r = 0; r < report->runs->len; r++)
    if (!json_object_get_int_member_with_default (report->runs->pdata[r], "simulated", 0))
      return FALSE;
  return report->runs->len > 0;
}

const ls_report_machine *
ls_report_machine_of (const ls_report *report, JsonObject *run)
{
  gint64 id = json_object_get_int_member_with_default (run, "machine_id", -1);
  for (guint i = 0; i < report->machines->len; i++)
    {
      const ls_report_machine *m = report->machines->pdata[i];
      if (m->id == id)
        return m;
    }
  return NULL;
}

static ls_report_machine *
machine_from_run (JsonObject *run)
{
  ls_report_machine *m = g_new0 (ls_report_machine, 1);
  m->id = json_object_get_int_member_with_default (run, "machine_id", -1);
  m->fingerprint = dup_member (run, "machine_fingerprint");
  m->hostname = dup_member (run, "machine_hostname");
  m->os = dup_member (run, "machine_os");
  m->kernel = dup_member (run, "machine_kernel");
  m->arch = dup_member (run, "machine_arch");
  m->cpu_model = dup_member (run, "machine_cpu_model");
  m->gpu = dup_member (run, "machine_gpu");
  m->driver = dup_member (run, "machine_driver");
  m->cuda = dup_member (run, "machine_cuda");
  m->container = dup_member (run, "machine_container");
  if (m->container && strcmp (m->container, "none") == 0)
    g_clear_pointer (&m->container, g_free);
  m->cores = json_object_get_int_member_with_default (run, "machine_logical_cores", 0);
  m->ram_bytes = json_object_get_int_member_with_default (run, "machine_ram_bytes", 0);
  const char *os = m->os ? m->os : "";
  /* Runs under Wine are recorded as "Windows (Wine 8.0)": Wine's timings are not Windows'. */
  m->wine = g_str_has_prefix (os, "Windows (Wine ");
  m->platform = m->wine ? g_strdup (os) : g_strdup (g_str_has_prefix (os, "Windows") ? "Windows" : "Linux");
  return m;
}

static int
compare_ids (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* The runs' ids from the selection, oldest first. */
static GArray *
select_ids (ls_store *store, const ls_report_selection *sel, gint64 *sweep_id, gint64 *run_id, GError **error)
{
  if (sel->sweep)
    {
      if ((*sweep_id = ls_store_find_sweep (store, sel->sweep, error)) < 0)
        return NULL;
      g_autoptr (GArray) ids = ls_store_select_runs (store, NULL, sel->sweep, error);
      if (ids && ids->len == 0)
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND, _("sweep %s in %s has no runs"), sel->sweep,
                       ls_store_path (store));
          return NULL;
        }
      return g_steal_pointer (&ids);
    }
  if (sel->run)
    {
      if ((*run_id = ls_store_find_run (store, sel->run, error)) < 0)
        return NULL;
      GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_array_append_val (ids, *run_id);
      return ids;
    }
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (sel->runs)
    {
      g_auto (GStrv) refs = g_strsplit (sel->runs, ",", -1);
      for (guint i = 0; refs[i]; i++)
        {
          g_strstrip (refs[i]);
          if (!refs[i][0])
            continue;
          gint64 id = ls_store_find_run (store, refs[i], error);
          if (id < 0)
            return NULL;
          gboolean seen = FALSE;
          for (guint k = 0; k < ids->len && !seen; k++)
            seen = g_array_index (ids, gint64, k) == id;
          if (!seen)
            g_array_append_val (ids, id);
        }
      if (ids->len == 0)
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND, _("--runs '%s': name at least one run"),
                       sel->runs);
          return NULL;
        }
      return g_steal_pointer (&ids);
    }
  if (sel->ids)
    {
      /* The window lists newest first; a report reads oldest first. */
      g_array_append_vals (ids, sel->ids, sel->n_ids);
      g_array_sort (ids, compare_ids);
      return g_steal_pointer (&ids);
    }
  g_array_unref (g_steal_pointer (&ids));
  ids = ls_store_select_runs (store, NULL, NULL, error);
  if (ids && ids->len == 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND, _("%s: no runs recorded yet: nothing to report"),
                   ls_store_path (store));
      return NULL;
    }
  return g_steal_pointer (&ids);
}

static char *
title_for (const ls_report_selection *sel, gint64 sweep_id, gint64 run_id, GArray *ids)
{
  if (sweep_id > 0)
    return g_strdup_printf (_("sweep %lld"), (long long) sweep_id);
  if (run_id > 0)
    return g_strdup_printf (_("run %lld"), (long long) run_id);
  if (sel->all)
    return g_strdup (_("all runs"));
  if (ids->len == 1)
    return g_strdup_printf (_("run %lld"), (long long) g_array_index (ids, gint64, 0));
  GString *s = g_string_new (_("runs "));
  guint shown = MIN (ids->len, 8);
  for (guint i = 0; i < shown; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i == 0 ? "" : i + 1 == ids->len ? _(" and ") : _(", "),
                            g_array_index (ids, gint64, i));
  if (shown < ids->len)
    g_string_append_printf (s, _(" and %u more"), ids->len - shown);
  return g_string_free (s, FALSE);
}

/* The run's stored summary (its JSON), or NULL: a run still running when
 * exported, or recorded without one. */
static JsonObject *
run_summary (JsonObject *run)
{
  const char *text = json_object_get_string_member_with_default (run, "summary", NULL);
  g_autoptr (JsonNode) node = text ? json_from_string (text, NULL) : NULL;
  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_object_ref (json_node_get_object (node)) : NULL;
}

static void
add_verdicts (ls_report *report)
{
  for (guint m = 0; m < report->machines->len; m++)
    {
      const ls_report_machine *machine = report->machines->pdata[m];
      ls_report_verdict *v = g_new0 (ls_report_verdict, 1);
      v->machine = machine;
      v->summaries = json_array_new ();
      v->run_index = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint r = 0; r < report->runs->len; r++)
        {
          JsonObject *run = report->runs->pdata[r];
          if (ls_report_machine_of (report, run) != machine)
            continue;
          JsonObject *summary = run_summary (run);
          if (!summary)
            continue;
          json_array_add_object_element (v->summaries, summary);
          g_array_append_val (v->run_index, r);
        }
      guint n = json_array_get_length (v->summaries);
      if (n == 0)
        {
          verdict_free (v);
          continue;
        }
      /* The machine's cores, not this one's: the runs may come from elsewhere. */
      v->sweep = n > 1;
      if (v->sweep)
        ls_verdict_for_sweep (v->summaries, (int) machine->cores, &v->verdict);
      else
        ls_verdict_for_run (json_array_get_object_element (v->summaries, 0), (int) machine->cores, &v->verdict);
      g_ptr_array_add (report->verdicts, v);
    }
}

/* Each run's ranks, from its stored summary. */
static void
add_ranks (ls_report *report)
{
  for (guint r = 0; r < report->runs->len; r++)
    {
      JsonObject *run = report->runs->pdata[r];
      g_autoptr (JsonObject) summary = run_summary (run);
      ls_ranks_table *t = summary ? ls_ranks_table_new (summary) : NULL;
      if (!t)
        continue;
      t->run_id = json_object_get_int_member_with_default (run, "id", t->run_id);
      g_ptr_array_add (report->ranks, t);
    }
}

static void
add_data_sources (ls_report *report)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint r = 0; r < report->runs->len; r++)
    {
      JsonObject *run = report->runs->pdata[r];
      g_autoptr (JsonObject) summary = run_summary (run);
      JsonNode *tn = summary ? json_object_get_member (summary, "target") : NULL;
      JsonObject *target = tn && JSON_NODE_HOLDS_OBJECT (tn) ? json_node_get_object (tn) : NULL;
      if (target && g_strcmp0 (json_object_get_string_member_with_default (target, "kind", ""), "pytorch") == 0)
        {
          ls_report_script *s = g_new0 (ls_report_script, 1);
          s->name = dup_member (target, "name");
          s->sha256 = dup_member (target, "script_sha256");
          s->python = dup_member (target, "python");
          s->torch = dup_member (target, "torch");
          g_autofree char *key = g_strdup_printf ("script:%s:%s", s->name ? s->name : "",
                                                  s->sha256 ? s->sha256 : "");
          if (g_hash_table_contains (seen, key))
            script_free (s);
          else
            {
              g_hash_table_add (seen, g_steal_pointer (&key));
              g_ptr_array_add (report->scripts, s);
            }
          continue;
        }
      const char *dataset = json_object_get_string_member_with_default (run, "dataset", "?");
      const char *format = json_object_get_string_member_with_default (run, "format", "?");
      gint64 samples = json_object_get_int_member_with_default (run, "dataset_samples", 0);
      g_autofree char *text = samples > 0 ? g_strdup_printf ("%s (%s, %" G_GINT64_FORMAT " samples)", dataset,
                                                             format, samples)
                                          : g_strdup_printf ("%s (%s)", dataset, format);
      if (!g_hash_table_contains (seen, text))
        {
          g_hash_table_add (seen, g_strdup (text));
          g_ptr_array_add (report->datasets, g_steal_pointer (&text));
        }
    }
}

ls_report *
ls_report_load (ls_store *store, const ls_report_selection *selection, GError **error)
{
  g_return_val_if_fail (store != NULL && selection != NULL, NULL);
  gint64 sweep_id = 0, run_id = 0;
  g_autoptr (GArray) ids = select_ids (store, selection, &sweep_id, &run_id, error);
  if (!ids)
    return NULL;

  g_autoptr (ls_report) report = g_new0 (ls_report, 1);
  report->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  report->machines = g_ptr_array_new_with_free_func (machine_free);
  report->verdicts = g_ptr_array_new_with_free_func (verdict_free);
  report->datasets = g_ptr_array_new_with_free_func (g_free);
  report->scripts = g_ptr_array_new_with_free_func (script_free);
  report->start_groups = g_ptr_array_new_with_free_func (ls_report_start_group_free);
  report->same_knobs = g_ptr_array_new_with_free_func (ls_report_same_knobs_free);
  report->differences = g_ptr_array_new_with_free_func (g_free);
  report->charts = g_ptr_array_new_with_free_func ((GDestroyNotify) ls_chart_free);
  report->chart_names = g_ptr_array_new_with_free_func (g_free);
  report->notes = g_ptr_array_new_with_free_func (g_free);
  report->ranks = g_ptr_array_new_with_free_func ((GDestroyNotify) ls_ranks_table_free);
  report->sweep_id = sweep_id;
  report->run_id = run_id;
  report->title = title_for (selection, sweep_id, run_id, ids);
  report->store_path = g_strdup (ls_store_path (store));
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  report->generated_at = g_date_time_format (now, "%Y-%m-%d %H:%M UTC");

  for (guint i = 0; i < ids->len; i++)
    {
      JsonObject *run = ls_store_run_object (store, g_array_index (ids, gint64, i), error);
      if (!run)
        return NULL;
      g_ptr_array_add (report->runs, run);
      report->simulated |= json_object_get_int_member_with_default (run, "simulated", 0) != 0;
      if (!ls_report_machine_of (report, run))
        g_ptr_array_add (report->machines, machine_from_run (run));
    }
  for (guint m = 0; m < report->machines->len; m++)
    {
      ls_report_machine *machine = report->machines->pdata[m];
      for (guint r = 0; r < report->runs->len; r++)
        machine->n_runs += ls_report_machine_of (report, report->runs->pdata[r]) == machine;
    }
  report->table = ls_compare_table_new (report->runs);
  add_verdicts (report);
  add_data_sources (report);
  add_ranks (report);
  if (report->machines->len > 1 && !ls_report_compare_platforms (report, store, error))
    return NULL;
  ls_report_add_charts (report, store);
  return g_steal_pointer (&report);
}
