/* A sweep as text for a terminal: the progress line and the comparison
 * table (`loadscope sweep` and `demo`, app/cli/cli-sweep.c). */
#include "app/sweep/sweep-text.h"

#include <math.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/recommend.h"
#include "app/core/summary-keys.h"

/* The progress text: "[2/8] workers=1  batch 12/40  0:07 elapsed, ETA 0:21". */
char *
ls_sweep_progress_text (guint index, guint total, const char *label, gint64 batches, gint64 planned,
                        gboolean started, double elapsed_s)
{
  double done = index - 1 + (planned > 0 ? (double) MIN (batches, planned) / (double) planned : 0);
  char eta[32] = "--";
  if (done > 0.2)
    {
      double left = elapsed_s / done * (total - done);
      g_snprintf (eta, sizeof eta, "%d:%02d", (int) left / 60, (int) left % 60);
    }
  g_autofree char *where = !started ? g_strdup (_("starting\u2026"))
                           : planned > 0 ? g_strdup_printf (_("batch %lld/%lld"), (long long) batches, (long long) planned)
                                         : g_strdup_printf (_("batch %lld"), (long long) batches);
  return g_strdup_printf (_("[%u/%u] %s  %s  %d:%02d elapsed, ETA %s"), index, total, label, where, (int) elapsed_s / 60,
                          (int) elapsed_s % 60, eta);
}

/* A figure, or "-" where the run has none (failed, interrupted, no device). */
static void
figure_text (char *buf, gsize size, JsonObject *o, const char *name, int decimals, const char *suffix, double scale)
{
  double v = o ? ls_json_number_or (o, name, -1) : -1;
  if (v >= 0)
    g_snprintf (buf, size, "%.*f%s", decimals, v * scale, suffix);
  else
    g_strlcpy (buf, "-", size);
}

/* Pads TEXT to WIDTH terminal columns (wide CJK characters count 2), left
 * or right aligned: printf's widths count bytes. */
static void
put_cell (FILE *to, const char *text, int width, gboolean left)
{
  int pad = MAX (0, width - (int) ls_i18n_display_width (text));
  fprintf (to, "%*s%s%*s", left ? 0 : pad, "", text, left ? pad : 0, "");
}

/* The table's columns: their width (at least the header's) and alignment,
 * as the English format "%-5s %7s %-5s ..." had them. */
#define N_COLUMNS 15
static const struct
{
  const char *header;
  int width;
  gboolean left;
} columns[N_COLUMNS] = {
  { N_("run"), 5, TRUE },       { N_("workers"), 7, FALSE },  { N_("start"), 5, TRUE },    { N_("batch"), 5, FALSE },
  { N_("pf"), 3, FALSE },       { N_("pers"), 4, TRUE },      { N_("pin"), 7, TRUE },      { N_("sink"), 5, TRUE },
  { N_("status"), 11, TRUE },   { N_("img/s"), 9, FALSE },    { N_("wait p50"), 9, FALSE }, { N_("wait p95"), 9, FALSE },
  { N_("GPU"), 5, FALSE },      { N_("peak PSS"), 9, FALSE }, { N_("CPU"), 6, FALSE },
};

static void
put_row (FILE *to, const int *widths, const char *const *cells)
{
  for (int c = 0; c < N_COLUMNS; c++)
    {
      if (c)
        fputc (' ', to);
      put_cell (to, cells[c], widths[c], columns[c].left);
    }
  fputc ('\n', to);
}

