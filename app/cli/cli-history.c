#include "app/cli/cli-history.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "app/cli/cli-store-status.h"
#include "app/cli/cli-terminal-text.h"
#include "app/core/summary-keys.h"
#include "app/core/terminal-text.h"
#include "app/store/store-query.h"
#include "app/target/target-kind.h"

/* The last part of a path written on Linux or Windows. */
static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/'), *back = strrchr (path, '\\');
  const char *last = slash > back ? slash : back;
  return last && last[1] ? last + 1 : path;
}

/* At most `width` display columns of text, "..." ending what was cut
 * (whole characters: a wide one counts 2). */
static char *
fit (const char *text, int width)
{
  if (!g_utf8_validate (text, -1, NULL))
    return (int) strlen (text) <= width ? g_strdup (text) : g_strdup_printf ("%.*s...", width - 3, text);
  if ((int) ls_i18n_display_width (text) <= width)
    return g_strdup (text);
  int used = 0;
  const char *p = text;
  while (*p)
    {
      gunichar c = g_utf8_get_char (p);
      int w = g_unichar_iszerowidth (c) ? 0 : g_unichar_iswide (c) ? 2 : 1;
      if (used + w > width - 3)
        break;
      used += w;
      p = g_utf8_next_char (p);
    }
  return g_strdup_printf ("%.*s...", (int) (p - text), text);
}

/* A knob column: "-" where the run has no value (the none sink has no pin
 * or model step) or where it means nothing (prefetch, persistence and the
 * start method with 0 workers). */
static char *
knob_cell (JsonObject *r, const char *column, gboolean needs_workers)
{
  JsonNode *n = json_object_get_member (r, column);
  if (!n || !JSON_NODE_HOLDS_VALUE (n) || (needs_workers && json_object_get_int_member (r, "workers") == 0))
    return g_strdup ("-");
  GType t = json_node_get_value_type (n);
  if (t == G_TYPE_BOOLEAN)
    return g_strdup (json_node_get_boolean (n) ? "on" : "off");
  if (t == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  if (t == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (n));
  return g_strdup_printf ("%g", json_node_get_double (n));
}

/* The table's columns: head, least width, left-aligned. A column is as
 * wide as its head in display columns, where that is wider (a translated
 * head); cells are padded in display columns too. */
#define N_COLUMNS 19
static const struct
{
  const char *head;
  int width;
  gboolean left;
} columns[N_COLUMNS] = {
  { N_("ID"), 5, TRUE },          { N_("DATE (UTC)"), 16, TRUE }, { N_("MACHINE"), 12, TRUE },
  { N_("DATASET"), 16, TRUE },    { N_("WRK"), 3, FALSE },        { N_("START"), 5, TRUE },
  { N_("BATCH"), 5, FALSE },      { N_("PF"), 2, FALSE },         { N_("PERS"), 4, TRUE },
  { N_("PIN"), 7, TRUE },         { N_("MODEL"), 5, FALSE },      { N_("SINK"), 5, TRUE },
  { N_("STATUS"), 11, TRUE },     { N_("IMG/S"), 8, FALSE },      { N_("WAIT P50"), 8, FALSE },
  { N_("WAIT P95"), 8, FALSE },   { N_("GPU %"), 5, FALSE },      { N_("PSS MB"), 7, FALSE },
  { N_("SWEEP"), 5, FALSE },
};

static void
put_row (const int *widths, const char *const *cells)
{
  for (int c = 0; c < N_COLUMNS; c++)
    {
      int pad = widths[c] - (int) ls_i18n_display_width (cells[c]);
      if (c)
        putchar (' ');
      for (int k = 0; !columns[c].left && k < pad; k++)
        putchar (' ');
      fputs (cells[c], stdout);
      /* the last column is right-aligned: no spaces end the line */
      for (int k = 0; columns[c].left && k < pad; k++)
        putchar (' ');
    }
  putchar ('\n');
}

static void
print_table (JsonArray *rows)
{
  gboolean any_simulated = FALSE;
  int widths[N_COLUMNS];
  const char *heads[N_COLUMNS];
  for (int c = 0; c < N_COLUMNS; c++)
    {
      heads[c] = _(columns[c].head);
      widths[c] = MAX (columns[c].width, (int) ls_i18n_display_width (heads[c]));
    }
  put_row (widths, heads);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);
      gboolean sim = json_object_get_boolean_member (r, "simulated");
      g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, json_object_get_int_member (r, "id"));
      g_autofree char *date = ls_store_time_short (json_object_get_string_member (r, "started_at"));
      /* Imported text may hold terminal escapes and newlines. */
      g_autofree char *shown = ls_run_machine_shown (r);
      g_autofree char *host = ls_cli_terminal_text (shown);
      g_autofree char *data = ls_cli_terminal_text (base_name (json_object_get_string_member (r, "dataset")));
      g_autofree char *machine = fit (host, 12);
      g_autofree char *dataset = fit (data, 16);
      g_autofree char *workers = knob_cell (r, "workers", FALSE);
      g_autofree char *start = knob_cell (r, "start", TRUE);
      g_autofree char *batch = knob_cell (r, "batch_size", FALSE);
      g_autofree char *prefetch = knob_cell (r, "prefetch", TRUE);
      g_autofree char *persistent = knob_cell (r, "persistent", TRUE);
      g_autofree char *pin = knob_cell (r, "pin", FALSE);
      g_autofree char *model = knob_cell (r, "model_ms", FALSE);
      g_autofree char *sweep = knob_cell (r, "sweep_id", FALSE);
      g_autofree char *sink = g_strdup_printf ("%s%s", json_object_get_string_member (r, "sink"), sim ? "*" : "");
      static const ls_run_figure throughput = { LS_KEY_THROUGHPUT, NULL, NULL, 1, 0 };
      static const ls_run_figure p50 = { "wait_p50_ms", NULL, NULL, 1, 3 };
      static const ls_run_figure p95 = { "wait_p95_ms", NULL, NULL, 1, 3 };
      static const ls_run_figure pss = { LS_KEY_PSS_PEAK, NULL, NULL, 1e-6, 1 };
      g_autofree char *t = ls_run_figure_text (r, &throughput);
      g_autofree char *w50 = ls_run_figure_text (r, &p50);
      g_autofree char *w95 = ls_run_figure_text (r, &p95);
      g_autofree char *m = ls_run_figure_text (r, &pss);
      char u[32] = "-";
      double util;

      /* Exact where the consumer measured it, else NVML's. */
      if (ls_json_number (r, LS_KEY_GPU_UTIL_EXACT, &util) || ls_json_number (r, LS_KEY_GPU_UTIL_NVML, &util))
        g_snprintf (u, sizeof u, "%.1f", util * 100);

      any_simulated |= sim;
      const char *cells[N_COLUMNS] = { id,         date,  machine, dataset, workers, start, batch,
                                       prefetch,   persistent, pin, model, sink,
                                       json_object_get_string_member (r, "status"), t, w50, w95, u, m, sweep };
      put_row (widths, cells);
    }
  if (any_simulated)
    printf (_("* simulated GPU: copy and model step are modelled, not measured on a device.\n"));
}

