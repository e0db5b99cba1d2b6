/* `loadscope sweep`: the knobs into an ls_sweep_request, LsSweepSession
 * (the one sweep engine, app/sweep/) in a main loop, and the terminal
 * output from its signals. `loadscope demo` runs its sweep through
 * ls_cli_sweep_run too. */
#include "app/cli/cli-sweep.h"
#include "app/cli/cli-args.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/summary-keys.h"
#include "app/core/terminal-text.h"
#include "app/core/verdict.h"
#include "app/core/run-options.h"
#include "app/sweep/sweep-session.h"
#include "app/sweep/sweep-text.h"
#include "app/slurm/slurm.h"
#include "platform/interrupt.h"

void
ls_cli_sweep_result_clear (ls_cli_sweep_result *r)
{
  g_clear_pointer (&r->summaries, json_array_unref);
  g_clear_pointer (&r->store_path, g_free);
}

/* The progress line (a terminal only) and every message of the sweep and
 * its runners share stderr: a message first ends the progress line with a
 * newline, so the two never run together. */
typedef struct {
  LsSweepSession *session;
  GMainLoop *loop;
  ls_cli_sweep_result *result;
  gboolean tty;
  guint repeat;
  guint index;
  gint64 sweep_start_us;
  gint64 batches, planned; /* planned 0: not known yet (the runner is starting) */
  gboolean started;        /* the runner said how many batches it plans */
  gboolean line_open;      /* a progress line is on the terminal, without its newline */
  gboolean interrupted;    /* Ctrl-C or SIGTERM */
  sig_atomic_t stops_seen; /* of the process's stops (platform/interrupt) */
  gboolean finished;
} driver;

static void
show_progress (driver *d)
{
  if (!d->tty)
    return;
  double elapsed = (g_get_monotonic_time () - d->sweep_start_us) / 1e6;
  g_autofree char *text
      = ls_sweep_progress_text (d->index, ls_sweep_session_get_total (d->session),
                                ls_sweep_session_get_configuration_label (d->session), d->batches, d->planned,
                                d->started, elapsed);
  fprintf (stderr, "\r\033[K%s", text);
  fflush (stderr);
  d->line_open = TRUE;
}

/* Removes the progress line (it is about to be replaced by a result). */
static void
progress_clear (driver *d)
{
  if (d->line_open)
    fprintf (stderr, "\r\033[K");
  d->line_open = FALSE;
}

static void
on_run_started (LsSweepSession *s, guint index, const char *label, driver *d)
{
  d->index = index;
  d->batches = d->planned = 0;
  d->started = FALSE;
  /* The label is the configuration's knobs as typed (workers=2 pin=off). */
  if (!d->tty && d->repeat > 1)
    fprintf (stderr, _("[%u/%u] %s (repeat)\n"), index, ls_sweep_session_get_total (s),
             ls_sweep_session_get_configuration_label (s));
  else if (!d->tty)
    fprintf (stderr, "[%u/%u] %s\n", index, ls_sweep_session_get_total (s), ls_sweep_session_get_configuration_label (s));
  show_progress (d);
}

static void
on_event (LsSweepSession *s, JsonObject *event, driver *d)
{
  const char *kind = json_object_get_string_member_with_default (event, "event", "");
  if (strcmp (kind, "started") == 0)
    {
      d->planned = json_object_get_int_member_with_default (event, "planned_batches", 0);
      d->started = TRUE;
      show_progress (d);
    }
  else if (strcmp (kind, "batch") == 0)
    {
      d->batches = json_object_get_int_member_with_default (event, "seq", 0) + 1;
      show_progress (d);
    }
}

/* The runner's stderr, a line of its own after the progress line (ended,
 * not erased). */
static void
on_output (LsSweepSession *s, const char *line, driver *d)
{
  if (d->line_open)
    fputc ('\n', stderr);
  d->line_open = FALSE;
  fprintf (stderr, "%s\n", line);
  fflush (stderr);
}