void
ls_sweep_print_table (FILE *to, JsonArray *summaries)
{
  /* One layout for the header and every row, whatever the status: the
   * widest status ("interrupted") and "-" for absent figures. */
  int widths[N_COLUMNS];
  const char *headers[N_COLUMNS];
  for (int c = 0; c < N_COLUMNS; c++)
    {
      headers[c] = _(columns[c].header);
      widths[c] = MAX (columns[c].width, (int) ls_i18n_display_width (headers[c]));
    }
  put_row (to, widths, headers);
  gboolean any_simulated = FALSE;
  for (guint i = 0; i < json_array_get_length (summaries); i++)
    {
      JsonObject *o = json_array_get_object_element (summaries, i);
      JsonNode *w = json_object_get_member (o, LS_KEY_BATCH_WAIT_MS);
      JsonObject *wait = w && JSON_NODE_HOLDS_OBJECT (w) ? json_node_get_object (w) : NULL;
      JsonNode *m = json_object_get_member (o, "memory");
      JsonObject *mem = m && JSON_NODE_HOLDS_OBJECT (m) ? json_node_get_object (m) : NULL;
      gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
      gboolean sim = json_object_get_boolean_member_with_default (o, "simulated", FALSE);
      JsonNode *pin_node = json_object_get_member (o, "pin");
      const char *pin = pin_node && JSON_NODE_HOLDS_VALUE (pin_node) && json_node_get_value_type (pin_node) == G_TYPE_STRING
                            ? json_node_get_string (pin_node)
                            : "-";
      char id[24] = "-", workers_text[24], batch[24], prefetch[24], sink[24];
      char tput[32], p50[32], p95[32], util[32], pss[32], cpu[32];
      JsonNode *run_id = json_object_get_member (o, "run_id");
      if (run_id && JSON_NODE_HOLDS_VALUE (run_id))
        g_snprintf (id, sizeof id, "%" G_GINT64_FORMAT, json_node_get_int (run_id));
      g_snprintf (workers_text, sizeof workers_text, "%" G_GINT64_FORMAT, workers);
      g_snprintf (batch, sizeof batch, "%" G_GINT64_FORMAT, json_object_get_int_member_with_default (o, "batch_size", 0));
      /* Start method, prefetch and persistence mean nothing without workers. */
      if (workers > 0)
        g_snprintf (prefetch, sizeof prefetch, "%" G_GINT64_FORMAT, json_object_get_int_member_with_default (o, "prefetch", 0));
      else
        g_strlcpy (prefetch, "-", sizeof prefetch);
      g_snprintf (sink, sizeof sink, "%s%s", json_object_get_string_member_with_default (o, "sink", "?"), sim ? "*" : "");
      figure_text (tput, sizeof tput, o, LS_KEY_THROUGHPUT, 0, "", 1);
      figure_text (p50, sizeof p50, wait, "p50", 2, "", 1);
      figure_text (p95, sizeof p95, wait, "p95", 2, "", 1);
      figure_text (util, sizeof util, o, LS_KEY_GPU_UTIL_EXACT, 0, "%", 100);
      figure_text (pss, sizeof pss, mem, LS_KEY_PSS_PEAK, 0, " MB", 1e-6);
      if (strcmp (pss, "-") == 0)
        figure_text (pss, sizeof pss, mem, "private_peak_bytes", 0, " MB", 1e-6);
      figure_text (cpu, sizeof cpu, o, "cpu_percent", 0, "%", 1);
      any_simulated |= sim;
      const char *cells[N_COLUMNS] = {
        id, workers_text, workers > 0 ? json_object_get_string_member_with_default (o, "start", "?") : "-",
        batch, prefetch,
        workers > 0 ? (json_object_get_boolean_member_with_default (o, "persistent", FALSE) ? "on" : "off") : "-",
        pin, sink, json_object_get_string_member_with_default (o, "status", "?"), tput, p50, p95, util, pss, cpu,
      };
      put_row (to, widths, cells);
    }
  if (any_simulated)
    fprintf (to, "%s\n", _("* simulated GPU: copy and model step are modelled, not measured on a device."));
  ls_sweep_print_spread (to, summaries);
}

void
ls_sweep_print_spread (FILE *to, JsonArray *summaries)
{
  g_autoptr (GPtrArray) groups = ls_config_groups (summaries);
  gboolean any = FALSE;
  int width = 13;
  for (guint j = 0; j < groups->len; j++)
    {
      const ls_config_group *g = groups->pdata[j];
      any |= g->done > 1;
      width = MAX (width, (int) ls_i18n_display_width (g->label));
    }
  if (!any)
    return;
  const char *heads[5] = { _("configuration"), _("runs"), _("mean"), _("min-max"), _("spread") };
  const int head_widths[5] = { 0, 4, 9, 15, 7 };
  width = MAX (width, (int) ls_i18n_display_width (heads[0]));
  fprintf (to, "\n%s\n", _("Spread of repeats (throughput, samples/s):"));
  fputs ("  ", to);
  for (int c = 0; c < 5; c++)
    {
      put_cell (to, heads[c], c ? head_widths[c] : width, c == 0);
      fputs (c < 4 ? " " : "\n", to);
    }
  for (guint j = 0; j < groups->len; j++)
    {
      const ls_config_group *g = groups->pdata[j];
      const char *label = g->label[0] ? g->label : _("this configuration");
      if (!g->done)
        {
          fputs ("  ", to);
          put_cell (to, label, width, TRUE);
          fprintf (to, " %4u %9s %15s %7s\n", 0u, "-", "-", "-");
          continue;
        }
      char range[48], spread[24];
      g_snprintf (range, sizeof range, "%.0f-%.0f", g->min, g->max);
      if (g->done > 1 && g->mean > 0)
        g_snprintf (spread, sizeof spread, "%.0f %%", 100 * (g->max - g->min) / g->mean);
      else
        g_strlcpy (spread, "-", sizeof spread);
      fputs ("  ", to);
      put_cell (to, label, width, TRUE);
      fprintf (to, " %4u %9.0f %15s %7s\n", g->done, g->mean, range, spread);
    }
}

double
ls_sweep_parse_duration (const char *text)
{
  char *end = NULL;
  double v;
  if (!text || !*text)
    return -1;
  v = g_ascii_strtod (text, &end);
  if (end == text || !isfinite (v) || v <= 0)
    return -1;
  if (*end == '\0' || strcmp (end, "s") == 0)
    return v;
  if (strcmp (end, "m") == 0 || strcmp (end, "min") == 0)
    return v * 60;
  if (strcmp (end, "h") == 0)
    return v * 3600;
  return -1;
}

guint
ls_sweep_repeat_for_budget (const ls_sweep_request *request, double budget_s, guint cores)
{
  g_autoptr (ls_sweep_request) once = ls_sweep_request_copy (request);
  once->repeat = 1;
  double pass = ls_sweep_request_estimate_seconds (once, cores);
  if (pass <= 0)
    return 1;
  double r = floor (budget_s / pass);
  return (guint) CLAMP (r, 1, LS_SWEEP_BUDGET_REPEAT_MAX);
}
