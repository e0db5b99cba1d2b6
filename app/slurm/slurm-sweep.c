/* `loadscope sweep --slurm`: the grid as a job array. Builds the plan from
 * the same grid a local sweep runs (app/core/sweep-grid.c: every
 * configuration checked before anything is written), prepares the run
 * folder (script, seed store with the sweep row, manifest), submits with
 * sbatch, follows with squeue/sacct/scontrol and collects when nothing is
 * left queued. `--slurm-collect RUNDIR` is the last step alone. */
#include "app/slurm/slurm.h"
#include "app/core/i18n.h"
#include "app/store/store-named.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>

#include "app/core/sweep-grid.h"
#include "app/core/terminal-text.h"
#include "app/core/worker-path.h"
#include "app/store/store-query.h"
#include "app/store/store.h"
#include "platform/interrupt.h"

/* Configuration c's knobs for `loadscope run`: the runner argv a local
 * sweep would use, without the program, "run" and what the script sets
 * itself (the store, the events). */
static GPtrArray *
task_args (const ls_sweep_grid *grid, guint c)
{
  g_autoptr (GPtrArray) argv = ls_sweep_grid_runner_argv (grid, c, "loadscope", NULL, 0);
  GPtrArray *args = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 2; i < argv->len && argv->pdata[i]; i++)
    {
      const char *a = argv->pdata[i];
      if (strcmp (a, "--no-db") == 0)
        continue;
      if (strcmp (a, "--events") == 0 && i + 1 < argv->len && g_strcmp0 (argv->pdata[i + 1], "-") == 0)
        {
          i++;
          continue;
        }
      g_ptr_array_add (args, g_strdup (a));
    }
  return args;
}

static char *
absolute (const char *path)
{
  return g_canonicalize_filename (path, NULL);
}

static char *
executable_path (const ls_sweep_request *request)
{
  if (!request->runner)
    return ls_self_exe_path ();
  if (strchr (request->runner, G_DIR_SEPARATOR))
    return absolute (request->runner);
  return g_find_program_in_path (request->runner);
}

static gboolean
write_manifest (const char *run_dir, const ls_slurm_plan *plan, const char *sweep_uuid, GPtrArray *jobs, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autofree char *now = ls_store_now ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, "loadscope-slurm");
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "written_at");
  json_builder_add_string_value (b, now);
  json_builder_set_member_name (b, "sweep_uuid");
  json_builder_add_string_value (b, sweep_uuid);
  json_builder_set_member_name (b, "executable");
  json_builder_add_string_value (b, plan->executable);
  json_builder_set_member_name (b, "configurations");
  json_builder_add_int_value (b, plan->configurations);
  json_builder_set_member_name (b, "tasks");
  json_builder_add_int_value (b, plan->tasks);
  json_builder_set_member_name (b, "labels");
  json_builder_begin_array (b);
  for (guint c = 0; c < plan->labels->len; c++)
    json_builder_add_string_value (b, plan->labels->pdata[c]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "jobs");
  json_builder_begin_array (b);
  for (guint j = 0; jobs && j < jobs->len; j++)
    json_builder_add_value (b, json_node_copy (jobs->pdata[j]));
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree char *text = json_to_string (root, TRUE);
  g_autofree char *path = g_build_filename (run_dir, "slurm.json", NULL);
  return g_file_set_contents (path, text, -1, error);
}

/* seed.sqlite: a store with the submitting machine and the sweep row,
 * which every task copies and records into (--sweep-id), so the runs of
 * every task arrive in one sweep. */
