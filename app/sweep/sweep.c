#include "app/sweep/sweep.h"

#include <gio/gio.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app/core/recommend.h"
#include "app/core/run-options.h"
#include "app/store/store.h"
#include "app/core/sweep-grid.h"
#include "app/core/worker-path.h"

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

/* The progress line (a terminal only) and every message of the sweep and
 * its runners share stderr: a message first ends the progress line with a
 * newline, so the two never run together. The runners' stderr comes
 * through relay_stderr on its own thread, hence the lock. */
typedef struct {
  gboolean tty;
  guint index, total;
  const char *label;
  gint64 sweep_start_us;
  gint64 config_start_us;
  gint64 batches, planned; /* planned 0: not known yet (the runner is starting) */
  gboolean started;        /* the runner said how many batches it plans */
  gboolean line_open;      /* a progress line is on the terminal, without its newline */
  GMutex lock;
} progress;

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
  g_autofree char *where = !started ? g_strdup ("starting\u2026")
                           : planned > 0 ? g_strdup_printf ("batch %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, batches, planned)
                                         : g_strdup_printf ("batch %" G_GINT64_FORMAT, batches);
  return g_strdup_printf ("[%u/%u] %s  %s  %d:%02d elapsed, ETA %s", index, total, label, where, (int) elapsed_s / 60,
                          (int) elapsed_s % 60, eta);
}

static void
show_progress (progress *p)
{
  if (!p->tty)
    return;
  double elapsed = (g_get_monotonic_time () - p->sweep_start_us) / 1e6;
  g_autofree char *text = ls_sweep_progress_text (p->index, p->total, p->label, p->batches, p->planned, p->started,
                                                  elapsed);
  g_mutex_lock (&p->lock);
  fprintf (stderr, "\r\033[K%s", text);
  fflush (stderr);
  p->line_open = TRUE;
  g_mutex_unlock (&p->lock);
}

/* Removes the progress line (it is about to be replaced by a result). */
static void
progress_clear (progress *p)
{
  g_mutex_lock (&p->lock);
  if (p->line_open)
    fprintf (stderr, "\r\033[K");
  p->line_open = FALSE;
  g_mutex_unlock (&p->lock);
}

