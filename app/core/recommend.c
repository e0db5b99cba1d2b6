#include "app/core/recommend.h"

#include <string.h>

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

/* The pin mode, NULL when the run had no device (none sink). */
static const char *
pin_of (JsonObject *o)
{
  JsonNode *pin = json_object_get_member (o, "pin");
  return pin && JSON_NODE_HOLDS_VALUE (pin) && json_node_get_value_type (pin) == G_TYPE_STRING
             ? json_node_get_string (pin)
             : NULL;
}

static gboolean
flag_of (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_boolean (n);
}

char *
ls_recommend_knobs_text (JsonObject *o)
{
  gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
  const char *pin = pin_of (o);
  GString *s = g_string_new (NULL);

  if (workers == 0)
    g_string_append (s, "0 workers (loading in the training process)");
  else
    g_string_append_printf (s, "%" G_GINT64_FORMAT " worker%s (%s)", workers, workers == 1 ? "" : "s",
                            json_object_get_string_member_with_default (o, "start", "fork"));
  g_string_append_printf (s, ", batch %" G_GINT64_FORMAT, json_object_get_int_member_with_default (o, "batch_size", 0));
  if (workers > 0)
    g_string_append_printf (s, ", prefetch %" G_GINT64_FORMAT ", persistent workers %s",
                            json_object_get_int_member_with_default (o, "prefetch", 0),
                            flag_of (o, "persistent") ? "on" : "off");
  if (pin)
    g_string_append_printf (s, ", pin %s", pin);
  if (pin && flag_of (o, "non_blocking"))
    g_string_append (s, ", non-blocking copies");
  return g_string_free (s, FALSE);
}

char *
ls_recommend_dataloader_text (JsonObject *o)
{
  gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
  const char *pin = pin_of (o);
  gboolean pinned = pin && strcmp (pin, "off") != 0;
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "DataLoader(dataset, batch_size=%" G_GINT64_FORMAT ", num_workers=%" G_GINT64_FORMAT,
                          json_object_get_int_member_with_default (o, "batch_size", 0), workers);
  if (pin)
    g_string_append_printf (s, ", pin_memory=%s", pinned ? "True" : "False");
  /* PyTorch refuses both with num_workers=0. */
  if (workers > 0)
    {
      g_string_append_printf (s, ", persistent_workers=%s, prefetch_factor=%" G_GINT64_FORMAT,
                              flag_of (o, "persistent") ? "True" : "False",
                              json_object_get_int_member_with_default (o, "prefetch", 0));
      if (g_strcmp0 (json_object_get_string_member_with_default (o, "start", "fork"), "spawn") == 0)
        g_string_append (s, ", multiprocessing_context=\"spawn\"");
    }
  g_string_append (s, ")");
  if (pin && flag_of (o, "non_blocking"))
    g_string_append (s, "; batch.to(device, non_blocking=True)");
  if (pin && strcmp (pin, "arena") == 0)
    g_string_append (s, "  # pin arena has no DataLoader equivalent: pin_memory=True is the nearest");
  return g_string_free (s, FALSE);
}

ls_recommendation
ls_recommend (JsonArray *summaries)
{
  ls_recommendation rec = { -1, NULL, NULL };
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
  g_autofree char *knobs = ls_recommend_knobs_text (p);
  double t = number (p, "throughput_sps"), util = number (p, "gpu_util_exact");
  g_autofree char *util_text = util >= 0 ? g_strdup_printf (", GPU busy %.0f %%%s", util * 100,
                                                            flag_of (p, "simulated") ? " (simulated)" : "")
                                         : g_strdup ("");
  g_autofree char *mem_text = pick_mem >= 0 ? g_strdup_printf (" (%.0f MB peak)", pick_mem / 1e6) : g_strdup ("");
  if (pick == best_i)
    rec.reason = g_strdup_printf ("Use %s: the best throughput, %.0f samples/s%s, and no configuration within 5 %% "
                                  "of it uses less memory%s.",
                                  knobs, t, util_text, mem_text);
  else
    rec.reason = g_strdup_printf ("Use %s: %.0f samples/s%s, within 5 %% of the best (%.0f samples/s), with the least "
                                  "memory of those (%.0f MB peak against %.0f MB).",
                                  knobs, t, util_text, best, pick_mem / 1e6,
                                  peak_memory (json_array_get_object_element (summaries, (guint) best_i)) / 1e6);
  rec.dataloader = ls_recommend_dataloader_text (p);
  rec.index = pick;
  return rec;
}

void
ls_recommendation_clear (ls_recommendation *r)
{
  g_clear_pointer (&r->reason, g_free);
  g_clear_pointer (&r->dataloader, g_free);
  r->index = -1;
}

void
ls_recommend_print (FILE *to, JsonArray *summaries)
{
  ls_recommendation rec = ls_recommend (summaries);
  fprintf (to, "Recommendation: %s\n", rec.reason);
  if (rec.dataloader)
    fprintf (to, "  %s\n", rec.dataloader);
  ls_recommendation_clear (&rec);
}
