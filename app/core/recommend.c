#include "app/core/recommend.h"

#include <string.h>

#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/summary-keys.h"

/* Peak PSS on Linux, private bytes on Windows: what the runs occupy. */
static double
peak_memory (JsonObject *o)
{
  JsonNode *m = json_object_get_member (o, "memory");
  if (!m || !JSON_NODE_HOLDS_OBJECT (m))
    return -1;
  double pss = ls_json_number_or (json_node_get_object (m), LS_KEY_PSS_PEAK, -1);
  return pss >= 0 ? pss : ls_json_number_or (json_node_get_object (m), "private_peak_bytes", -1);
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

/* A PyTorch script's pin_memory as its DataLoader had it (target.knobs,
 * --target pytorch): 1 or 0; -1 when the run is not a script's. With no
 * device the run has no pin mode, but the script's line still shows it. */
static int
script_pin_memory (JsonObject *o)
{
  JsonNode *t = json_object_get_member (o, "target");
  JsonNode *knobs = t && JSON_NODE_HOLDS_OBJECT (t) ? json_object_get_member (json_node_get_object (t), "knobs") : NULL;
  JsonNode *k = knobs && JSON_NODE_HOLDS_OBJECT (knobs)
                    ? json_object_get_member (json_node_get_object (knobs), "pin_memory")
                    : NULL;
  JsonNode *v = k && JSON_NODE_HOLDS_OBJECT (k) ? json_object_get_member (json_node_get_object (k), "value") : NULL;
  if (!v || !JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_BOOLEAN)
    return -1;
  return json_node_get_boolean (v) ? 1 : 0;
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

  /* A list: each part after the first says its own separator (", "). The
   * start method and the pin mode are knob values, as typed. */
  if (workers == 0)
    g_string_append (s, _("0 workers (loading in the training process)"));
  else
    g_string_append_printf (s, ngettext ("%lld worker (%s)", "%lld workers (%s)", (unsigned long) workers),
                            (long long) workers, json_object_get_string_member_with_default (o, "start", "fork"));
  g_string_append_printf (s, _(", batch %lld"), (long long) json_object_get_int_member_with_default (o, "batch_size", 0));
  if (workers > 0)
    g_string_append_printf (s, flag_of (o, "persistent") ? _(", prefetch %lld, persistent workers on")
                                                         : _(", prefetch %lld, persistent workers off"),
                            (long long) json_object_get_int_member_with_default (o, "prefetch", 0));
  if (pin)
    g_string_append_printf (s, _(", pin %s"), pin);
  if (pin && flag_of (o, "non_blocking"))
    g_string_append (s, _(", non-blocking copies"));
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
  else if (script_pin_memory (o) >= 0)
    g_string_append_printf (s, ", pin_memory=%s", script_pin_memory (o) ? "True" : "False");
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
    /* untranslated: part of the DataLoader line, which is never translated */
    g_string_append (s, "  # pin arena has no DataLoader equivalent: pin_memory=True is the nearest");
  return g_string_free (s, FALSE);
}

/* One configuration's identity, from the knobs a summary holds. */
static char *
config_key (JsonObject *o)
{
  gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
  const char *pin = pin_of (o);
  return g_strdup_printf ("%" G_GINT64_FORMAT "|%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%d|%s|%d|%g|%s|%s|%g",
                          workers, workers > 0 ? json_object_get_string_member_with_default (o, "start", "") : "",
                          json_object_get_int_member_with_default (o, "batch_size", 0),
                          workers > 0 ? json_object_get_int_member_with_default (o, "prefetch", 0) : 0,
                          workers > 0 && flag_of (o, "persistent"), pin ? pin : "-", flag_of (o, "non_blocking"),
                          ls_json_number_or (o, "model_ms", -1),
                          json_object_get_string_member_with_default (o, "sink", ""),
                          json_object_get_string_member_with_default (o, "dataset", ""),
                          ls_json_number_or (o, "sample_bytes", -1));
}

static void
config_group_free (gpointer p)
{
  ls_config_group *g = p;
  g_array_unref (g->runs);
  g_free (g->label);
  g_free (g);
}

static gboolean
is_done (JsonObject *o)
{
  return g_strcmp0 (json_object_get_string_member_with_default (o, "status", ""), "done") == 0
         && ls_json_number_or (o, LS_KEY_THROUGHPUT, -1) >= 0;
}

static int
compare_by_throughput (gconstpointer a, gconstpointer b, gpointer data)
{
  JsonArray *summaries = data;
  double x = ls_json_number_or (json_array_get_object_element (summaries, *(const guint *) a), LS_KEY_THROUGHPUT, -1);
  double y = ls_json_number_or (json_array_get_object_element (summaries, *(const guint *) b), LS_KEY_THROUGHPUT, -1);
  return x < y ? -1 : x > y;
}

/* The label parts of one summary: "workers 2", "pin staging", ... in a
 * fixed order, one per knob (NULL where the knob means nothing there). */
#define N_LABEL_KNOBS 11
static void
label_parts (JsonObject *o, char *parts[N_LABEL_KNOBS])
{
  gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
  const char *pin = pin_of (o);
  parts[0] = g_strdup_printf ("workers=%" G_GINT64_FORMAT, workers);
  parts[1] = workers > 0 ? g_strdup_printf ("start=%s", json_object_get_string_member_with_default (o, "start", "?"))
                         : NULL;
  parts[2] = g_strdup_printf ("batch-size=%" G_GINT64_FORMAT,
                              json_object_get_int_member_with_default (o, "batch_size", 0));
  parts[3] = workers > 0 ? g_strdup_printf ("prefetch=%" G_GINT64_FORMAT,
                                            json_object_get_int_member_with_default (o, "prefetch", 0))
                         : NULL;
  parts[4] = workers > 0 ? g_strdup_printf ("persistent=%s", flag_of (o, "persistent") ? "on" : "off") : NULL;
  parts[5] = pin ? g_strdup_printf ("pin=%s", pin) : NULL;
  parts[6] = pin ? g_strdup_printf ("non-blocking=%s", flag_of (o, "non_blocking") ? "on" : "off") : NULL;
  double model_ms = ls_json_number_or (o, "model_ms", -1);
  parts[7] = model_ms >= 0 ? g_strdup_printf ("model-ms=%g", model_ms) : NULL;
  parts[8] = g_strdup_printf ("sink=%s", json_object_get_string_member_with_default (o, "sink", "?"));
  g_autofree char *base = g_path_get_basename (json_object_get_string_member_with_default (o, "dataset", "?"));
  parts[9] = g_strdup_printf ("dataset=%s", base);
  parts[10] = g_strdup_printf ("sample-bytes=%.0f", ls_json_number_or (o, "sample_bytes", -1));
}

static void
set_labels (GPtrArray *groups, JsonArray *summaries)
{
  guint n = groups->len;
  typedef char *label_row[N_LABEL_KNOBS];
  label_row *parts = g_new0 (label_row, n);
  gboolean varies[N_LABEL_KNOBS] = { FALSE };

  /* A knob varies when two groups have different values for it (one
   * where it means nothing, such as start with 0 workers, does not count). */
  for (guint i = 0; i < n; i++)
    {
      ls_config_group *g = groups->pdata[i];
      label_parts (json_array_get_object_element (summaries, g_array_index (g->runs, guint, 0)), parts[i]);
      for (guint k = 0; k < N_LABEL_KNOBS; k++)
        for (guint j = 0; j < i && !varies[k]; j++)
          varies[k] |= parts[i][k] && parts[j][k] && strcmp (parts[i][k], parts[j][k]) != 0;
    }
  for (guint i = 0; i < n; i++)
    {
      ls_config_group *g = groups->pdata[i];
      GString *s = g_string_new (NULL);
      for (guint k = 0; k < N_LABEL_KNOBS; k++)
        {
          if (varies[k] && parts[i][k])
            g_string_append_printf (s, "%s%s", s->len ? " " : "", parts[i][k]);
          g_free (parts[i][k]);
        }
      g->label = g_string_free (s, FALSE);
    }
  g_free (parts);
}

GPtrArray *
ls_config_groups (JsonArray *summaries)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func (config_group_free);
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n = summaries ? json_array_get_length (summaries) : 0;

  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = json_array_get_object_element (summaries, i);
      char *key = config_key (o);
      ls_config_group *g = g_hash_table_lookup (by_key, key);
      if (!g)
        {
          g = g_new0 (ls_config_group, 1);
          g->runs = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (groups, g);
          g_hash_table_insert (by_key, key, g);
        }
      else
        g_free (key);
      g_array_append_val (g->runs, i);
    }

  for (guint j = 0; j < groups->len; j++)
    {
      ls_config_group *g = groups->pdata[j];
      g_autoptr (GArray) done = g_array_new (FALSE, FALSE, sizeof (guint));
      double sum = 0, mem_sum = 0;
      guint mem_n = 0;
      g->mean = g->min = g->max = g->memory = -1;
      g->representative = -1;
      for (guint k = 0; k < g->runs->len; k++)
        {
          guint i = g_array_index (g->runs, guint, k);
          JsonObject *o = json_array_get_object_element (summaries, i);
          if (!is_done (o))
            continue;
          double t = ls_json_number_or (o, LS_KEY_THROUGHPUT, -1), m = peak_memory (o);
          g_array_append_val (done, i);
          sum += t;
          g->min = g->min < 0 ? t : MIN (g->min, t);
          g->max = MAX (g->max, t);
          if (m >= 0)
            {
              mem_sum += m;
              mem_n++;
            }
        }
      g->done = done->len;
      if (g->done)
        {
          g->mean = sum / g->done;
          g_array_sort_with_data (done, compare_by_throughput, summaries);
          g->representative = (int) g_array_index (done, guint, (done->len - 1) / 2);
        }
      if (mem_n)
        g->memory = mem_sum / mem_n;
    }
  set_labels (groups, summaries);
  return groups;
}

