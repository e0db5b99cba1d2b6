/* A script's run in the summary and the terminal (target-summary.h). */
#include "app/target/target-summary.h"
#include "app/core/i18n.h"
#include "app/target/target-ranks.h"

#include <math.h>

#include "app/core/terminal-text.h"

void
ls_target_machine_busy (JsonObject *summary, JsonObject *target)
{
  JsonObject *busy = json_object_has_member (summary, "machine_busy")
                         ? json_object_get_object_member (summary, "machine_busy") : NULL;
  if (!busy)
    return;
  double span = json_object_get_double_member_with_default (busy, "span_s", 0);
  double script = json_object_get_double_member_with_default (target, "script_cpu_ms", 0) / 1e3;
  /* With ranks, script_cpu_ms is the launcher's: the ranks and their
   * workers are the run's own too, not other processes' load. */
  JsonNode *nn = json_object_get_member (target, "node");
  if (nn && JSON_NODE_HOLDS_OBJECT (nn))
    {
      JsonObject *node = json_node_get_object (nn);
      script += (json_object_get_double_member_with_default (node, "ranks_cpu_ms", 0)
                 + json_object_get_double_member_with_default (node, "workers_cpu_ms", 0)) / 1e3;
    }
  if (span <= 0)
    return;
  double pct = script / span * 100.0;
  json_object_set_double_member (busy, "own_cpu_percent",
                                 json_object_get_double_member_with_default (busy, "own_cpu_percent", 0) + pct);
  JsonNode *other = json_object_get_member (busy, "other_cpu_percent");
  if (other && JSON_NODE_HOLDS_VALUE (other))
    json_object_set_double_member (busy, "other_cpu_percent", MAX (0.0, json_node_get_double (other) - pct));
}

void
ls_target_summary_unknowns (JsonObject *summary)
{
  /* copy_ms stays: the probe times the script's copies on CUDA (null elsewhere) */
  static const char *const unknown[] = { "sample_bytes", "batch_bytes", "host_bytes_copied", "stages_ms" };
  for (size_t i = 0; i < G_N_ELEMENTS (unknown); i++)
    if (json_object_has_member (summary, unknown[i]))
      json_object_set_null_member (summary, unknown[i]);
  /* The script's own stages, where the probe timed them: its stage names
   * (sampler, getitem, collate, handoff, idle, busy), not the loader's. */
  JsonNode *t = json_object_get_member (summary, "target");
  JsonNode *st = t && JSON_NODE_HOLDS_OBJECT (t) ? json_object_get_member (json_node_get_object (t), "stages_ms") : NULL;
  if (st && JSON_NODE_HOLDS_OBJECT (st))
    json_object_set_member (summary, "stages_ms", json_node_copy (st));
}

/* A text of the target for the terminal: the script's name may hold
 * escapes, newlines or bytes that are not UTF-8 (`esc\e[31m.py`). */
static char *
shown (JsonObject *target, const char *name)
{
  JsonNode *n = json_object_get_member (target, name);
  const char *text = n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
                         ? json_node_get_string (n) : "?";
  return ls_terminal_text (text);
}

static double
figure (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) != G_TYPE_STRING ? json_node_get_double (n)
                                                                                          : NAN;
}

/* Where a batch's time went inside the script's DataLoader, and the
 * workers' CPU beside their wall time (the probe's stages). */
static void
print_stages (FILE *to, JsonObject *target)
{
  JsonNode *n = json_object_get_member (target, "stages_ms");
  JsonObject *st = n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
  if (!st || isnan (figure (st, "getitem")))
    return;
  ls_i18n_print_label (to, "  ", _("inside its loader:"), 21);
  fprintf (to, _("per batch __getitem__ %.2f ms"), figure (st, "getitem"));
  if (!isnan (figure (target, "getitem_p50_ms")))
    fprintf (to, _(" (per sample p50 %.2f, p95 %.2f ms)"), figure (target, "getitem_p50_ms"),
             figure (target, "getitem_p95_ms"));
  fprintf (to, _(", collate_fn %.2f, hand-off %.2f"), figure (st, "collate"), figure (st, "handoff"));
  if (!isnan (figure (st, "pin")))
    fprintf (to, _(" (pin_memory() %.2f of it)"), figure (st, "pin"));
  fprintf (to, ", sampler %.3f", figure (st, "sampler"));
  double idle = figure (st, "idle");
  if (!isnan (idle))
    {
      /* (not fprintf: GCC 12 with -fsanitize=address,undefined at -O2
       * takes this call's translated format for a null one) */
      g_autofree char *text = g_strdup_printf (_(", workers idle %.2f"), idle);
      fputs (text, to);
    }
  fputs (" ms\n", to);
  double cpu = figure (target, "worker_cpu_ms"), wall = figure (target, "worker_busy_ms");
  if (!isnan (cpu) && wall > 0)
    {
      ls_i18n_print_label (to, "  ", _("workers' CPU:"), 21);
      fprintf (to, _("%.2f ms per batch against %.2f ms fetching it (%.0f %%; less: the workers waited for a core or "
                     "for I/O)\n"),
               cpu, wall, 100 * cpu / wall);
    }
}

void
ls_target_print (FILE *to, JsonObject *target)
{
  g_autofree char *name = shown (target, "name"), *sha = shown (target, "script_sha256");
  g_autofree char *python = shown (target, "python"), *torch = shown (target, "torch");
  ls_i18n_print_label (to, "  ", _("target:"), 21);
  fprintf (to, "%s (sha256 %s), Python %s, torch %s\n", name, sha, python, torch);
  if (json_object_has_member (target, "step_ms_p50"))
    {
      ls_i18n_print_label (to, "  ", _("script's step:"), 21);
      fprintf (to, _("p50 %.3f ms (the time between two next() calls), %.0f %% of the time\n"),
               json_object_get_double_member (target, "step_ms_p50"),
               json_object_get_double_member_with_default (target, "step_share", 0) * 100);
    }
  print_stages (to, target);
  if (json_object_has_member (target, "copy_note"))
    {
      g_autofree char *copy = shown (target, "copy_note");
      ls_i18n_print_label (to, "  ", _("copy to device:"), 21);
      fprintf (to, "%s\n", copy);
    }
  JsonArray *notes = json_object_has_member (target, "not_applied")
                         ? json_object_get_array_member (target, "not_applied") : NULL;
  for (guint i = 0; notes && i < json_array_get_length (notes); i++)
    {
      JsonNode *n = json_array_get_element (notes, i);
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
        continue;
      g_autofree char *note = ls_terminal_text (json_node_get_string (n));
      ls_i18n_print_label (to, "  ", _("not applied:"), 21);
      fprintf (to, "%s\n", note);
    }
  ls_target_ranks_print (to, target);
}
