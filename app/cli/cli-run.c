#include "app/cli/cli-run.h"
#include "app/cli/cli-args.h"

#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#ifdef G_OS_UNIX
#include <unistd.h>
#endif

#include "app/core/machine-busy.h"
#include "app/core/run-events.h"
#include "app/remote/remote.h"
#include "app/core/error-bridge.h"
#include "app/core/i18n.h"
#include "app/core/run-diagnose.h"
#include "app/core/run-options.h"
#include "app/core/run-summary.h"
#include "app/core/terminal-text.h"
#include "app/core/verdict.h"
#include "app/store/run-recorder.h"
#include "app/store/store.h"
#include "app/target/target-diagnose.h"
#include "app/target/target-pytorch.h"
#include "app/target/target-summary.h"
#include "platform/interrupt.h"
#include "platform/process.h"

/* The first Ctrl-C (SIGTERM, a stop from a sweep or the window): stop
 * cleanly, the run recorded with what was measured. The second: stop now;
 * the store keeps what was committed (SQLite transactions) and the run,
 * left `running`, is marked interrupted by the sweep or the store's next
 * open. */
static volatile sig_atomic_t interrupted;

/* An error on stderr: it may name a dataset file or quote the script, and
 * either may hold terminal escapes. */
static void
say (const char *message)
{
  g_autofree char *shown = ls_terminal_text (message);
  fprintf (stderr, _("loadscope run: %s\n"), shown);
}

static void
install_interrupt_handlers (void)
{
  ls_interrupt_listen (&interrupted, LS_INTERRUPT_SECOND_ENDS, NULL);
}

/* What the run's observers need: the store and the event stream. */
typedef struct {
  const ls_run_config *config;
  ls_store *store;
  gint64 machine_id;
  gint64 sweep_id;
  ls_run_recorder *recorder;
  ls_run_events *events;
  GError *store_error; /* the first failure to record; the run goes on */
} run_observer;

static uint64_t
planned_batches (const ls_run_config *c, const ls_run_result *r)
{
  uint64_t per_epoch = 0;
  if (c->pool.batch_size)
    per_epoch = c->pool.drop_last ? r->dataset_samples / c->pool.batch_size
                                  : (r->dataset_samples + c->pool.batch_size - 1) / c->pool.batch_size;
  uint64_t planned = c->pool.epochs ? per_epoch * c->pool.epochs : UINT64_MAX;
  if (c->max_batches && c->max_batches < planned)
    planned = c->max_batches;
  return planned;
}

static void
observe_started (void *user, const ls_run_result *so_far)
{
  run_observer *o = user;
  if (o->store)
    o->recorder = ls_run_recorder_begin (o->store, o->machine_id, o->sweep_id, o->config, so_far, &o->store_error);
  if (o->events)
    ls_run_events_started (o->events, so_far, o->recorder ? ls_run_recorder_id (o->recorder) : 0,
                           o->recorder ? ls_run_recorder_uuid (o->recorder) : NULL, planned_batches (o->config, so_far));
}

static void
observe_workers (void *user, const ls_worker_info *w, size_t n)
{
  run_observer *o = user;
  if (o->events)
    ls_run_events_workers (o->events, w, n);
}

static void
observe_batch (void *user, uint64_t seq, const ls_batch_record *b)
{
  run_observer *o = user;
  if (o->recorder)
    ls_run_recorder_batch (o->recorder, seq, b);
  if (o->events)
    ls_run_events_batch (o->events, seq, b);
}

static void
observe_memory (void *user, const ls_memory_point *p)
{
  run_observer *o = user;
  if (o->events)
    ls_run_events_memory (o->events, p);
}

/* run --diagnose: three runs of the knobs, not recorded (run-diagnose.h). */
static int
diagnose (const ls_run_options *opts, ls_run_config *config)
{
  g_autoptr (GError) error = NULL;
  ls_diagnose_result d;

  install_interrupt_handlers ();
  config->interrupt = &interrupted;
  gboolean set_up;
  if (ls_run_options_pytorch (opts))
    {
      ls_target_pytorch t = { opts->script, opts->python, opts->script_args, opts->loader,
                              ls_run_options_knobs_given (opts), 0, NULL, 0, 0, NULL };
      set_up = ls_target_pytorch_diagnose (&t, config, &d, &error);
    }
  else
    set_up = ls_run_diagnose (config, &d, &error);
  if (!set_up)
    {
      say (error->message);
      return error->domain == LS_LOADER_ERROR
                     && (error->code == LS_LOADER_ERROR_INVALID || error->code == LS_LOADER_ERROR_NOT_FOUND
                         || error->code == LS_LOADER_ERROR_UNSUPPORTED)
                 ? 2
                 : 1;
    }
  if (opts->json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "diagnose");
      json_builder_add_value (b, ls_diagnose_to_json (&d));
      json_builder_end_object (b);
      g_autoptr (JsonNode) root = json_builder_get_root (b);
      g_autofree char *text = json_to_string (root, TRUE);
      g_autofree char *shown = ls_terminal_json (text);
      printf ("%s\n", shown);
    }
  else
    ls_diagnose_print (stdout, config, &d);
  gboolean done = d.prepared.status == LS_RUN_DONE && d.warm.ran && d.warm.status == LS_RUN_DONE && d.cold.ran
                  && d.cold.status == LS_RUN_DONE;
  return done ? 0 : 1;
}