gboolean
ls_config_groups_overlap (const ls_config_group *a, const ls_config_group *b)
{
  return a->done > 1 && b->done > 1 && a->min <= b->max && b->min <= a->max;
}

char *
ls_config_group_throughput_text (const ls_config_group *g)
{
  if (g->done > 1)
    return g_strdup_printf (_("%.0f samples/s (mean of %u, %.0f\u2013%.0f)"), g->mean, g->done, g->min, g->max);
  return g_strdup_printf (_("%.0f samples/s"), g->mean);
}

gboolean
ls_config_group_close (const ls_config_group *g, const ls_config_group *best)
{
  return g->done && best->done
         && (g->mean >= best->mean * (1 - LS_RECOMMEND_TOLERANCE) || ls_config_groups_overlap (g, best));
}

/* Why configuration a costs the machine less than b, in words ("fewer
 * workers", "no pinning", "less memory", marked: translate where shown);
 * NULL when it does not. */
static const char *
config_cheaper (JsonArray *summaries, const ls_config_group *a, const ls_config_group *b)
{
  JsonObject *x = json_array_get_object_element (summaries, (guint) a->representative);
  JsonObject *y = json_array_get_object_element (summaries, (guint) b->representative);
  gint64 wx = json_object_get_int_member_with_default (x, "workers", 0);
  gint64 wy = json_object_get_int_member_with_default (y, "workers", 0);
  if (wx != wy)
    return wx < wy ? N_("fewer workers") : NULL;
  const char *px = pin_of (x), *py = pin_of (y);
  gboolean pinned_x = px && strcmp (px, "off") != 0, pinned_y = py && strcmp (py, "off") != 0;
  if (pinned_x != pinned_y)
    return pinned_y ? N_("no pinning") : NULL;
  /* Less memory counts when it is noticeably less (5 %), not noise. */
  if (a->memory >= 0 && (b->memory < 0 || a->memory < b->memory * (1 - LS_RECOMMEND_TOLERANCE)))
    return N_("less memory");
  return NULL;
}

