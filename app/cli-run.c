#include "app/cli-run.h"

#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdio.h>

#include "app/run-options.h"
#include "app/run-summary.h"

static volatile sig_atomic_t interrupted;

static void
on_sigint (int sig)
{
  (void) sig;
  interrupted = 1;
}

int
ls_cli_run (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("- one measured run of the loader");
  g_autoptr (GError) error = NULL;
  ls_run_options opts;
  ls_run_config config;
  ls_run_result result;
  ls_error err = { 0 };
  int exit_code;

  ls_run_options_init (&opts);
  ls_run_options_add_to (&opts, context);
  g_option_context_set_summary (context,
                                "Loads --dataset with the given knobs, hands every batch to the consumer (--sink)\n"
                                "and measures throughput, the consumer's wait per batch, worker start-up,\n"
                                "memory of the runner and its workers, and CPU.\n"
                                "\n"
                                "Exit status: 0 the run finished, 1 it failed (the reason is printed),\n"
                                "2 bad usage or bad input.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "loadscope run: %s\n", error->message);
      ls_run_options_clear (&opts);
      return 2;
    }
  if (argc > 1)
    {
      fprintf (stderr, "loadscope run: unexpected argument '%s'\n", argv[1]);
      ls_run_options_clear (&opts);
      return 2;
    }
  if (!ls_run_options_resolve (&opts, &config, &error))
    {
      fprintf (stderr, "loadscope run: %s\n", error->message);
      ls_run_options_clear (&opts);
      return 2;
    }

  signal (SIGINT, on_sigint);
  config.interrupt = &interrupted;
  if (ls_run (&config, &result, &err) != LS_OK)
    {
      fprintf (stderr, "loadscope run: %s\n", err.message);
      ls_run_options_clear (&opts);
      return err.code == LS_ERR_INVALID || err.code == LS_ERR_NOT_FOUND || err.code == LS_ERR_UNSUPPORTED ? 2 : 1;
    }

  if (opts.json)
    {
      g_autoptr (JsonNode) node = ls_run_summary_json (&config, &result);
      g_autofree char *text = json_to_string (node, TRUE);
      printf ("%s\n", text);
    }
  else
    ls_run_summary_print (stdout, &config, &result);
  if (result.status != LS_RUN_DONE)
    fprintf (stderr, "loadscope run: %s\n", result.error);

  exit_code = result.status == LS_RUN_DONE ? 0 : 1;
  ls_run_result_clear (&result);
  ls_run_options_clear (&opts);
  return exit_code;
}
