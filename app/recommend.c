#include "app/recommend.h"

static double
number (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;
  return n && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_double (n) : -1;
}

/* Peak PSS on Linux, private bytes on Windows: what the runs occupy. */
static double
peak_memory (JsonObject *o)
{
  JsonNode *m = json_object_get_member (o, "memory");
  if (!m || !JSON_NODE_HOLDS_OBJECT (m))
    return -1;
  double pss = number (json_node_get_object (m), "pss_peak_bytes");
  return pss >= 0 ? pss : number (json_node_get_object (m), "private_peak_bytes");
}

static char *
knobs_text (JsonObject *o)
{
  JsonNode *pin = json_object_get_member (o, "pin");
  return g_strdup_printf ("%" G_GINT64_FORMAT " workers (%s), batch %" G_GINT64_FORMAT ", prefetch %" G_GINT64_FORMAT
                          "%s%s%s",
                          json_object_get_int_member_with_default (o, "workers", 0),
                          json_object_get_string_member_with_default (o, "start", "?"),
                          json_object_get_int_member_with_default (o, "batch_size", 0),
                          json_object_get_int_member_with_default (o, "prefetch", 0),
                          pin && !json_node_is_null (pin) ? ", pin " : "",
                          pin && !json_node_is_null (pin) ? json_node_get_string (pin) : "",
                          json_object_get_boolean_member_with_default (o, "persistent", FALSE) ? ", persistent" : "");
}

ls_recommendation
ls_recommend (JsonArray *summaries)
{
  ls_recommendation rec = { -1, NULL };
  double best = -1;
  int best_i = -1;
  guint n = summaries ? json_array_get_length (summaries) : 0;

  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = json_array_get_object_element (summaries, i);
      if (g_strcmp0 (json_object_get_string_member_with_default (o, "status", ""), "done") != 0)
        continue;
      double t = number (o, "throughput_sps");
      if (t > best)
        {
          best = t;
          best_i = (int) i;
        }
    }
  if (best_i < 0)
    {
      rec.reason = g_strdup ("No run finished, so there is nothing to recommend.");
      return rec;
    }

  /* Among the runs close to the best, the one that uses least memory. */
  int pick = best_i;
  double pick_mem = peak_memory (json_array_get_object_element (summaries, (guint) best_i));
  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = json_array_get_object_element (summaries, i);
      if (g_strcmp0 (json_object_get_string_member_with_default (o, "status", ""), "done") != 0)
        continue;
      double t = number (o, "throughput_sps"), m = peak_memory (o);
      if (t >= best * (1 - LS_RECOMMEND_TOLERANCE) && m >= 0 && (pick_mem < 0 || m < pick_mem))
        {
          pick = (int) i;
          pick_mem = m;
        }
    }

  JsonObject *p = json_array_get_object_element (summaries, (guint) pick);
  g_autofree char *knobs = knobs_text (p);
  double t = number (p, "throughput_sps"), util = number (p, "gpu_util_exact");
  g_autofree char *util_text = util >= 0 ? g_strdup_printf (", GPU busy %.0f %%%s", util * 100,
                                                            json_object_get_boolean_member_with_default (p, "simulated", FALSE)
                                                                ? " (simulated)"
                                                                : "")
                                         : g_strdup ("");
  if (pick == best_i)
    rec.reason = g_strdup_printf ("Use %s: the best throughput, %.0f samples/s%s, and no configuration within 5 %% "
                                  "of it uses less memory (%.0f MB peak).",
                                  knobs, t, util_text, pick_mem / 1e6);
  else
    rec.reason = g_strdup_printf ("Use %s: %.0f samples/s%s, within 5 %% of the best (%.0f samples/s), with the least "
                                  "memory of those (%.0f MB peak against %.0f MB).",
                                  knobs, t, util_text, best, pick_mem / 1e6,
                                  peak_memory (json_array_get_object_element (summaries, (guint) best_i)) / 1e6);
  rec.index = pick;
  return rec;
}

void
ls_recommendation_clear (ls_recommendation *r)
{
  g_clear_pointer (&r->reason, g_free);
  r->index = -1;
}