ls_recommendation
ls_recommend (JsonArray *summaries)
{
  ls_recommendation rec = { -1, NULL, NULL };
  g_autoptr (GPtrArray) groups = ls_config_groups (summaries);
  ls_config_group *best = NULL;

  for (guint j = 0; j < groups->len; j++)
    {
      ls_config_group *g = groups->pdata[j];
      if (g->done && (!best || g->mean > best->mean))
        best = g;
    }
  if (!best)
    {
      rec.reason = g_strdup (_("No run finished, so there is nothing to recommend."));
      return rec;
    }

  /* Among the configurations close to the best (within 5 %, or within the
   * spread of the repeats), the cheapest: fewer workers, then no pinning,
   * then noticeably (5 %) less memory. Measuring cannot tell them apart, so
   * the one that costs the machine least is the answer. */
  ls_config_group *pick = best;
  for (guint j = 0; j < groups->len; j++)
    {
      ls_config_group *g = groups->pdata[j];
      if (g->done && ls_config_group_close (g, best) && config_cheaper (summaries, g, pick) != NULL)
        pick = g;
    }
  JsonObject *p = json_array_get_object_element (summaries, (guint) pick->representative);
  g_autofree char *knobs = ls_recommend_knobs_text (p);
  g_autofree char *tput = ls_config_group_throughput_text (pick);
  double util = ls_json_number_or (p, LS_KEY_GPU_UTIL_EXACT, -1);
  /* Whole sentences, each with its own format; the parts put into them
   * (the knobs, the throughput, the GPU and memory figures) are complete
   * phrases that keep their place whatever the language. */
  g_autofree char *util_text = util < 0                       ? g_strdup ("")
                               : flag_of (p, "simulated")     ? g_strdup_printf (_(", GPU busy %.0f %% (simulated)"), util * 100)
                                                              : g_strdup_printf (_(", GPU busy %.0f %%"), util * 100);
  g_autofree char *mem_text = pick->memory >= 0 ? g_strdup_printf (_(" (%.0f MB peak)"), pick->memory / 1e6)
                                                : g_strdup ("");
  GString *reason = g_string_new (NULL);
  if (pick == best)
    g_string_append_printf (reason, _("Use %s: the best throughput, %s%s, and no configuration within 5 %% "
                                      "of it is cheaper (fewer workers, no pinning, less memory)%s."),
                            knobs, tput, util_text, mem_text);
  else
    {
      const char *cheaper = config_cheaper (summaries, pick, best);
      const char *why = cheaper ? _(cheaper) : "";
      g_autofree char *why_text = pick->memory >= 0 && best->memory >= 0
                                      ? g_strdup_printf (_("%s, %.0f MB peak against %.0f MB"), why, pick->memory / 1e6,
                                                         best->memory / 1e6)
                                      : g_strdup (why);
      if (pick->mean >= best->mean * (1 - LS_RECOMMEND_TOLERANCE))
        g_string_append_printf (reason, _("Use %s: %s%s, within 5 %% of the best (%.0f samples/s) and cheaper than it "
                                          "(%s)."),
                                knobs, tput, util_text, best->mean, why_text);
      else
        g_string_append_printf (reason, _("Use %s: %s%s, within the spread of repeats of the best (%.0f samples/s) "
                                          "and cheaper than it (%s)."),
                                knobs, tput, util_text, best->mean, why_text);
    }

  /* The configurations the repeats cannot tell from the pick. */
  g_autoptr (GPtrArray) same = g_ptr_array_new ();
  for (guint j = 0; j < groups->len; j++)
    {
      ls_config_group *g = groups->pdata[j];
      if (g != pick && ls_config_groups_overlap (g, pick))
        g_ptr_array_add (same, g->label);
    }
  if (same->len)
    {
      /* "A, B and C": the labels are knob settings (workers=2 pin=off). */
      char *list = g_strdup (pick->label);
      for (guint j = 0; j < same->len; j++)
        {
          char *longer = g_strdup_printf (j + 1 == same->len ? _("%s and %s") : _("%s, %s"), list,
                                          (char *) same->pdata[j]);
          g_free (list);
          list = longer;
        }
      g_string_append_printf (reason, _(" %s are within the spread of repeats: measuring cannot tell them apart, so "
                                        "the cheapest, %s, is the one to use."),
                              list, pick->label);
      g_free (list);
    }
  rec.reason = g_string_free (reason, FALSE);
  rec.dataloader = ls_recommend_dataloader_text (p);
  rec.index = pick->representative;
  return rec;
}

void
ls_recommendation_clear (ls_recommendation *r)
{
  g_clear_pointer (&r->reason, g_free);
  g_clear_pointer (&r->dataloader, g_free);
  r->index = -1;
}
