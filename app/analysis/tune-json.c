/* `loadscope tune`'s result as JSON (tune.h). */
#include "app/analysis/tune.h"

#include "app/core/json-util.h"
#include "app/core/summary-keys.h"

static void
add_knobs (JsonBuilder *j, const ls_tune_point *p)
{
  json_builder_set_member_name (j, "workers");
  json_builder_add_int_value (j, p->workers);
  json_builder_set_member_name (j, "prefetch");
  json_builder_add_int_value (j, p->prefetch);
  json_builder_set_member_name (j, "pin");
  json_builder_add_string_value (j, p->pin);
  json_builder_set_member_name (j, "persistent");
  json_builder_add_boolean_value (j, p->persistent);
  if (p->threads)
    {
      json_builder_set_member_name (j, "threads");
      json_builder_add_int_value (j, p->threads);
    }
}

JsonNode *
ls_tune_result_to_json (const ls_tune_result *r)
{
  g_autoptr (JsonBuilder) j = json_builder_new ();
  const ls_tune_point *best = r->best >= 0 ? g_ptr_array_index (r->points, r->best) : NULL;

  json_builder_begin_object (j);
  json_builder_set_member_name (j, "recommended");
  if (best)
    {
      json_builder_begin_object (j);
      add_knobs (j, best);
      JsonObject *summary = json_array_get_object_element (r->summaries, (guint) r->best);
      json_builder_set_member_name (j, "batch_size");
      json_builder_add_int_value (j, json_object_get_int_member_with_default (summary, "batch_size", 0));
      json_builder_end_object (j);
    }
  else
    json_builder_add_null_value (j);
  json_builder_set_member_name (j, "pytorch");
  if (r->pytorch)
    json_builder_add_string_value (j, r->pytorch);
  else
    json_builder_add_null_value (j);
  json_builder_set_member_name (j, "verdict");
  if (r->verdict)
    json_builder_add_string_value (j, r->verdict);
  else
    json_builder_add_null_value (j);
  json_builder_set_member_name (j, "measured");
  if (best)
    {
      json_builder_begin_object (j);
      json_builder_set_member_name (j, "run_id");
      json_builder_add_int_value (j, best->run_id);
      ls_json_builder_add_number (j, LS_KEY_THROUGHPUT, r->best_throughput_sps);
      json_builder_set_member_name (j, "repeats");
      json_builder_add_int_value (j, r->best_repeats);
      ls_json_builder_add_number (j, LS_KEY_GPU_UTIL_EXACT, best->gpu_util_exact);
      ls_json_builder_add_number (j, LS_KEY_PSS_PEAK, best->pss_peak_bytes);
      json_builder_end_object (j);
    }
  else
    json_builder_add_null_value (j);
  json_builder_set_member_name (j, "runs");
  json_builder_add_int_value (j, r->runs);
  ls_json_builder_add_number (j, "elapsed_s", r->elapsed_s);
  ls_json_builder_add_number (j, "noise", r->noise);
  json_builder_set_member_name (j, "sweep_id");
  if (r->sweep_id > 0)
    json_builder_add_int_value (j, r->sweep_id);
  else
    json_builder_add_null_value (j);
  json_builder_set_member_name (j, "stopped");
  if (r->stop_reason)
    json_builder_add_string_value (j, r->stop_reason);
  else
    json_builder_add_null_value (j);
  json_builder_set_member_name (j, "points");
  json_builder_begin_array (j);
  for (guint i = 0; r->points && i < r->points->len; i++)
    {
      const ls_tune_point *p = g_ptr_array_index (r->points, i);
      json_builder_begin_object (j);
      add_knobs (j, p);
      json_builder_set_member_name (j, "run_id");
      json_builder_add_int_value (j, p->run_id);
      ls_json_builder_add_number (j, "predicted_sps", p->predicted_sps);
      ls_json_builder_add_number (j, LS_KEY_THROUGHPUT, p->throughput_sps);
      ls_json_builder_add_number (j, LS_KEY_GPU_UTIL_EXACT, p->gpu_util_exact);
      ls_json_builder_add_number (j, LS_KEY_PSS_PEAK, p->pss_peak_bytes);
      json_builder_set_member_name (j, "over_budget");
      json_builder_add_boolean_value (j, p->over_budget);
      json_builder_end_object (j);
    }
  json_builder_end_array (j);
  json_builder_end_object (j);
  return json_builder_get_root (j);
}
