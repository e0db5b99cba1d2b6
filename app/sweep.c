#include "app/sweep.h"

#include <gio/gio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app/store.h"
#include "app/sweep-grid.h"
#include "app/worker-path.h"

static volatile sig_atomic_t interrupted;
static volatile pid_t current_runner;

static void
on_signal (int sig)
{
  interrupted = 1;
  /* A runner outside our terminal's process group is told directly. */
  if (current_runner > 0)
    kill (current_runner, SIGINT);
  (void) sig;
}

void
ls_sweep_result_clear (ls_sweep_result *r)
{
  g_clear_pointer (&r->summaries, json_array_unref);
  g_clear_pointer (&r->store_path, g_free);
}

typedef struct {
  gboolean tty;
  guint index, total;
  const char *label;
  gint64 sweep_start_us;
  gint64 config_start_us;
  gint64 batches, planned;
} progress;

static void
show_progress (const progress *p)
{
  if (!p->tty)
    return;
  gint64 now = g_get_monotonic_time ();
  double elapsed = (now - p->sweep_start_us) / 1e6;
  double done = p->index - 1 + (p->planned > 0 ? (double) p->batches / (double) p->planned : 0);
  char eta[32] = "--";
  if (done > 0.2)
    {
      double left = elapsed / done * (p->total - done);
      g_snprintf (eta, sizeof eta, "%d:%02d", (int) left / 60, (int) left % 60);
    }
  fprintf (stderr, "\r\033[K[%u/%u] %s  batch %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "  %d:%02d elapsed, ETA %s",
           p->index, p->total, p->label, p->batches, p->planned, (int) elapsed / 60, (int) elapsed % 60, eta);
  fflush (stderr);
}

/* Runs one runner, following its events. Returns its summary (NULL when
 * it died without one) and its exit status. */
static JsonNode *
run_one (GPtrArray *argv, progress *p, int *exit_status, GError **error)
{
  g_autoptr (GSubprocess) proc = g_subprocess_newv ((const char *const *) argv->pdata, G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                                    error);
  JsonNode *summary = NULL;

  *exit_status = -1;
  if (!proc)
    return NULL;
  const char *id = g_subprocess_get_identifier (proc);
  current_runner = id ? (pid_t) atoi (id) : 0;
  g_autoptr (GDataInputStream) in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (proc));
  for (;;)
    {
      gsize len = 0;
      g_autofree char *line = g_data_input_stream_read_line_utf8 (in, &len, NULL, NULL);
      if (!line)
        break;
      g_autoptr (JsonParser) parser = json_parser_new ();
      if (!json_parser_load_from_data (parser, line, (gssize) len, NULL))
        continue;
      JsonNode *root = json_parser_get_root (parser);
      if (!JSON_NODE_HOLDS_OBJECT (root))
        continue;
      JsonObject *o = json_node_get_object (root);
      const char *event = json_object_get_string_member_with_default (o, "event", "");
      if (strcmp (event, "started") == 0)
        p->planned = json_object_get_int_member_with_default (o, "planned_batches", 0);
      else if (strcmp (event, "batch") == 0)
        {
          p->batches = json_object_get_int_member_with_default (o, "seq", 0) + 1;
          show_progress (p);
        }
      else if (strcmp (event, "finished") == 0 && json_object_has_member (o, "summary"))
        {
          g_clear_pointer (&summary, json_node_unref);
          summary = json_node_copy (json_object_get_member (o, "summary"));
        }
    }
  g_subprocess_wait (proc, NULL, NULL);
  current_runner = 0;
  if (g_subprocess_get_if_exited (proc))
    *exit_status = g_subprocess_get_exit_status (proc);
  else if (g_subprocess_get_if_signaled (proc))
    *exit_status = 128 + g_subprocess_get_term_sig (proc);
  return summary;
}

static double
member_double (JsonObject *o, const char *name, double fallback)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_double (n) : fallback;
}