static void
on_run_finished (LsSweepSession *s, guint index, JsonObject *summary, driver *d)
{
  ls_cli_sweep_result *result = d->result;
  guint total = ls_sweep_session_get_total (s);
  const char *label = ls_sweep_session_get_configuration_label (s);

  progress_clear (d);
  if (summary)
    {
      const char *st = json_object_get_string_member_with_default (summary, "status", "failed");
      if (strcmp (st, "done") == 0)
        result->runs_done++;
      else
        result->runs_failed++;
      if (strcmp (st, "done") != 0)
        {
          /* The script's own text: it may hold terminal escapes. The
           * status and the error are the summary's, as recorded (English). */
          g_autofree char *why = ls_terminal_text (json_object_get_string_member_with_default (summary, "error", "?"));
          g_autofree char *status = ls_terminal_text (st);
          fprintf (stderr, "[%u/%u] %s: %s: %s\n", index, total, label, status, why);
        }
      else if (d->tty)
        fprintf (stderr, _("[%u/%u] %s: %.0f samples/s\n"), index, total, label,
                 ls_json_number_or (summary, LS_KEY_THROUGHPUT, 0));
    }
  else if (ls_sweep_session_get_failure (s))
    {
      /* Bad input: the runner said why (above); the rest would say it too. */
      result->refused = TRUE;
      fprintf (stderr, _("[%u/%u] %s: the runner refused its input (exit status 2); the sweep stops here\n"), index,
               total, label);
    }
  else
    {
      /* Its run, if recorded, is marked interrupted by the session. */
      result->runs_lost++;
      fprintf (stderr, _("[%u/%u] %s: the runner ended without a summary (exit status %d)\n"), index, total, label,
               ls_sweep_session_get_exit_status (s));
    }
}

static void
on_finished (LsSweepSession *s, gboolean cancelled, driver *d)
{
  d->finished = TRUE;
  d->interrupted |= cancelled;
  g_main_loop_quit (d->loop);
}

/* Ctrl-C reaches the runner too when it shares our terminal; one outside
 * our process group is told by the session (SIGINT; on Windows its named
 * event). Either way it ends its run as interrupted, recorded with its
 * figures, and no more start. The stops are counted by platform/interrupt
 * (a signal handler, or the console's thread on Windows) and looked at
 * here, on the main loop. */
static volatile sig_atomic_t stops;

static gboolean
on_stop_tick (gpointer user_data)
{
  driver *d = user_data;
  if (stops > d->stops_seen)
    {
      d->stops_seen = stops;
      d->interrupted = TRUE;
      ls_sweep_session_cancel (d->session);
    }
  return G_SOURCE_CONTINUE;
}

int
ls_cli_sweep_run (const ls_sweep_request *request, ls_cli_sweep_flags flags, ls_cli_sweep_result *result)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LsSweepSession) session = ls_sweep_session_new (request);
  driver d = { .session = session, .result = result, .tty = isatty (STDERR_FILENO), .repeat = request->repeat };

  memset (result, 0, sizeof *result);
  g_signal_connect (session, "run-started", G_CALLBACK (on_run_started), &d);
  g_signal_connect (session, "event", G_CALLBACK (on_event), &d);
  g_signal_connect (session, "output", G_CALLBACK (on_output), &d);
  g_signal_connect (session, "run-finished", G_CALLBACK (on_run_finished), &d);
  g_signal_connect (session, "finished", G_CALLBACK (on_finished), &d);

  d.loop = g_main_loop_new (NULL, FALSE);
  stops = 0;
  ls_interrupt_listen (&stops, LS_INTERRUPT_COUNT, NULL);
  guint stop_tick = g_timeout_add (100, on_stop_tick, &d);
  d.sweep_start_us = g_get_monotonic_time ();
  gboolean started = ls_sweep_session_start (session, &error);
  if (started)
    {
      result->summaries = json_array_ref (ls_sweep_session_get_summaries (session));
      result->sweep_id = ls_sweep_session_get_sweep_id (session);
      result->store_path = g_strdup (ls_sweep_session_get_store_path (session));
      if (!d.finished)
        g_main_loop_run (d.loop);
    }
  g_source_remove (stop_tick);
  on_stop_tick (&d); /* a stop that came after the last tick still counts */
  ls_interrupt_stop ();
  g_signal_handlers_disconnect_by_data (session, &d);
  g_main_loop_unref (d.loop);
  if (!started)
    {
      if (error->domain == LS_SWEEP_ERROR)
        {
          fprintf (stderr, "loadscope sweep: %s\n", error->message);
          return 2;
        }
      /* The store could not be opened, or not written. */
      fprintf (stderr, "loadscope sweep: %s\n%s", error->message,
               ls_sweep_session_get_store_path (session) ? "" : _("(use --no-db to sweep without recording)\n"));
      return 1;
    }
  progress_clear (&d);
  result->interrupted = d.interrupted;

  if (flags & LS_CLI_SWEEP_JSON)
    {
      g_autoptr (JsonNode) node = json_node_new (JSON_NODE_ARRAY);
      json_node_set_array (node, result->summaries);
      g_autofree char *text = json_to_string (node, TRUE);
      g_autofree char *shown = ls_terminal_json (text);
      printf ("%s\n", shown);
    }
  else if (!(flags & LS_CLI_SWEEP_QUIET) && !(result->refused && json_array_get_length (result->summaries) == 0))
    {
      ls_sweep_print_table (stdout, result->summaries);
      printf ("\n");
      ls_verdict verdict;
      ls_verdict_for_sweep (result->summaries, 0, &verdict);
      ls_verdict_print (stdout, &verdict);
      ls_verdict_clear (&verdict);
    }
  if (!(flags & LS_CLI_SWEEP_JSON) && result->store_path)
    fprintf (stderr,
             result->interrupted ? _("sweep %lld: %u done, %u failed, %u lost, interrupted; recorded in %s\n")
                                 : _("sweep %lld: %u done, %u failed, %u lost; recorded in %s\n"),
             (long long) result->sweep_id, result->runs_done, result->runs_failed, result->runs_lost,
             result->store_path);
  return result->refused ? 2 : result->runs_failed || result->runs_lost || result->interrupted ? 1 : 0;
}

