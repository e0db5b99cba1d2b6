/* The Slurm options of `loadscope sweep` (slurm.h): `--help-slurm`, marked
 * for translation (po/POTFILES.in); sbatch's own words (--time,
 * --array=0-N%K) stay as typed. */
#include "app/slurm/slurm.h"
#include "app/core/i18n.h"

#include <string.h>

GOptionGroup *
ls_slurm_option_group (ls_slurm_options *o)
{
  GOptionEntry entries[] = {
    { "slurm", 0, 0, G_OPTION_ARG_NONE, &o->slurm,
      N_("Run the sweep as a Slurm job array: one task per configuration"), NULL },
    { "partition", 0, 0, G_OPTION_ARG_STRING, &o->partition, N_("Slurm partition"), "P" },
    { "time", 0, 0, G_OPTION_ARG_STRING, &o->time, N_("Time limit of each task (sbatch --time)"), "T" },
    { "max-parallel", 0, 0, G_OPTION_ARG_INT, &o->max_parallel, N_("At most K tasks at once (--array=0-N%K)"), "K" },
    { "sbatch-arg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->sbatch_args, N_("Pass ARG to sbatch (repeat it)"), "ARG" },
    { "nodes-list", 0, 0, G_OPTION_ARG_STRING, &o->nodes_list,
      N_("Run the whole grid on each of these nodes (one array per node)"), "N1,N2,..." },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &o->dry_run, N_("Print the script; submit nothing (with --run-dir: prepare the folder)"), NULL },
    { "run-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->run_dir,
      N_("The run folder, on a file system the nodes share (default ./loadscope-slurm-DATE-TIME)"), "DIR" },
    { "slurm-collect", 0, 0, G_OPTION_ARG_FILENAME, &o->collect_dir,
      N_("Merge a run folder's task stores into the history (waits for the array unless --no-wait)"), "RUNDIR" },
    { "no-wait", 0, 0, G_OPTION_ARG_NONE, &o->no_wait, N_("Submit (or collect) and return without following the array"), NULL },
    { NULL },
  };
  /* GOption shows the group's title as given: translated here. */
  GOptionGroup *g
      = g_option_group_new ("slurm", _("Slurm (sweeps as job arrays):"), N_("Show the Slurm options"), NULL, NULL);
  g_option_group_set_translation_domain (g, GETTEXT_PACKAGE);
  g_option_group_add_entries (g, entries);
  return g;
}

gboolean
ls_slurm_options_active (const ls_slurm_options *o)
{
  return o->slurm || o->collect_dir || o->partition || o->time || o->max_parallel || o->sbatch_args || o->nodes_list
         || o->dry_run || o->run_dir || o->no_wait;
}

void
ls_slurm_options_clear (ls_slurm_options *o)
{
  g_free (o->partition);
  g_free (o->time);
  g_strfreev (o->sbatch_args);
  g_free (o->nodes_list);
  g_free (o->run_dir);
  g_free (o->collect_dir);
  memset (o, 0, sizeof *o);
}