static gboolean
write_seed (const char *run_dir, const ls_sweep_grid *grid, const ls_slurm_plan *plan, gint64 *sweep_id, char **uuid,
            GError **error)
{
  g_autofree char *path = g_build_filename (run_dir, "seed.sqlite", NULL);
  g_autoptr (ls_store) store = ls_store_open (path, error);
  if (!store)
    return FALSE;
  gint64 machine = ls_store_this_machine (store, NULL, NULL, error);
  g_autofree char *grid_json = ls_sweep_grid_to_json (grid);
  *sweep_id = machine > 0 ? ls_store_sweep_begin (store, machine, grid_json, (int) plan->configurations,
                                                  (int) (plan->tasks / plan->configurations), error)
                          : -1;
  /* The array outlives this process (--slurm-collect ends the sweep): no
   * owner, so no open marks it interrupted meanwhile. */
  if (*sweep_id <= 0 || !ls_store_sweep_disown (store, *sweep_id, error))
    return FALSE;
  g_autoptr (ls_store_rows) rows
      = ls_store_query_row (store, LS_QUERY_SWEEP_UUID, *sweep_id, error);
  if (!rows)
    return FALSE;
  *uuid = ls_store_rows_dup_text (rows, 0);
  return TRUE;
}

/* ---- following the array ---- */

typedef struct {
  ls_slurm_run *run;
  GMainLoop *loop;
  gboolean tty, line_open, interrupted, left_running, done;
  char *last;
  sig_atomic_t stops_seen; /* of the process's stops (platform/interrupt) */
} follower;

static void
progress (follower *f)
{
  guint active = 0;
  ls_slurm_run_refresh (f->run);
  g_autofree char *text = ls_slurm_run_progress_text (f->run, &active);
  if (f->tty)
    {
      fprintf (stderr, "\r\033[K%s", text);
      f->line_open = TRUE;
    }
  else if (g_strcmp0 (text, f->last) != 0)
    fprintf (stderr, "%s\n", text);
  fflush (stderr);
  g_free (f->last);
  f->last = g_strdup (text);
  if (active == 0)
    {
      f->done = TRUE;
      g_main_loop_quit (f->loop);
    }
}

static gboolean
on_tick (gpointer data)
{
  progress (data);
  return G_SOURCE_CONTINUE;
}

/* Ctrl-C: on a terminal, ask whether to scancel; elsewhere, say how and
 * leave the array running. */
static gboolean
on_interrupt (gpointer data)
{
  follower *f = data;
  g_autofree char *ids = ls_slurm_run_job_ids (f->run);
  if (f->line_open)
    fputc ('\n', stderr);
  f->line_open = FALSE;
  if (f->interrupted || !isatty (STDIN_FILENO) || !f->tty)
    {
      fprintf (stderr,
               _("loadscope sweep: the array keeps running. Cancel it: scancel %s\n"
               "                 merge what ran: loadscope sweep --slurm-collect %s\n"),
               ids, ls_slurm_run_dir (f->run));
      f->left_running = TRUE;
      g_main_loop_quit (f->loop);
      return G_SOURCE_CONTINUE;
    }
  f->interrupted = TRUE;
  fprintf (stderr, _("Cancel the array (scancel %s)? [y/N] "), ids);
  fflush (stderr);
  char answer[16] = "";
  if (fgets (answer, sizeof answer, stdin) && (answer[0] == 'y' || answer[0] == 'Y'))
    {
      g_autoptr (GError) error = NULL;
      if (!ls_slurm_run_cancel (f->run, &error))
        fprintf (stderr, "loadscope sweep: %s\n", error->message);
      else
        fprintf (stderr, _("cancelled; waiting for the tasks to stop, then merging what ran\n"));
      return G_SOURCE_CONTINUE;
    }
  fprintf (stderr,
           _("loadscope sweep: the array keeps running; merge it later: loadscope sweep --slurm-collect %s\n"),
           ls_slurm_run_dir (f->run));
  f->left_running = TRUE;
  g_main_loop_quit (f->loop);
  return G_SOURCE_CONTINUE;
}

/* The stops counted by platform/interrupt (Ctrl-C, SIGTERM, the console's
 * events on Windows), looked at on the main loop. */
static volatile sig_atomic_t stops;

static gboolean
on_stop_tick (gpointer data)
{
  follower *f = data;
  if (stops > f->stops_seen)
    {
      f->stops_seen = stops;
      on_interrupt (f);
    }
  return G_SOURCE_CONTINUE;
}

/* Follows until no task is queued or running (TRUE), or the user leaves
 * it running (FALSE). */
