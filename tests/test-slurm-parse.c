/* app/slurm/ without a cluster: quoting, the job-array script, and what
 * sacct, scontrol and squeue print turned into task states. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/slurm/slurm.h"

static void
test_quote (void)
{
  g_autofree char *plain = ls_slurm_quote ("abc");
  g_autofree char *tricky = ls_slurm_quote ("it's $HOME `x` \"y\"");
  g_assert_cmpstr (plain, ==, "'abc'");
  g_assert_cmpstr (tricky, ==, "'it'\\''s $HOME `x` \"y\"'");
}

static void
test_script (void)
{
  ls_slurm_plan plan = { 0 };
  plan.executable = g_strdup ("/opt/load scope/bin/loadscope");
  plan.run_dir = g_strdup ("/shared/run 1");
  plan.workdir = g_strdup ("/home/u");
  plan.job_name = g_strdup ("loadscope-sweep");
  plan.time = g_strdup ("10:00");
  plan.max_parallel = 3;
  char *sbatch_args[] = { "--hold", "--comment=a b", NULL };
  plan.sbatch_args = g_strdupv (sbatch_args);
  plan.configurations = 2;
  plan.tasks = 4;
  plan.args = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  plan.labels = g_ptr_array_new_with_free_func (g_free);
  for (guint c = 0; c < 2; c++)
    {
      GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (a, g_strdup ("--dataset"));
      g_ptr_array_add (a, g_strdup ("/data/it's here"));
      g_ptr_array_add (a, g_strdup ("--workers"));
      g_ptr_array_add (a, g_strdup_printf ("%u", c * 2));
      g_ptr_array_add (plan.args, a);
      g_ptr_array_add (plan.labels, g_strdup_printf ("workers=%u", c * 2));
    }
  plan.seed_sweep_id = 1;
  g_autofree char *s = ls_slurm_script_text (&plan);
  g_assert_true (g_str_has_prefix (s, "#!/usr/bin/env bash\n"));
  g_assert_nonnull (strstr (s, "#SBATCH --array=0-3%3\n"));
  g_assert_nonnull (strstr (s, "#SBATCH --output=\"/shared/run 1/logs/task-%a.log\"\n"));
  g_assert_nonnull (strstr (s, "#SBATCH --time=\"10:00\"\n"));
  g_assert_nonnull (strstr (s, "#SBATCH --hold\n"));
  g_assert_null (strstr (s, "#SBATCH --comment"));
  g_assert_nonnull (strstr (s, "loadscope='/opt/load scope/bin/loadscope'\n"));
  g_assert_nonnull (strstr (s, "args=('--dataset' '/data/it'\\''s here' '--workers' '2') ;;"));
  g_assert_nonnull (strstr (s, "--sweep-id 1 "));
  ls_slurm_plan_clear (&plan);
}

static void
infos_clear (ls_task_info *infos, guint n)
{
  for (guint t = 0; t < n; t++)
    {
      g_free (infos[t].slurm_state);
      g_free (infos[t].node);
    }
}

static void
test_parse (void)
{
  ls_task_info infos[6];
  memset (infos, 0, sizeof infos);
  for (guint t = 0; t < 6; t++)
    infos[t].exit_code = -1;

  ls_slurm_parse_sacct ("12_0|COMPLETED|0:0|n1\n12_1|FAILED|2:0|n2\n12_2|CANCELLED by 0|0:15|n1\n"
                        "12_[3-5%2]|PENDING|0:0|None assigned\n99_0|FAILED|1:0|x\n",
                        "12", infos, 6);
  g_assert_cmpint (infos[0].state, ==, LS_TASK_DONE);
  g_assert_cmpstr (infos[0].node, ==, "n1");
  g_assert_cmpint (infos[1].state, ==, LS_TASK_FAILED);
  g_assert_cmpint (infos[1].exit_code, ==, 2);
  g_assert_cmpint (infos[2].state, ==, LS_TASK_CANCELLED);
  g_assert_cmpint (infos[2].exit_code, ==, 128 + 15);
  for (guint t = 3; t < 6; t++)
    {
      g_assert_cmpint (infos[t].state, ==, LS_TASK_PENDING);
      g_assert_null (infos[t].node);
    }

  ls_slurm_parse_scontrol ("JobId=20 ArrayJobId=12 ArrayTaskId=4-5 JobName=ls x JobState=TIMEOUT Reason=None "
                           "ExitCode=0:0 ReqNodeList=(null) NodeList=n3\n"
                           "JobId=21 ArrayJobId=13 ArrayTaskId=3 JobState=COMPLETED ExitCode=0:0 NodeList=n9\n",
                           "12", infos, 6);
  g_assert_cmpint (infos[3].state, ==, LS_TASK_PENDING);
  g_assert_cmpint (infos[4].state, ==, LS_TASK_TIMEOUT);
  g_assert_cmpint (infos[5].state, ==, LS_TASK_TIMEOUT);
  g_assert_cmpstr (infos[5].node, ==, "n3");

  ls_slurm_parse_squeue ("12_3|RUNNING|n4\n", "12", infos, 6);
  g_assert_cmpint (infos[3].state, ==, LS_TASK_RUNNING);
  g_assert_cmpstr (infos[3].node, ==, "n4");
  infos_clear (infos, 6);

  g_assert_cmpint (ls_slurm_state_from_word ("OUT_OF_MEMORY"), ==, LS_TASK_FAILED);
  g_assert_cmpint (ls_slurm_state_from_word ("COMPLETING"), ==, LS_TASK_RUNNING);
  g_assert_true (ls_task_state_final (LS_TASK_CANCELLED));
  g_assert_false (ls_task_state_final (LS_TASK_RUNNING));
}

static void
test_bad_folder (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ls-slurm-XXXXXX", NULL);
  g_autofree char *manifest = g_build_filename (dir, "slurm.json", NULL);
  g_assert_null (ls_slurm_run_load (dir, &error));
  g_assert_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR);
  g_clear_error (&error);
  g_file_set_contents (manifest, "{\"format\":\"loadscope-slurm\",\"configurations\":2,\"tasks\":1,\"labels\":[],\"jobs\":[]}",
                       -1, NULL);
  g_assert_null (ls_slurm_run_load (dir, &error));
  g_assert_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR);
  g_unlink (manifest);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/slurm/quote", test_quote);
  g_test_add_func ("/slurm/script", test_script);
  g_test_add_func ("/slurm/parse", test_parse);
  g_test_add_func ("/slurm/bad-folder", test_bad_folder);
  return g_test_run ();
}
