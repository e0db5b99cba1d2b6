/* The job-array script: plain bash a user can read and edit. Every value
 * is quoted (single quotes in the shell, double quotes in #SBATCH lines,
 * which is what sbatch understands there), the executable is named by
 * absolute path. Task T runs configuration T % C into a store on node-local
 * disk (SQLite over NFS is unsafe, WAL does not work there), copied into the
 * run folder when the run ends, cancelled or out of time included. */
#include "app/slurm/slurm.h"
#include "app/core/i18n.h"

#include <string.h>

G_DEFINE_QUARK (ls-slurm-error-quark, ls_slurm_error)

char *
ls_slurm_quote (const char *s)
{
  GString *q = g_string_new ("'");
  for (const char *p = s; *p; p++)
    if (*p == '\'')
      g_string_append (q, "'\\''");
    else
      g_string_append_c (q, *p);
  g_string_append_c (q, '\'');
  return g_string_free (q, FALSE);
}

/* An #SBATCH value: sbatch strips double quotes there and knows no escape,
 * so a value with a double quote or a line end is left out with a note. */
static void
directive (GString *s, const char *option, const char *value)
{
  if (strpbrk (value, "\"\n\r"))
    {
      /* untranslated: a line of the job script */
      g_string_append_printf (s, "# (left out: %s holds a double quote or a line end)\n", option);
      return;
    }
  g_string_append_printf (s, "#SBATCH %s=\"%s\"\n", option, value);
}

void
ls_slurm_plan_clear (ls_slurm_plan *plan)
{
  g_clear_pointer (&plan->executable, g_free);
  g_clear_pointer (&plan->run_dir, g_free);
  g_clear_pointer (&plan->workdir, g_free);
  g_clear_pointer (&plan->job_name, g_free);
  g_clear_pointer (&plan->partition, g_free);
  g_clear_pointer (&plan->time, g_free);
  g_clear_pointer (&plan->sbatch_args, g_strfreev);
  g_clear_pointer (&plan->args, g_ptr_array_unref);
  g_clear_pointer (&plan->labels, g_ptr_array_unref);
}

char *
ls_slurm_script_text (const ls_slurm_plan *plan)
{
  GString *s = g_string_new ("#!/usr/bin/env bash\n");
  g_autofree char *logs = g_build_filename (plan->run_dir, "logs", "task-%a.log", NULL);
  g_autofree char *array = plan->max_parallel > 0
                               ? g_strdup_printf ("0-%u%%%d", plan->tasks - 1, plan->max_parallel)
                               : g_strdup_printf ("0-%u", plan->tasks - 1);
  g_autofree char *q_exe = ls_slurm_quote (plan->executable);
  g_autofree char *q_dir = ls_slurm_quote (plan->run_dir);

  g_string_append_printf (s,
                          /* untranslated: the job script's own comments */
                          "# A Loadscope sweep as a Slurm job array (written by `loadscope sweep --slurm`).\n"
                          "# %u configurations, %u array tasks: task T runs configuration T %% %u with\n"
                          "# `loadscope run` into its own store, on node-local disk while it runs, then\n"
                          "# copied to tasks/task-T.sqlite in the run folder. Merge them into the history:\n"
                          "#   loadscope sweep --slurm-collect %s\n"
                          "# Without Slurm (a loop, a CI matrix): SLURM_ARRAY_TASK_ID=T bash sweep.sbatch\n",
                          plan->configurations, plan->tasks, plan->configurations, plan->run_dir);
  directive (s, "--job-name", plan->job_name);
  g_string_append_printf (s, "#SBATCH --array=%s\n", array);
  g_string_append (s, "#SBATCH --ntasks=1\n");
  directive (s, "--output", logs);
  directive (s, "--chdir", plan->workdir);
  if (plan->partition)
    directive (s, "--partition", plan->partition);
  if (plan->time)
    directive (s, "--time", plan->time);
  for (char **a = plan->sbatch_args; a && *a; a++)
    if (strpbrk (*a, "\"\n\r") || strchr (*a, ' '))
      /* untranslated: a line of the job script */
      g_string_append_printf (s, "# (an --sbatch-arg with a space or quote is passed on sbatch's command line)\n");
    else
      g_string_append_printf (s, "#SBATCH %s\n", *a);

  g_string_append_printf (s,
                          /* untranslated: the job script */
                          "\n"
                          "set -u\n"
                          "loadscope=%s\n"
                          "run_dir=%s\n"
                          "task=${SLURM_ARRAY_TASK_ID:?set SLURM_ARRAY_TASK_ID to the task number, 0 to %u}\n"
                          "configurations=%u\n"
                          "\n"
                          "case $((task %% configurations)) in\n",
                          q_exe, q_dir, plan->tasks - 1, plan->configurations);
  for (guint c = 0; c < plan->configurations; c++)
    {
      GPtrArray *args = plan->args->pdata[c];
      g_string_append_printf (s, "  %u) # %s\n     args=(", c, (const char *) plan->labels->pdata[c]);
      for (guint i = 0; i < args->len; i++)
        {
          g_autofree char *q = ls_slurm_quote (args->pdata[i]);
          g_string_append_printf (s, "%s%s", i ? " " : "", q);
        }
      g_string_append (s, ") ;;\n");
    }
  g_string_append_printf (
      s,
      /* untranslated: the job script */
      "  *) echo \"task $task: no such configuration\" >&2; exit 2 ;;\n"
      "esac\n"
      "\n"
      "mkdir -p \"$run_dir/tasks\"\n"
      "scratch=$(mktemp -d \"${TMPDIR:-/tmp}/loadscope-task-XXXXXX\") || exit 1\n"
      "store=$scratch/task.sqlite\n"
      "cp \"$run_dir/seed.sqlite\" \"$store\" || exit 1\n"
      "echo \"task $task (job ${SLURM_ARRAY_JOB_ID:-none}) on $(hostname): loadscope run ${args[*]}\"\n"
      "\n"
      "# Cancelled or out of time: Slurm sends SIGTERM; the run then ends\n"
      "# interrupted, recorded with its figures, and is still copied below.\n"
      "\"$loadscope\" run \"${args[@]}\" --db \"$store\" --sweep-id %" G_GINT64_FORMAT " </dev/null &\n"
      "child=$!\n"
      "trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT\n"
      "wait \"$child\"; status=$?\n"
      "while kill -0 \"$child\" 2>/dev/null; do wait \"$child\"; status=$?; done\n"
      "\n"
      "# The store into the run folder (renamed into place: never seen half written).\n"
      "if [ -s \"$store\" ]; then\n"
      "  [ -f \"$store-wal\" ] && cp \"$store-wal\" \"$run_dir/tasks/task-$task.sqlite-wal\"\n"
      "  cp \"$store\" \"$run_dir/tasks/.task-$task.sqlite.part\" &&\n"
      "    mv -f \"$run_dir/tasks/.task-$task.sqlite.part\" \"$run_dir/tasks/task-$task.sqlite\"\n"
      "fi\n"
      "echo \"$status\" > \"$run_dir/tasks/task-$task.exit\"\n"
      "rm -rf \"$scratch\"\n"
      "echo \"task $task: loadscope run exited with status $status\"\n"
      "exit \"$status\"\n",
      plan->seed_sweep_id);
  return g_string_free (s, FALSE);
}