void
ls_sweep_print_table (FILE *to, JsonArray *summaries)
{
  fprintf (to, "%-6s %-8s %-6s %-8s %-9s %-5s %9s %9s %9s %8s %9s %8s\n", "run", "workers", "start", "pin", "sink",
           "status", "img/s", "wait p50", "wait p95", "GPU", "peak PSS", "CPU");
  for (guint i = 0; i < json_array_get_length (summaries); i++)
    {
      JsonObject *o = json_array_get_object_element (summaries, i);
      JsonObject *wait = json_object_get_member (o, "batch_wait_ms") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "batch_wait_ms"))
                             ? json_object_get_object_member (o, "batch_wait_ms")
                             : NULL;
      JsonObject *mem = json_object_get_object_member (o, "memory");
      double util = member_double (o, "gpu_util_exact", -1);
      double pss = mem ? member_double (mem, "pss_peak_bytes", -1) : -1;
      if (pss < 0 && mem)
        pss = member_double (mem, "private_peak_bytes", -1);
      const char *pin = json_object_get_member (o, "pin") && !json_node_is_null (json_object_get_member (o, "pin"))
                            ? json_object_get_string_member (o, "pin")
                            : "-";
      g_autofree char *sink = g_strdup_printf ("%s%s", json_object_get_string_member_with_default (o, "sink", "?"),
                                               json_object_get_boolean_member_with_default (o, "simulated", FALSE) ? "*" : "");
      char util_text[16] = "-", pss_text[16] = "-";
      if (util >= 0)
        g_snprintf (util_text, sizeof util_text, "%.0f%%", util * 100);
      if (pss >= 0)
        g_snprintf (pss_text, sizeof pss_text, "%.0f MB", pss / 1e6);
      fprintf (to, "%-6" G_GINT64_FORMAT " %-8" G_GINT64_FORMAT " %-6s %-8s %-9s %-6s %9.0f %9.2f %9.2f %8s %9s %7.0f%%\n",
               json_object_get_int_member_with_default (o, "run_id", 0),
               json_object_get_int_member_with_default (o, "workers", 0),
               json_object_get_string_member_with_default (o, "start", "?"), pin, sink,
               json_object_get_string_member_with_default (o, "status", "?"), member_double (o, "throughput_sps", 0),
               wait ? member_double (wait, "p50", 0) : 0, wait ? member_double (wait, "p95", 0) : 0, util_text, pss_text,
               member_double (o, "cpu_percent", 0));
    }
  if (json_array_get_length (summaries) > 0)
    for (guint i = 0; i < json_array_get_length (summaries); i++)
      if (json_object_get_boolean_member_with_default (json_array_get_object_element (summaries, i), "simulated", FALSE))
        {
          fprintf (to, "* simulated GPU: copy and model step are modelled, not measured on a device.\n");
          break;
        }
}

