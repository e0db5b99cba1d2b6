/* A run's ranks as a table (ranks-table.h). */
#include "app/core/ranks-table.h"

#include <math.h>

#include "app/core/json-util.h"
#include "app/core/verdict-ranks.h"

static gint64
count_or (JsonObject *o, const char *name)
{
  double v;
  return ls_json_number (o, name, &v) && v >= 0 ? (gint64) v : -1;
}

static JsonArray *
ranks_of (JsonObject *target)
{
  JsonNode *n = target ? json_object_get_member (target, "ranks") : NULL;
  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

ls_ranks_table *
ls_ranks_table_new (JsonObject *summary)
{
  JsonObject *target = ls_json_object_or_null (summary, "target");
  JsonArray *a = ranks_of (target);
  guint n = a ? json_array_get_length (a) : 0;
  if (n == 0)
    return NULL;
  ls_ranks_table *t = g_new0 (ls_ranks_table, 1);
  t->run_id = (gint64) ls_json_number_or (summary, "run_id", 0);
  t->rows = g_array_sized_new (FALSE, TRUE, sizeof (ls_rank_row), n);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      JsonObject *r = JSON_NODE_HOLDS_OBJECT (e) ? json_node_get_object (e) : NULL;
      ls_rank_row row = {
        .rank = (int) ls_json_number_or (r, "rank", i),
        .throughput_sps = ls_json_number_or (r, "throughput_sps", NAN),
        .wait_ms_p50 = ls_json_number_or (r, "wait_ms_p50", NAN),
        .step_ms_p50 = ls_json_number_or (r, "step_ms_p50", NAN),
        .workers = count_or (r, "num_workers"),
        .threads = count_or (r, "threads"),
        .cpu_ms = ls_json_number_or (r, "cpu_ms", NAN),
      };
      g_array_append_val (t->rows, row);
    }
  /* The slowest as the verdict judges it, whatever the node says. */
  double its = NAN, others = NAN;
  t->slowest = ls_verdict_ranks_slowest (a, &its, &others);
  t->slowest_wait_ms = t->slowest >= 0 ? its : NAN;
  t->others_wait_ms = t->slowest >= 0 ? others : NAN;
  if (t->slowest >= 0)
    {
      g_array_index (t->rows, ls_rank_row, t->slowest).slowest = TRUE;
      JsonNode *e = json_array_get_element (a, (guint) t->slowest);
      t->slowest_stage = g_strdup (ls_verdict_ranks_stage (JSON_NODE_HOLDS_OBJECT (e) ? json_node_get_object (e)
                                                                                      : NULL));
    }
  /* The node's row: target.node where the runner wrote it, else summed here. */
  JsonObject *node = ls_json_object_or_null (target, "node");
  double sum = 0, cpu = 0;
  gint64 workers = 0, threads = 0;
  gboolean all_sps = TRUE, all_cpu = TRUE, all_workers = TRUE, all_threads = TRUE;
  for (guint i = 0; i < n; i++)
    {
      const ls_rank_row *r = &g_array_index (t->rows, ls_rank_row, i);
      all_sps &= isfinite (r->throughput_sps);
      sum += isfinite (r->throughput_sps) ? r->throughput_sps : 0;
      all_cpu &= isfinite (r->cpu_ms);
      cpu += isfinite (r->cpu_ms) ? r->cpu_ms : 0;
      all_workers &= r->workers >= 0;
      workers += MAX (r->workers, 0);
      all_threads &= r->threads >= 0;
      threads += MAX (r->threads, 0) + MAX (r->workers, 0);
    }
  t->node = (ls_rank_row){
    .rank = -1,
    .throughput_sps = ls_json_number_or (node, "throughput_sps", all_sps ? sum : NAN),
    .wait_ms_p50 = NAN,
    .step_ms_p50 = NAN,
    .workers = node ? count_or (node, "workers") : all_workers ? workers : -1,
    .threads = node ? count_or (node, "threads") : all_workers && all_threads ? threads : -1,
    .cpu_ms = ls_json_number_or (node, "ranks_cpu_ms", all_cpu ? cpu : NAN),
  };
  t->processes = node ? count_or (node, "processes") : all_workers ? (gint64) n + workers : -1;
  t->cores = node ? count_or (node, "cores") : -1;
  return t;
}

void
ls_ranks_table_free (ls_ranks_table *table)
{
  if (!table)
    return;
  g_array_unref (table->rows);
  g_free (table->slowest_stage);
  g_free (table);
}

const ls_rank_row *
ls_ranks_table_row (const ls_ranks_table *table, guint i)
{
  g_return_val_if_fail (table && i < table->rows->len, NULL);
  return &g_array_index (table->rows, ls_rank_row, i);
}

guint
ls_ranks_table_n_rows (const ls_ranks_table *table)
{
  return table ? table->rows->len : 0;
}