int
ls_cli_sweep (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- run every combination of the knobs given as lists"));
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_sweep_request) request = ls_sweep_request_new ();
  char *values[LS_SWEEP_N_KNOBS] = { 0 };
  GOptionEntry entries[LS_SWEEP_N_KNOBS + 9];
  int repeat = 0;
  char *time_budget = NULL;
  gboolean json = FALSE, no_db = FALSE, drop_last = FALSE, quiet = FALSE;
  char *db = NULL, *on = NULL;
  ls_slurm_options slurm = { 0 };
  int exit_code = 2;

  memset (entries, 0, sizeof entries);
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    entries[k] = (GOptionEntry){ ls_sweep_knobs[k].name, 0, 0, G_OPTION_ARG_STRING, &values[k],
                                 ls_sweep_knobs[k].help, ls_sweep_knobs[k].sweepable ? "A,B,..." : "VALUE" };
  entries[LS_SWEEP_N_KNOBS] = (GOptionEntry){ "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, N_("Run every configuration R times (default: 1, or as many as --time-budget allows)"), "R" };
  entries[LS_SWEEP_N_KNOBS + 6] = (GOptionEntry){ "time-budget", 0, 0, G_OPTION_ARG_STRING, &time_budget, N_("Repeat every configuration as often as fits in this time (e.g. 120s, 5m), 1 to 5 times, from the sweep's estimate (needs --batches)"), N_("TIME") };
  entries[LS_SWEEP_N_KNOBS + 1] = (GOptionEntry){ "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the summaries as a JSON array"), NULL };
  entries[LS_SWEEP_N_KNOBS + 2] = (GOptionEntry){ "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store"), N_("PATH") };
  entries[LS_SWEEP_N_KNOBS + 3] = (GOptionEntry){ "no-db", 0, 0, G_OPTION_ARG_NONE, &no_db, N_("Do not record the runs"), NULL };
  entries[LS_SWEEP_N_KNOBS + 4] = (GOptionEntry){ "drop-last", 0, 0, G_OPTION_ARG_NONE, &drop_last, N_("Drop each epoch's last partial batch"), NULL };
  entries[LS_SWEEP_N_KNOBS + 7] = (GOptionEntry){ "on", 0, 0, G_OPTION_ARG_STRING, &on, N_("Run on a target machine: ssh:HOST or exec:COMMAND (see `loadscope remote --help`); recorded here with its machine"), "TARGET" };
  entries[LS_SWEEP_N_KNOBS + 5] = (GOptionEntry){ "quiet", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &quiet, "No table", NULL };
  /* The entries through the catalogue: this file's and the knobs' own
   * help (app/core/sweep-grid.c) are marked N_; value lists stay as typed. */
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_group (context, ls_slurm_option_group (&slurm));
  g_autofree char *defaults = ls_run_defaults_text ();
  g_autofree char *summary = g_strdup_printf (
    _("Any run knob (see `loadscope run --help`) may be a comma list; the sweep runs\n"
      "their product, each configuration in its own runner process, and records every\n"
      "run. Example:\n"
      "  loadscope sweep --dataset D --workers 0,1,2,4 --pin off,staging --batches 40\n"
      "\n"
      "Knobs not given take the defaults of every run (the same in `run`, `demo` and\n"
      "the window): workers %d, %s.\n"
      "After the table come the spread of repeated configurations, the\n"
      "recommendation and the verdict (the limiting stage and the knob to turn),\n"
      "also as a PyTorch DataLoader call.\n"
      "\n"
      "--repeat R runs the whole grid R times; --time-budget T picks R (1 to 5)\n"
      "from the sweep's estimate; neither: once.\n"
      "\n"
      "Ctrl-C stops after marking the current run interrupted.\n"
      "\n"
      "--slurm runs the grid as a Slurm job array, one task per configuration,\n"
      "and merges the tasks' stores into the history (--help-slurm)."),
    LS_RUN_DEFAULT_WORKERS, defaults);
  g_option_context_set_summary (context, summary);

  char **args = argv;
  if (!ls_cli_parse_args (context, &argc, &args, &error))
    {
      fprintf (stderr, "loadscope sweep: %s\n", error->message);
      goto out;
    }
  if (argc > 1)
    {
      fprintf (stderr, _("loadscope sweep: unexpected argument '%s'\n"), args[1]);
      goto out;
    }
  if (repeat != 0 && time_budget)
    {
      fprintf (stderr, "%s\n", _("loadscope sweep: --repeat and --time-budget: give one of them"));
      goto out;
    }
  if (repeat == 0)
    repeat = 1;
  if (repeat < 1 || repeat > LS_SWEEP_REPEAT_MAX)
    {
      fprintf (stderr, _("loadscope sweep: --repeat %d: must be between 1 and %d\n"), repeat, LS_SWEEP_REPEAT_MAX);
      goto out;
    }

  /* The lists as typed; every configuration is checked before anything runs. */
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (values[k] && !ls_sweep_request_set_text (request, ls_sweep_knobs[k].name, values[k], &error))
      {
        fprintf (stderr, "loadscope sweep: %s\n", error->message);
        goto out;
      }
  request->repeat = (guint) repeat;
  if (time_budget)
    {
      double budget_s = ls_sweep_parse_duration (time_budget);
      if (budget_s <= 0)
        {
          fprintf (stderr, _("loadscope sweep: --time-budget %s: give a duration such as 90s, 5m or 1h\n"), time_budget);
          goto out;
        }
      request->repeat = ls_sweep_repeat_for_budget (request, budget_s, g_get_num_processors ());
      fprintf (stderr,
               ngettext ("loadscope sweep: --time-budget %s: every configuration %u time\n",
                         "loadscope sweep: --time-budget %s: every configuration %u times\n", request->repeat),
               time_budget, request->repeat);
    }
  request->drop_last = drop_last;
  request->no_db = no_db;
  request->db = g_strdup (db);
  request->on = g_strdup (on);
  if (ls_slurm_options_active (&slurm))
    {
      /* --slurm: the grid as a job array (app/slurm/); --slurm-collect RUNDIR. */
      exit_code = ls_slurm_main (request, &slurm, db);
      goto out;
    }

  ls_cli_sweep_result result;
  exit_code = ls_cli_sweep_run (request, (json ? LS_CLI_SWEEP_JSON : 0) | (quiet ? LS_CLI_SWEEP_QUIET : 0), &result);
  ls_cli_sweep_result_clear (&result);

out:
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    g_free (values[k]);
  g_free (db);
  g_free (on);
  g_free (time_budget);
  ls_slurm_options_clear (&slurm);
  return exit_code;
}