static void
progress_message (progress *p, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* A line of its own, after the progress line (ended, not erased). */
static void
progress_message (progress *p, const char *format, ...)
{
  va_list ap;
  g_mutex_lock (&p->lock);
  if (p->line_open)
    fputc ('\n', stderr);
  p->line_open = FALSE;
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fflush (stderr);
  g_mutex_unlock (&p->lock);
}

typedef struct {
  progress *p;
  GInputStream *in;
  GCancellable *cancel;
  GMutex lock;
  GCond cond;
  gboolean done;
} relay;

/* The runner's stderr, line by line, below the progress line. */
static gpointer
relay_stderr (gpointer data)
{
  relay *r = data;
  g_autoptr (GDataInputStream) in = g_data_input_stream_new (r->in);
  for (;;)
    {
      gsize len = 0;
      g_autofree char *line = g_data_input_stream_read_line (in, &len, r->cancel, NULL);
      if (!line)
        break;
      progress_message (r->p, "%s\n", line);
    }
  g_mutex_lock (&r->lock);
  r->done = TRUE;
  g_cond_signal (&r->cond);
  g_mutex_unlock (&r->lock);
  return NULL;
}

/* Runs one runner, following its events. Returns its summary (NULL when
 * it died without one) and its exit status. */
static JsonNode *
run_one (GPtrArray *argv, progress *p, int *exit_status, GError **error)
{
  g_autoptr (GSubprocess) proc = g_subprocess_newv (
      (const char *const *) argv->pdata, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, error);
  JsonNode *summary = NULL;

  *exit_status = -1;
  if (!proc)
    return NULL;
  const char *id = g_subprocess_get_identifier (proc);
  current_runner = id ? (pid_t) atoi (id) : 0;
  relay r = { .p = p, .in = g_subprocess_get_stderr_pipe (proc), .cancel = g_cancellable_new () };
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  GThread *relay_thread = g_thread_new ("runner-stderr", relay_stderr, &r);
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
        {
          p->planned = json_object_get_int_member_with_default (o, "planned_batches", 0);
          p->started = TRUE;
          show_progress (p);
        }
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
  /* What the runner wrote last is in the pipe; a worker it left behind
   * may hold the pipe open, so do not wait for its end forever. */
  gint64 deadline = g_get_monotonic_time () + G_TIME_SPAN_SECOND;
  g_mutex_lock (&r.lock);
  while (!r.done && g_cond_wait_until (&r.cond, &r.lock, deadline))
    ;
  g_mutex_unlock (&r.lock);
  g_cancellable_cancel (r.cancel);
  g_thread_join (relay_thread);
  g_object_unref (r.cancel);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
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

/* A figure, or "-" where the run has none (failed, interrupted, no device). */
static void
figure_text (char *buf, gsize size, JsonObject *o, const char *name, int decimals, const char *suffix, double scale)
{
  double v = o ? member_double (o, name, -1) : -1;
  if (v >= 0)
    g_snprintf (buf, size, "%.*f%s", decimals, v * scale, suffix);
  else
    g_strlcpy (buf, "-", size);
}

void
ls_sweep_print_table (FILE *to, JsonArray *summaries)
{
  /* One format for the header and every row, whatever the status: the
   * widest status ("interrupted") and "-" for absent figures. */
#define ROW "%-5s %7s %-5s %5s %3s %-4s %-7s %-5s %-11s %9s %9s %9s %5s %9s %6s\n"
  fprintf (to, ROW, "run", "workers", "start", "batch", "pf", "pers", "pin", "sink", "status", "img/s", "wait p50",
           "wait p95", "GPU", "peak PSS", "CPU");
  gboolean any_simulated = FALSE;
  for (guint i = 0; i < json_array_get_length (summaries); i++)
    {
      JsonObject *o = json_array_get_object_element (summaries, i);
      JsonNode *w = json_object_get_member (o, "batch_wait_ms");
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
      figure_text (tput, sizeof tput, o, "throughput_sps", 0, "", 1);
      figure_text (p50, sizeof p50, wait, "p50", 2, "", 1);
      figure_text (p95, sizeof p95, wait, "p95", 2, "", 1);
      figure_text (util, sizeof util, o, "gpu_util_exact", 0, "%", 100);
      figure_text (pss, sizeof pss, mem, "pss_peak_bytes", 0, " MB", 1e-6);
      if (strcmp (pss, "-") == 0)
        figure_text (pss, sizeof pss, mem, "private_peak_bytes", 0, " MB", 1e-6);
      figure_text (cpu, sizeof cpu, o, "cpu_percent", 0, "%", 1);
      any_simulated |= sim;
      fprintf (to, ROW, id, workers_text, workers > 0 ? json_object_get_string_member_with_default (o, "start", "?") : "-",
               batch, prefetch,
               workers > 0 ? (json_object_get_boolean_member_with_default (o, "persistent", FALSE) ? "on" : "off") : "-",
               pin, sink, json_object_get_string_member_with_default (o, "status", "?"), tput, p50, p95, util, pss, cpu);
    }
#undef ROW
  if (any_simulated)
    fprintf (to, "* simulated GPU: copy and model step are modelled, not measured on a device.\n");
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
                                "Knobs not given take the defaults of every run (the same in `run`, `demo` and\n"
                                "the window): workers " G_STRINGIFY (LS_RUN_DEFAULT_WORKERS) ", " LS_RUN_DEFAULTS_TEXT ".\n"
                                "After the table comes a recommendation, also as a PyTorch DataLoader call.\n"
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
  g_mutex_init (&p.lock);
  for (guint r = 0, k = 0; r < (guint) repeat && !interrupted && !result->refused; r++)
    for (guint c = 0; c < total && !interrupted && !result->refused; c++, k++)
      {
        g_autofree char *label = ls_sweep_grid_label (grid, c);
        g_autoptr (GPtrArray) argv_run
            = ls_sweep_grid_runner_argv (grid, c, self, store ? ls_store_path (store) : NULL, result->sweep_id);
        p.index = k + 1;
        p.label = label;
        p.batches = p.planned = 0;
        p.started = FALSE;
        p.config_start_us = g_get_monotonic_time ();
        if (!p.tty)
          fprintf (stderr, "[%u/%u] %s%s\n", p.index, p.total, label, repeat > 1 ? " (repeat)" : "");
        show_progress (&p);
        int status = -1;
        g_clear_error (&error);
        JsonNode *summary = run_one (argv_run, &p, &status, &error);
        progress_clear (&p);
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
        else if (status == 2 && !interrupted)
          {
            /* Bad input: the runner said why (above); the rest would say it too. */
            result->refused = TRUE;
            fprintf (stderr, "[%u/%u] %s: the runner refused its input (exit status 2); the sweep stops here\n",
                     p.index, p.total, label);
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
  progress_clear (&p);
  g_mutex_clear (&p.lock);
  result->interrupted = interrupted != 0;
  if (store)
    ls_store_sweep_end (store, result->sweep_id,
                        result->refused ? "failed" : result->interrupted ? "interrupted" : "done",
                        result->refused ? "a runner refused its input (exit status 2)" : NULL, NULL);

  if (json)
    {
      g_autoptr (JsonNode) node = json_node_new (JSON_NODE_ARRAY);
      json_node_set_array (node, result->summaries);
      g_autofree char *text = json_to_string (node, TRUE);
      printf ("%s\n", text);
    }
  else if (!quiet && !(result->refused && json_array_get_length (result->summaries) == 0))
    {
      ls_sweep_print_table (stdout, result->summaries);
      printf ("\n");
      ls_recommend_print (stdout, result->summaries);
    }
  if (!json && result->store_path)
    fprintf (stderr, "sweep %" G_GINT64_FORMAT ": %u done, %u failed, %u lost%s; recorded in %s\n", result->sweep_id,
             result->runs_done, result->runs_failed, result->runs_lost, result->interrupted ? ", interrupted" : "",
             result->store_path);
  exit_code = result->refused ? 2 : result->runs_failed || result->runs_lost || result->interrupted ? 1 : 0;

out:
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    g_free (values[k]);
  g_free (db);
  return exit_code;
}