int
ls_sweep_main (int argc, char **argv, ls_sweep_result *result)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("- run every combination of the knobs given as lists");
  g_autoptr (GError) error = NULL;
  char *values[LS_SWEEP_N_KNOBS] = { 0 };
  GOptionEntry entries[LS_SWEEP_N_KNOBS + 8];
  int repeat = 1;
  gboolean json = FALSE, no_db = FALSE, drop_last = FALSE, quiet = FALSE;
  char *db = NULL;
  int exit_code = 0;
  guint total = 1;
  g_autofree char *self = ls_self_exe_path ();
  g_autoptr (ls_sweep_grid) grid = NULL;
  g_autoptr (ls_store) store = NULL;

  memset (result, 0, sizeof *result);
  memset (entries, 0, sizeof entries);
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    entries[k] = (GOptionEntry){ ls_sweep_knobs[k].name, 0, 0, G_OPTION_ARG_STRING, &values[k],
                                 ls_sweep_knobs[k].help, ls_sweep_knobs[k].sweepable ? "A,B,..." : "VALUE" };
  entries[LS_SWEEP_N_KNOBS] = (GOptionEntry){ "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "Run every configuration R times", "R" };
  entries[LS_SWEEP_N_KNOBS + 1] = (GOptionEntry){ "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the summaries as a JSON array", NULL };
  entries[LS_SWEEP_N_KNOBS + 2] = (GOptionEntry){ "db", 0, 0, G_OPTION_ARG_FILENAME, &db, "The run store", "PATH" };
  entries[LS_SWEEP_N_KNOBS + 3] = (GOptionEntry){ "no-db", 0, 0, G_OPTION_ARG_NONE, &no_db, "Do not record the runs", NULL };
  entries[LS_SWEEP_N_KNOBS + 4] = (GOptionEntry){ "drop-last", 0, 0, G_OPTION_ARG_NONE, &drop_last, "Drop each epoch's last partial batch", NULL };
  entries[LS_SWEEP_N_KNOBS + 5] = (GOptionEntry){ "quiet", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &quiet, "No table", NULL };
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
                                "Any run knob (see `loadscope run --help`) may be a comma list; the sweep runs\n"
                                "their product, each configuration in its own runner process, and records every\n"
                                "run. Example:\n"
                                "  loadscope sweep --dataset D --workers 0,1,2,4 --pin off,staging --batches 40\n"
                                "\n"
                                "Ctrl-C stops after marking the current run interrupted.");

  char **args = g_memdup2 (argv, sizeof (char *) * (gsize) (argc + 1));
  if (!g_option_context_parse (context, &argc, &args, &error))
    {
      fprintf (stderr, "loadscope sweep: %s\n", error->message);
      g_free (args);
      exit_code = 2;
      goto out;
    }
  if (argc > 1)
    {
      fprintf (stderr, "loadscope sweep: unexpected argument '%s'\n", args[1]);
      g_free (args);
      exit_code = 2;
      goto out;
    }
  g_free (args);
  if (repeat < 1 || repeat > 1000)
    {
      fprintf (stderr, "loadscope sweep: --repeat %d: must be between 1 and 1000\n", repeat);
      exit_code = 2;
      goto out;
    }

  /* The grid, every configuration checked before anything runs. */
  grid = ls_sweep_grid_new ((const char *const *) values, drop_last, &error);
  if (!grid)
    {
      fprintf (stderr, "loadscope sweep: %s\n", error->message);
      exit_code = 2;
      goto out;
    }
  total = ls_sweep_grid_size (grid);

  /* The store and the sweep row. */
  if (!no_db)
    {
      store = ls_store_open (db, &error);
      gint64 machine = store ? ls_store_this_machine (store, NULL, NULL, &error) : -1;
      if (!store || machine < 0)
        {
          fprintf (stderr, "loadscope sweep: %s\n(use --no-db to sweep without recording)\n", error->message);
          exit_code = 1;
          goto out;
        }
      g_autofree char *grid_text = ls_sweep_grid_to_json (grid);
      result->sweep_id = ls_store_sweep_begin (store, machine, grid_text, (int) total, repeat, &error);
      if (result->sweep_id < 0)
        {
          fprintf (stderr, "loadscope sweep: %s\n", error->message);
          exit_code = 1;
          goto out;
        }
      result->store_path = g_strdup (ls_store_path (store));
    }

  signal (SIGINT, on_signal);
  signal (SIGTERM, on_signal);
  result->summaries = json_array_new ();
  progress p = { .tty = isatty (STDERR_FILENO), .total = total * (guint) repeat,
                 .sweep_start_us = g_get_monotonic_time () };
  for (guint r = 0, k = 0; r < (guint) repeat && !interrupted; r++)
    for (guint c = 0; c < total && !interrupted; c++, k++)
      {
        g_autofree char *label = ls_sweep_grid_label (grid, c);
        g_autoptr (GPtrArray) argv_run
            = ls_sweep_grid_runner_argv (grid, c, self, store ? ls_store_path (store) : NULL, result->sweep_id);
        p.index = k + 1;
        p.label = label;
        p.batches = p.planned = 0;
        p.config_start_us = g_get_monotonic_time ();
        if (!p.tty)
          fprintf (stderr, "[%u/%u] %s%s\n", p.index, p.total, label, repeat > 1 ? " (repeat)" : "");
        show_progress (&p);
        int status = -1;
        g_clear_error (&error);
        JsonNode *summary = run_one (argv_run, &p, &status, &error);
        if (p.tty)
          fprintf (stderr, "\r\033[K");
        if (summary)
          {
            JsonObject *o = json_node_get_object (summary);
            const char *st = json_object_get_string_member_with_default (o, "status", "failed");
            if (strcmp (st, "done") == 0)
              result->runs_done++;
            else
              result->runs_failed++;
            if (strcmp (st, "done") != 0)
              fprintf (stderr, "[%u/%u] %s: %s: %s\n", p.index, p.total, label, st,
                       json_object_get_string_member_with_default (o, "error", "?"));
            else if (p.tty)
              fprintf (stderr, "[%u/%u] %s: %.0f samples/s\n", p.index, p.total, label,
                       member_double (o, "throughput_sps", 0));
            json_array_add_element (result->summaries, summary);
          }
        else
          {
            result->runs_lost++;
            fprintf (stderr, "[%u/%u] %s: the runner ended without a summary (exit status %d)%s%s\n", p.index, p.total,
                     label, status, error ? ": " : "", error ? error->message : "");
            /* Its run, if recorded, is marked interrupted now, not on the next open. */
            if (store)
              ls_store_mark_dead_runs (store, NULL);
          }
      }
  signal (SIGINT, SIG_DFL);
  signal (SIGTERM, SIG_DFL);
  result->interrupted = interrupted != 0;
  if (store)
    ls_store_sweep_end (store, result->sweep_id, result->interrupted ? "interrupted" : "done", NULL, NULL);

  if (json)
    {
      g_autoptr (JsonNode) node = json_node_new (JSON_NODE_ARRAY);
      json_node_set_array (node, result->summaries);
      g_autofree char *text = json_to_string (node, TRUE);
      printf ("%s\n", text);
    }
  else if (!quiet)
    ls_sweep_print_table (stdout, result->summaries);
  if (!json && result->store_path)
    fprintf (stderr, "sweep %" G_GINT64_FORMAT ": %u done, %u failed, %u lost%s; recorded in %s\n", result->sweep_id,
             result->runs_done, result->runs_failed, result->runs_lost, result->interrupted ? ", interrupted" : "",
             result->store_path);
  exit_code = result->runs_failed || result->runs_lost || result->interrupted ? 1 : 0;

out:
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    g_free (values[k]);
  g_free (db);
  return exit_code;
}
