/* The ranks of a script's run (target-ranks.h). */
#include "app/target/target-ranks.h"
#include "app/core/i18n.h"

#include <math.h>
#include <string.h>

#include "app/core/json-util.h"
#include "app/core/verdict-ranks.h"
#include "platform/sysinfo.h"

void
ls_target_ranks_config (JsonBuilder *b, int ranks, int threads, unsigned warmup)
{
  if (ranks > 0)
    {
      json_builder_set_member_name (b, "ranks");
      json_builder_add_int_value (b, ranks);
    }
  if (threads > 0)
    {
      json_builder_set_member_name (b, "threads");
      json_builder_add_int_value (b, threads);
    }
  json_builder_set_member_name (b, "warmup");
  json_builder_add_int_value (b, warmup);
}

void
ls_target_ranks_launcher (JsonBuilder *b, const char *launcher)
{
  if (!launcher || strcmp (launcher, "probe") == 0)
    return;
  json_builder_set_member_name (b, "launcher");
  json_builder_add_string_value (b, launcher);
}

void
ls_target_ranks_describe (JsonObject *target, int ranks, int threads)
{
  if (ranks > 0)
    json_object_set_int_member (target, "ranks_started", ranks);
  if (threads > 0)
    json_object_set_int_member (target, "threads", threads);
}

void
ls_target_ranks_take (JsonObject *target, JsonObject *event)
{
  json_object_set_member (target, "ranks", json_node_copy (json_object_get_member (event, "ranks")));
  json_object_set_int_member (target, "world_size", json_object_get_int_member (event, "world_size"));
  if (json_object_has_member (event, "master_port") && !json_object_get_null_member (event, "master_port"))
    json_object_set_int_member (target, "master_port", json_object_get_int_member (event, "master_port"));
}

static JsonArray *
ranks_of (JsonObject *target)
{
  JsonNode *n = target ? json_object_get_member (target, "ranks") : NULL;
  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static JsonObject *
rank_at (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);
  return JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

void
ls_target_ranks_node (JsonObject *target, ls_run_result *result)
{
  JsonArray *a = ranks_of (target);
  if (!a)
    return;
  guint n = json_array_get_length (a);
  JsonObject *node = json_object_new ();
  double sum = 0, cpu = 0, workers_cpu = 0;
  gboolean all = TRUE;
  gint64 processes = 0, threads = 0, workers = 0;
  for (guint i = 0; i < n; i++)
    {
      JsonObject *r = rank_at (a, i);
      double t = r ? ls_json_number_or (r, "throughput_sps", -1) : -1;
      all &= t >= 0;
      sum += t > 0 ? t : 0;
      cpu += r ? fmax (ls_json_number_or (r, "cpu_ms", 0), 0) : 0;
      /* Its workers' CPU per batch over its batches: their start is left out. */
      double wcpu = r ? ls_json_number_or (r, "worker_cpu_ms", NAN) * ls_json_number_or (r, "batches", NAN) : NAN;
      workers_cpu += isfinite (wcpu) && wcpu > 0 ? wcpu : 0;
      gint64 w = r ? (gint64) ls_json_number_or (r, "num_workers", 0) : 0;
      workers += w;
      processes += 1 + w;
      /* Each rank's intra-op threads; PyTorch gives each worker one. */
      threads += (r ? (gint64) ls_json_number_or (r, "threads", 1) : 1) + w;
    }
  json_object_set_int_member (node, "ranks", n);
  if (all)
    json_object_set_double_member (node, "throughput_sps", sum);
  else
    json_object_set_null_member (node, "throughput_sps");
  json_object_set_int_member (node, "workers", workers);
  json_object_set_int_member (node, "processes", processes);
  json_object_set_int_member (node, "threads", threads);
  json_object_set_double_member (node, "ranks_cpu_ms", cpu);
  json_object_set_double_member (node, "workers_cpu_ms", workers_cpu);
  ls_sysinfo si = { 0 };
  ls_error err = { 0 };
  int cores = ls_sysinfo_read (&si, &err) == LS_OK ? si.logical_cores : 0;
  if (cores > 0)
    {
      json_object_set_int_member (node, "cores", cores);
      json_object_set_boolean_member (node, "processes_over_cores", processes > cores);
      json_object_set_boolean_member (node, "threads_over_cores", threads > cores);
    }
  double its = 0, others = 0;
  int worst = ls_verdict_ranks_slowest (a, &its, &others);
  if (worst >= 0)
    {
      json_object_set_int_member (node, "slowest_rank", worst);
      json_object_set_double_member (node, "slowest_wait_ms", its);
      json_object_set_double_member (node, "others_wait_ms", others);
      json_object_set_double_member (node, "slower_by_ms", its - others);
      json_object_set_string_member (node, "slowest_stage", ls_verdict_ranks_stage (rank_at (a, (guint) worst)));
    }
  json_object_set_string_member (node, "throughput_note",
                                 "the node's: the sum of the ranks' samples per second; the run's batches and "
                                 "timeline are rank 0's");
  json_object_set_object_member (target, "node", node);
  if (all && sum > 0)
    result->throughput_sps = sum;
}

static double
num (JsonObject *r, const char *key)
{
  return ls_json_number_or (r, key, NAN);
}

void
ls_target_ranks_print (FILE *to, JsonObject *target)
{
  JsonArray *a = ranks_of (target);
  if (!a)
    return;
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonObject *r = rank_at (a, i);
      if (!r)
        continue;
      g_autofree char *rank = g_strdup_printf (_("rank %u:"), i);
      ls_i18n_print_label (to, "  ", rank, 21 + (i >= 10) + (i >= 100)); /* the English line: "rank %u:" then 12 spaces */
      fprintf (to,
               _("pid %.0f, num_workers %.0f, batch %.0f, threads %.0f (OMP_NUM_THREADS %.0f); "
               "%.1f samples/s, wait p50 %.2f ms mean %.2f ms, step p50 %.2f ms; per batch __getitem__ %.2f ms, "
               "collate %.2f ms; CPU %.0f ms\n"),
               num (r, "pid"), num (r, "num_workers"), num (r, "batch_size"), num (r, "threads"),
               num (r, "omp_num_threads"), num (r, "throughput_sps"), num (r, "wait_ms_p50"), num (r, "wait_ms_mean"),
               num (r, "step_ms_p50"), num (r, "getitem_ms"), num (r, "collate_ms"), num (r, "cpu_ms"));
    }
  JsonNode *nn = json_object_get_member (target, "node");
  if (!nn || !JSON_NODE_HOLDS_OBJECT (nn))
    return;
  JsonObject *node = json_node_get_object (nn);
  ls_i18n_print_label (to, "  ", _("node:"), 21);
  fprintf (to, _("%.1f samples/s (the ranks' sum), %.0f processes (ranks and workers) and %.0f threads on %.0f "
                 "cores\n"),
           num (node, "throughput_sps"), num (node, "processes"), num (node, "threads"), num (node, "cores"));
  if (json_object_has_member (node, "slowest_rank"))
    {
      ls_i18n_print_label (to, "  ", _("slowest rank:"), 21);
      fprintf (to, _("%.0f (%s), median batch wait %.2f ms against the others' %.2f ms (+%.2f ms)\n"),
               num (node, "slowest_rank"), json_object_get_string_member_with_default (node, "slowest_stage", "?"),
               num (node, "slowest_wait_ms"), num (node, "others_wait_ms"), num (node, "slower_by_ms"));
    }
}