int
ls_cli_run (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- one measured run of the loader"));
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = NULL;
  ls_run_options opts;
  ls_run_config config;
  ls_run_result result;
  ls_error err = { 0 };
  run_observer obs = { 0 };
  int exit_code;

  /* --on TARGET: the run on another machine, followed from here (app/remote/). */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--on") == 0 || g_str_has_prefix (argv[i], "--on="))
      {
        const char *target = argv[i][4] == '=' ? argv[i] + 5 : i + 1 < argc ? argv[i + 1] : "";
        g_autoptr (GPtrArray) rest = g_ptr_array_new ();
        for (int j = 0; j < argc; j++)
          if (j != i && !(j == i + 1 && argv[i][4] != '='))
            g_ptr_array_add (rest, argv[j]);
        g_ptr_array_add (rest, NULL);
        return ls_remote_run_main (target, (int) rest->len - 1, (char **) rest->pdata);
      }
  /* A runner on a target: its input ending is the local side gone. */
  if (g_strcmp0 (g_getenv ("LOADSCOPE_STOP_ON_STDIN_EOF"), "1") == 0)
    ls_remote_stop_on_stdin_eof ();

  ls_run_options_init (&opts);
  ls_run_options_add_to (&opts, context);
  g_autofree char *defaults = ls_run_defaults_text ();
  g_autofree char *summary = g_strdup_printf (_("Loads --dataset with the given knobs, hands every batch to the consumer (--sink)\n"
                                                 "and measures throughput, the consumer's wait per batch, worker start-up,\n"
                                                 "memory of the runner and its workers, and CPU. The run is recorded in the\n"
                                                 "store (see `loadscope history`) unless --no-db.\n"
                                                 "\n"
                                                 "Defaults (the same for sweep, demo and the window): workers %d,\n%s.\n"
                                                 "\n"
                                                 "--on ssh:HOST or --on exec:COMMAND runs it on another machine and records it\n"
                                                 "here with that machine (see `loadscope remote --help`).\n"
                                                 "\n"
                                                 "Exit status: 0 the run finished, 1 it failed (the reason is printed),\n"
                                                 "2 bad usage or bad input."),
                                              LS_RUN_DEFAULT_WORKERS, defaults);
  g_option_context_set_summary (context, summary);
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    {
      say (error->message);
      ls_run_options_clear (&opts);
      return 2;
    }
  if (argc > 1)
    {
      fprintf (stderr, _("loadscope run: unexpected argument '%s'\n"), argv[1]);
      ls_run_options_clear (&opts);
      return 2;
    }
  if (!ls_run_options_resolve (&opts, &config, &error))
    {
      say (error->message);
      ls_run_options_clear (&opts);
      return 2;
    }
  if (opts.diagnose)
    {
      exit_code = diagnose (&opts, &config);
      ls_run_options_clear (&opts);
      return exit_code;
    }

  if (!opts.no_db)
    {
      store = ls_store_open (opts.db, &error);
      if (store)
        obs.machine_id = ls_store_this_machine (store, NULL, NULL, &error);
      if (!store || obs.machine_id < 0)
        {
          fprintf (stderr, _("loadscope run: %s\n(use --no-db to run without recording)\n"), error->message);
          ls_run_options_clear (&opts);
          return 1;
        }
    }
  if (opts.events && !(obs.events = ls_run_events_open (opts.events, &error)))
    {
      say (error->message);
      ls_run_options_clear (&opts);
      return 2;
    }
  obs.config = &config;
  obs.store = store;
  obs.sweep_id = opts.sweep_id;
  config.user = &obs;
  config.on_started = observe_started;
  config.on_workers = observe_workers;
  config.on_batch = observe_batch;
  config.on_memory = observe_memory;

  /* Ctrl-C and a polite kill end the run as interrupted, recorded as such. */
  install_interrupt_handlers ();
  /* A runner of a sweep (or of the window): Ctrl-C comes from the sweep. */
  if (opts.sweep_id > 0)
    ls_interrupt_from_driver_only ();
  config.interrupt = &interrupted;
  /* The machine's CPU around the run: what other processes used. */
  ls_machine_busy_mark busy;
  ls_machine_busy_begin (&busy);
  g_autoptr (JsonObject) target = NULL;
  if (ls_run_options_pytorch (&opts))
    {
      /* The user's script through the probe (app/target/target-pytorch.h). */
      ls_target_pytorch t = { opts.script, opts.python, opts.script_args, opts.loader,
                              ls_run_options_knobs_given (&opts), 0, NULL, opts.ranks, opts.threads,
                              opts.launcher };
      target = json_object_new ();
      if (!ls_target_pytorch_run (&t, &config, &result, target, &error))
        {
          say (error->message);
          if (obs.events)
            ls_run_events_error (obs.events, error->message);
          ls_run_events_close (obs.events);
          ls_run_options_clear (&opts);
          return 2;
        }
    }
  else if (ls_run (&config, &result, &err) != LS_OK)
    {
      say (err.message);
      if (obs.events)
        ls_run_events_error (obs.events, err.message);
      ls_run_events_close (obs.events);
      ls_run_options_clear (&opts);
      return err.code == LS_ERR_INVALID || err.code == LS_ERR_NOT_FOUND || err.code == LS_ERR_UNSUPPORTED ? 2 : 1;
    }

  g_autoptr (JsonNode) node = ls_run_summary_json (&config, &result);
  ls_machine_busy_add (&busy, &result, json_node_get_object (node));
  if (target)
    {
      json_object_set_object_member (json_node_get_object (node), "target", json_object_ref (target));
      ls_target_machine_busy (json_node_get_object (node), target);
      ls_target_summary_unknowns (json_node_get_object (node));
    }
  /* The verdict in the summary (the store, --json, --events, an export)
   * stays English whatever the locale; the one printed below is built
   * again in the user's language. */
  ls_verdict verdict;
  gboolean was_english = ls_i18n_set_english (TRUE);
  ls_verdict_for_run (json_node_get_object (node), 0, &verdict);
  ls_i18n_set_english (was_english);
  json_object_set_member (json_node_get_object (node), "verdict", ls_verdict_to_json (&verdict));
  if (obs.recorder)
    {
      json_object_set_int_member (json_node_get_object (node), "run_id", ls_run_recorder_id (obs.recorder));
      json_object_set_string_member (json_node_get_object (node), "run_uuid", ls_run_recorder_uuid (obs.recorder));
    }
  g_autofree char *text = json_to_string (node, TRUE);
  if (obs.recorder)
    {
      g_autofree char *compact = json_to_string (node, FALSE);
      if (!ls_run_recorder_finish (obs.recorder, &result, compact, obs.store_error ? NULL : &obs.store_error))
        obs.recorder = NULL;
    }
  if (obs.store_error)
    fprintf (stderr, _("loadscope run: the run could not be recorded: %s\n"), obs.store_error->message);

  if (obs.events)
    {
      if (result.status != LS_RUN_DONE)
        ls_run_events_error (obs.events, result.error);
      ls_run_events_finished (obs.events, node);
    }
  if (opts.json)
    {
      g_autofree char *shown = ls_terminal_json (text);
      printf ("%s\n", shown);
    }
  else if (!obs.events || strcmp (opts.events, "-") != 0)
    {
      ls_run_summary_print (stdout, &config, &result);
      if (target)
        ls_target_print (stdout, target);
      ls_verdict shown;
      ls_verdict_for_run (json_node_get_object (node), 0, &shown);
      ls_verdict_print (stdout, &shown);
      ls_verdict_clear (&shown);
    }
  ls_verdict_clear (&verdict);
  if (result.status != LS_RUN_DONE)
    {
      /* A script's own message (its exception) may hold escapes. */
      g_autofree char *shown = ls_terminal_text (result.error);
      fprintf (stderr, _("loadscope run: %s\n"), shown);
    }

  exit_code = result.status == LS_RUN_DONE ? 0 : 1;
  g_clear_error (&obs.store_error);
  ls_run_events_close (obs.events);
  ls_run_result_clear (&result);
  ls_run_options_clear (&opts);
  return exit_code;
}