int
ls_cli_history (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- the recorded runs, newest first"));
  g_autoptr (GError) error = NULL;
  g_autofree char *db = NULL;
  g_autofree char *sweep = NULL;
  g_autofree char *target = NULL;
  gboolean json = FALSE;
  int limit = 0;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store (default: $XDG_DATA_HOME/loadscope/history.sqlite)"),
      N_("PATH") },
    { "sweep", 0, 0, G_OPTION_ARG_STRING, &sweep, N_("Only the runs of this sweep (id or uuid prefix)"), N_("ID") },
    { "limit", 0, 0, G_OPTION_ARG_INT, &limit, N_("At most N runs (default: all)"), "N" },
    { "target", 0, 0, G_OPTION_ARG_STRING, &target,
      N_("Only the runs of Loadscope's loader (loadscope) or of PyTorch scripts (pytorch)"), N_("KIND") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON array of runs"), NULL },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("One line per recorded run: id, date (UTC), machine, dataset, workers, start\n"
                                  "method, batch size, prefetch, persistent workers, pin mode, model step (ms),\n"
                                  "sink (sim* marks the simulated GPU), status, throughput, batch wait p50/p95\n"
                                  "(ms), GPU utilization (exact, else NVML), peak PSS and the sweep's id.\n"
                                  "(WRK workers, PF prefetch, PERS persistent workers, MODEL model step in ms;\n"
                                  "start, prefetch and persistence show - for runs without workers.)\n"
                                  "--target pytorch lists the runs of PyTorch scripts (--target pytorch runs;\n"
                                  "DATASET names the script), --target loadscope those of Loadscope's loader.\n"
                                  "\n"
                                  "Exit status: 0 listed, 1 the store could not be read now (locked), 2 bad usage, no such\n"
                                  "sweep, or no store there (not a Loadscope store, a newer one)."));
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    {
      fprintf (stderr, _("loadscope history: %s\n"), error->message);
      return 2;
    }
  if (argc > 1)
    {
      fprintf (stderr, _("loadscope history: unexpected argument '%s'\n"), argv[1]);
      return 2;
    }
  if (limit < 0)
    {
      fprintf (stderr, _("loadscope history: --limit %d: must not be negative\n"), limit);
      return 2;
    }
  if (target && !ls_target_kind_check (target, &error))
    {
      fprintf (stderr, _("loadscope history: %s\n"), error->message);
      return 2;
    }

  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  if (!store)
    {
      if (g_error_matches (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND) && !sweep)
        {
          if (json)
            printf ("[]\n");
          else
            printf (_("no runs recorded yet (%s)\n"), error->message);
          return 0;
        }
      fprintf (stderr, _("loadscope history: %s\n"), error->message);
      return ls_cli_store_error_status (error);
    }

  gint64 sweep_id = 0;
  if (sweep && (sweep_id = ls_store_find_sweep (store, sweep, &error)) < 0)
    {
      fprintf (stderr, _("loadscope history: %s\n"), error->message);
      return error->code == LS_STORE_ERROR_NOT_FOUND || error->code == LS_STORE_ERROR_INVALID ? 2 : 1;
    }
  /* --target: every run read, then filtered, so --limit counts the runs shown. */
  g_autoptr (JsonArray) rows = ls_store_history (store, sweep_id, target ? 0 : limit, &error);
  if (!rows)
    {
      fprintf (stderr, _("loadscope history: %s\n"), error->message);
      return 1;
    }
  if (target)
    {
      JsonArray *kept = ls_target_filter_runs (rows, target, (guint) limit);
      json_array_unref (rows);
      rows = kept;
    }

  if (json)
    {
      g_autoptr (JsonNode) root = json_node_init_array (json_node_alloc (), rows);
      g_autofree char *text = json_to_string (root, TRUE);
      g_autofree char *shown = ls_terminal_json (text);
      printf ("%s\n", shown);
      return 0;
    }
  if (json_array_get_length (rows) == 0)
    {
      printf (_("no runs recorded in %s%s%s%s\n"), ls_store_path (store), sweep ? _(" for this sweep") : "",
              target ? _(" with target ") : "", target ? target : "");
      return 0;
    }
  print_table (rows);
  return 0;
}