static gboolean
follow (ls_slurm_run *run)
{
  follower f = { .run = run, .tty = isatty (STDERR_FILENO) };
  const char *env = g_getenv ("LS_TEST_SLURM_POLL_MS");
  guint poll_ms = env && atoi (env) > 0 ? (guint) atoi (env) : 2000;
  f.loop = g_main_loop_new (NULL, FALSE);
  guint tick = g_timeout_add (poll_ms, on_tick, &f);
  stops = 0;
  ls_interrupt_listen (&stops, LS_INTERRUPT_COUNT, NULL);
  guint stop_tick = g_timeout_add (100, on_stop_tick, &f);
  progress (&f);
  if (!f.done)
    g_main_loop_run (f.loop);
  ls_interrupt_stop ();
  g_source_remove (stop_tick);
  g_source_remove (tick);
  if (f.line_open)
    fputc ('\n', stderr);
  g_main_loop_unref (f.loop);
  g_free (f.last);
  return !f.left_running;
}

static int
collect_main (const ls_slurm_options *o, const char *db)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_slurm_run) run = ls_slurm_run_load (o->collect_dir, &error);
  if (!run)
    {
      g_autofree char *why = ls_terminal_text (error->message); /* names the folder: anyone's bytes */
      fprintf (stderr, "loadscope sweep: %s\n", why);
      return 2;
    }
  if (!o->no_wait && !follow (run))
    return 1;
  return ls_slurm_collect (run, db, stdout);
}

static gboolean
usage (GError **error, const char *message)
{
  g_set_error_literal (error, LS_SLURM_ERROR, LS_SLURM_ERROR_USAGE, message);
  return FALSE;
}

static gboolean
check_options (const ls_sweep_request *request, const ls_slurm_options *o, GError **error)
{
  if (o->collect_dir)
    {
      if (o->slurm || o->dry_run || o->partition || o->time || o->max_parallel || o->sbatch_args || o->nodes_list
          || o->run_dir)
        return usage (error, "--slurm-collect takes the run folder alone (and --no-wait, --db)");
      return TRUE;
    }
  if (!o->slurm)
    return usage (error, "--partition, --time, --max-parallel, --sbatch-arg, --nodes-list, --dry-run, --run-dir "
                         "and --no-wait go with --slurm");
  if (request->no_db)
    return usage (error, "--slurm with --no-db: the tasks' runs are recorded in the run folder and merged into "
                         "the history; leave out --no-db");
  if (o->max_parallel < 0)
    return usage (error, "--max-parallel: must be 1 or more");
  if (request->sweep_id > 0)
    return usage (error, "--slurm records a sweep of its own");
  return TRUE;
}

/* Submits the script once (or once per node of --nodes-list, each its
 * share of the task numbers); the jobs into *jobs as manifest entries. */
static gboolean
submit (const ls_slurm_plan *plan, const char *script, char **nodes, GPtrArray *jobs, GError **error)
{
  guint n_nodes = nodes ? g_strv_length (nodes) : 0, share = plan->tasks / MAX (n_nodes, 1);
  for (guint j = 0; j < MAX (n_nodes, 1); j++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      guint first = j * share, last = first + share - 1;
      g_ptr_array_add (argv, g_strdup ("sbatch"));
      g_ptr_array_add (argv, g_strdup ("--parsable"));
      if (n_nodes)
        {
          g_ptr_array_add (argv, plan->max_parallel > 0 ? g_strdup_printf ("--array=%u-%u%%%d", first, last, plan->max_parallel)
                                                        : g_strdup_printf ("--array=%u-%u", first, last));
          g_ptr_array_add (argv, g_strdup_printf ("--nodelist=%s", nodes[j]));
        }
      for (char **a = plan->sbatch_args; a && *a; a++)
        if (strpbrk (*a, "\"\n\r ")) /* not in the script (see ls_slurm_script_text) */
          g_ptr_array_add (argv, g_strdup (*a));
      g_ptr_array_add (argv, g_strdup (script));
      g_ptr_array_add (argv, NULL);
      g_autofree char *out = ls_slurm_command ((const char *const *) argv->pdata, error);
      if (!out)
        return FALSE;
      g_strstrip (out);
      out[strcspn (out, ";")] = '\0'; /* "<id>;<cluster>" */
      if (!*out || strspn (out, "0123456789") != strlen (out))
        {
          g_set_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_COMMAND, _("sbatch said '%s', not a job id"), out);
          return FALSE;
        }
      JsonObject *o = json_object_new ();
      json_object_set_string_member (o, "id", out);
      json_object_set_int_member (o, "first", first);
      json_object_set_int_member (o, "last", last);
      if (n_nodes)
        json_object_set_string_member (o, "node", nodes[j]);
      JsonNode *node = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (node, o);
      g_ptr_array_add (jobs, node);
    }
  return TRUE;
}

static int
submit_main (const ls_sweep_request *request, const ls_slurm_options *o, const char *db)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_sweep_grid) grid = ls_sweep_grid_new (request, &error);
  if (!grid)
    {
      fprintf (stderr, "loadscope sweep: %s\n", error->message);
      return 2;
    }
  g_auto (GStrv) nodes = o->nodes_list ? g_strsplit (o->nodes_list, ",", -1) : NULL;
  for (char **n = nodes; n && *n; n++)
    if (!*g_strstrip (*n))
      {
        fprintf (stderr, _("loadscope sweep: --nodes-list %s: an empty node name\n"), o->nodes_list);
        return 2;
      }
  guint n_nodes = nodes ? g_strv_length (nodes) : 0;

  ls_slurm_plan plan = { 0 };
  plan.executable = executable_path (request);
  if (!plan.executable)
    {
      fprintf (stderr, _("loadscope sweep: the loadscope executable (%s) was not found\n"), request->runner);
      return 2;
    }
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *default_dir = g_date_time_format (now, "loadscope-slurm-%Y%m%d-%H%M%S");
  plan.run_dir = absolute (o->run_dir ? o->run_dir : default_dir);
  plan.workdir = g_get_current_dir ();
  plan.job_name = g_strdup ("loadscope-sweep");
  plan.partition = g_strdup (o->partition);
  plan.time = g_strdup (o->time);
  plan.max_parallel = o->max_parallel;
  plan.sbatch_args = g_strdupv (o->sbatch_args);
  plan.configurations = ls_sweep_grid_size (grid);
  guint64 tasks = (guint64) plan.configurations * MAX (request->repeat, 1u) * MAX (n_nodes, 1u);
  if (tasks > LS_SLURM_MAX_TASKS)
    {
      fprintf (stderr, _("loadscope sweep: %llu Slurm tasks (configurations x repeat x nodes): more "
               "than the %d a run folder holds\n"), (unsigned long long) tasks, LS_SLURM_MAX_TASKS);
      ls_slurm_plan_clear (&plan);
      return 2;
    }
  plan.tasks = (guint) tasks;
  plan.args = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  plan.labels = g_ptr_array_new_with_free_func (g_free);
  for (guint c = 0; c < plan.configurations; c++)
    {
      g_ptr_array_add (plan.args, task_args (grid, c));
      g_ptr_array_add (plan.labels, ls_sweep_grid_label (grid, c));
    }
  plan.seed_sweep_id = 1; /* the first sweep of a new store */

  int rc = 1;
  gboolean prepare = !o->dry_run || o->run_dir;
  g_autofree char *uuid = NULL, *script = NULL;
  g_autofree char *script_path = g_build_filename (plan.run_dir, "sweep.sbatch", NULL);
  g_autofree char *manifest = g_build_filename (plan.run_dir, "slurm.json", NULL);
  g_autoptr (GPtrArray) jobs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  if (prepare)
    {
      g_autofree char *tasks_dir = g_build_filename (plan.run_dir, "tasks", NULL);
      g_autofree char *logs_dir = g_build_filename (plan.run_dir, "logs", NULL);
      if (g_file_test (manifest, G_FILE_TEST_EXISTS))
        {
          fprintf (stderr, _("loadscope sweep: %s is already a run folder (merge it with --slurm-collect %s); choose "
                           "another --run-dir\n"), plan.run_dir, plan.run_dir);
          rc = 2;
          goto out;
        }
      if (g_mkdir_with_parents (tasks_dir, 0755) != 0 || g_mkdir_with_parents (logs_dir, 0755) != 0)
        {
          fprintf (stderr, _("loadscope sweep: cannot create %s: %s\n"), plan.run_dir, g_strerror (errno));
          goto out;
        }
      if (!write_seed (plan.run_dir, grid, &plan, &plan.seed_sweep_id, &uuid, &error))
        {
          fprintf (stderr, "loadscope sweep: preparing %s: %s\n", plan.run_dir, error->message);
          goto out;
        }
    }
  script = ls_slurm_script_text (&plan);
  if (o->dry_run)
    printf ("%s", script);
  if (prepare)
    {
      if (!g_file_set_contents (script_path, script, -1, &error) || g_chmod (script_path, 0755) != 0
          || !write_manifest (plan.run_dir, &plan, uuid, NULL, &error))
        {
          fprintf (stderr, "loadscope sweep: writing %s: %s\n", plan.run_dir, error ? error->message : g_strerror (errno));
          goto out;
        }
    }
  if (o->dry_run)
    {
      if (prepare)
        fprintf (stderr, _("dry run: nothing submitted; prepared %s (submit: sbatch %s; or run each task: "
                         "SLURM_ARRAY_TASK_ID=T bash %s, T = 0..%u; then: loadscope sweep --slurm-collect %s)\n"),
                 plan.run_dir, script_path, script_path, plan.tasks - 1, plan.run_dir);
      else
        fprintf (stderr, _("dry run: nothing submitted, nothing written (%u tasks; give --run-dir to prepare the "
                         "folder)\n"), plan.tasks);
      rc = 0;
      goto out;
    }

  if (!submit (&plan, script_path, nodes, jobs, &error))
    {
      fprintf (stderr, _("loadscope sweep: %s\n(the run folder %s is prepared: submit it by hand with sbatch %s)\n"),
               error->message, plan.run_dir, script_path);
      if (jobs->len)
        write_manifest (plan.run_dir, &plan, uuid, jobs, NULL);
      goto out;
    }
  if (!write_manifest (plan.run_dir, &plan, uuid, jobs, &error))
    {
      fprintf (stderr, "loadscope sweep: writing %s: %s\n", manifest, error->message);
      goto out;
    }
  {
    g_autoptr (ls_slurm_run) run = ls_slurm_run_load (plan.run_dir, &error);
    if (!run)
      {
        fprintf (stderr, "loadscope sweep: %s\n", error->message);
        goto out;
      }
    /* What this side submitted, for collect to check the manifest by. */
    if (!ls_slurm_record_submission (run, db, &error))
      {
        fprintf (stderr, _("loadscope sweep: recording the submission: %s\n"), error->message);
        g_clear_error (&error);
      }
    g_autofree char *ids = ls_slurm_run_job_ids (run);
    fprintf (stderr, _("submitted job%s %s: %u task%s (%u configuration%s); run folder %s\n"), jobs->len == 1 ? "" : "s",
             ids, plan.tasks, plan.tasks == 1 ? "" : "s", plan.configurations, plan.configurations == 1 ? "" : "s",
             plan.run_dir);
    if (o->no_wait)
      {
        fprintf (stderr, _("follow: squeue -j %s; merge when done: loadscope sweep --slurm-collect %s\n"), ids,
                 plan.run_dir);
        rc = 0;
        goto out;
      }
    rc = follow (run) ? ls_slurm_collect (run, db, stdout) : 1;
  }
out:
  ls_slurm_plan_clear (&plan);
  return rc;
}

int
ls_slurm_main (const ls_sweep_request *request, const ls_slurm_options *o, const char *db)
{
  g_autoptr (GError) error = NULL;
  if (!check_options (request, o, &error))
    {
      fprintf (stderr, "loadscope sweep: %s\n", error->message);
      return 2;
    }
  return o->collect_dir ? collect_main (o, db) : submit_main (request, o, db);
}
