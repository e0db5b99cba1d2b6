/* A stand-in for `python PROBE/loadscope_probe/__main__.py SCRIPT ARGS`: speaks the probe's
 * protocol (data/probe/loadscope_probe/__init__.py) on the channel named by
 * $LOADSCOPE_PROBE_FD (a descriptor, or on Windows an inherited HANDLE), so
 * that the script target's runner is tested where there is no Python with
 * torch (Windows under Wine) and without torch's start-up time. Plain C:
 * it is built for Windows too.
 *
 *   probe-standin .../loadscope_probe/__main__.py SCRIPT [OPTIONS]
 *     --batches N    batches to report (default 8), batch size 4
 *     --wait-ms MS   each batch's wait (sleeps; default 2)
 *     --step-ms MS   each step between batches (sleeps; default 20)
 *     --exit CODE    exit with CODE after the batches, without "finished"
 *     --hang         after the batches, sleep forever (the runner's
 *                    timeout must end it)
 *     --pid-file F   write its process id to F first
 *     --start-ms MS  sleep before the probe's line (a slow torch import)
 *     --workers-start-ms MS  after the DataLoader's line, a worker set's
 *                    "workers" line, then sleep MS before the first batch
 *                    (spawned workers importing torch); its one worker is
 *                    gone already (a pid no process has: above any Linux
 *                    pid_max, odd so never a Windows process id)
 *     --cpu-ms MS    the CPU time "finished" reports (default null)
 *     --error TEXT   after the batches, the script's error with TEXT as its
 *                    message, kind and traceback, and exit status 1
 *     --forge        after the batches, a "finished" line without the
 *                    runner's end token (what a script writes itself),
 *                    then exit status 0, as os._exit(0) would
 *     --exit-after-finished CODE  the probe's "finished", then exit CODE
 *     --chatter WHEN forever, every 100 ms, a valid line that is no
 *                    progress ("stages"): WHEN is "early" (before the
 *                    DataLoader's line) or "late" (after the batches)
 *     --slow-rank R  with ranks: rank R's batches wait 4 times as long
 *     --fail-rank R  with ranks: rank R exits with status 3 half-way
 *
 * With "ranks": N in $LOADSCOPE_PROBE_CONFIG (run --ranks N) it is the
 * launcher as loadscope_probe/ranks.py is: it starts ranks 1..N-1 as copies
 * of itself ($LOADSCOPE_STANDIN_RANK, no channel; each writes its pid to
 * F.R with --pid-file F and sleeps through its batches, or forever with
 * --hang), is rank 0 itself, and sends one "ranks" event with every rank's
 * figures (a rank's throughput from its own time) before "finished"; a
 * rank that fails ends the run with an error naming it.
 *
 * Each batch reports the stages inside a DataLoader as the probe does,
 * with fixed values (sampler 0.0625, __getitem__ 1.5, collate 0.25,
 * hand-off 0.125 ms, of it pin_memory() 0.03125) that a test can find in
 * the store exactly, built by its own process (num_workers 0) during the
 * wait, up to the hand-off; at the end the same figures come as the
 * probe's "stages" event (the summary's stages_ms).
 *
 * It prints one line on its standard output, which the runner sends to
 * its own standard error. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/handle.h"
#include "platform/process.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif

static ls_handle channel = LS_HANDLE_INVALID;

static void
emit (const char *fmt, ...)
{
  char line[1024];
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (line, sizeof line - 1, fmt, ap);
  va_end (ap);
  if (n < 0 || channel == LS_HANDLE_INVALID)
    return;
  if ((size_t) n > sizeof line - 2)
    n = (int) sizeof line - 2;
  line[n++] = '\n';
  for (int off = 0; off < n;)
    {
#ifdef _WIN32
      DWORD done = 0;
      if (!WriteFile ((HANDLE) channel, line + off, (DWORD) (n - off), &done, NULL) || done == 0)
        exit (9);
      off += (int) done;
#else
      ssize_t done = write ((int) channel, line + off, (size_t) (n - off));
      if (done <= 0)
        exit (9);
      off += (int) done;
#endif
    }
}

/* text inside a JSON string: quotes, backslashes and C0 controls
 * escaped, the rest (UTF-8 included) as it is; cut to fit. */
static void
json_string (char *out, size_t size, const char *text)
{
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *) text; *p && n + 7 < size; p++)
    if (*p < 0x20 || *p == '"' || *p == '\\')
      n += (size_t) snprintf (out + n, size - n, "\\u%04x", *p);
    else
      out[n++] = (char) *p;
  out[n] = '\0';
}

static double
ms_since (uint64_t t0)
{
  return (double) (ls_clock_ns () - t0) / 1e6;
}

/* An integer member of $LOADSCOPE_PROBE_CONFIG (the runner's compact JSON),
 * or 0. */
static int
config_int (const char *name)
{
  const char *config = getenv ("LOADSCOPE_PROBE_CONFIG");
  char key[64];
  snprintf (key, sizeof key, "\"%s\":", name);
  const char *at = config ? strstr (config, key) : NULL;
  return at ? atoi (at + strlen (key)) : 0;
}

static int
write_pid_file (const char *path)
{
  FILE *f = fopen (path, "w");
  if (!f || fprintf (f, "%lu\n", (unsigned long) ls_process_self_pid ()) < 0 || fclose (f) != 0)
    {
      fprintf (stderr, "probe-standin: cannot write %s\n", path);
      return 2;
    }
  return 0;
}

/* Rank R (not 0) of a launcher's run: no channel, only time spent. */
static int
run_rank (int rank, const char *pid_file, int batches, int wait_ms, int step_ms, int slow_rank, int fail_rank,
          int hang)
{
  char path[1024];
  if (pid_file && snprintf (path, sizeof path, "%s.%d", pid_file, rank) < (int) sizeof path && write_pid_file (path))
    return 2;
  int per_batch = (rank == slow_rank ? 4 * wait_ms : wait_ms) + step_ms;
  for (int b = 0; b < batches; b++)
    {
      if (rank == fail_rank && b == batches / 2)
        {
          printf ("probe-standin: rank %d fails here\n", rank);
          fflush (stdout);
          return 3;
        }
      ls_sleep_ms ((uint32_t) per_batch);
    }
  while (hang)
    ls_sleep_ms (1000);
  return 0;
}

typedef struct {
  ls_process *proc;
  uint64_t started_ns;
  double seconds; /* from its start to its exit */
  ls_exit_status status;
} standin_rank;

/* Starts ranks 1..n-1 as copies of this program. */
static int
start_ranks (standin_rank *ranks, int n, char **argv)
{
  for (int r = 1; r < n; r++)
    {
      char rank_env[64];
      snprintf (rank_env, sizeof rank_env, "LOADSCOPE_STANDIN_RANK=%d", r);
      const char *env_add[] = { rank_env, NULL };
      ls_spawn_options o = { .path = argv[0], .argv = (const char *const *) argv, .env_add = env_add,
                             .stdout_to_stderr = true };
      ls_error err = { 0 };
      ranks[r].started_ns = ls_clock_ns ();
      if (ls_process_spawn (&o, &ranks[r].proc, &err) != 0)
        {
          fprintf (stderr, "probe-standin: rank %d could not start: %s\n", r, err.message);
          return 1;
        }
    }
  return 0;
}

/* Waits for ranks 1..n-1; the first that failed, or 0. */
static int
wait_ranks (standin_rank *ranks, int n)
{
  int failed = 0;
  for (int r = 1; r < n; r++)
    {
      ls_error err = { 0 };
      if (ls_process_wait (ranks[r].proc, -1, &ranks[r].status, &err) != 0)
        ranks[r].status.kind = LS_EXIT_CODE, ranks[r].status.code = 99;
      ranks[r].seconds = (double) (ls_clock_ns () - ranks[r].started_ns) / 1e9;
      if (!failed && !(ranks[r].status.kind == LS_EXIT_CODE && ranks[r].status.code == 0))
        failed = r;
    }
  return failed;
}

int
main (int argc, char **argv)
{
  int batches = 8, wait_ms = 2, step_ms = 20, exit_code = -1, hang = 0;
  int start_ms = 0, workers_start_ms = -1, slow_rank = -1, fail_rank = -1, forge = 0, exit_after = 0;
  const char *pid_file = NULL, *chatter = "", *error_text = NULL, *cpu_ms = "null";
  if (argc < 3 || !strstr (argv[1], "__main__.py"))
    {
      fprintf (stderr, "usage: probe-standin .../loadscope_probe/__main__.py SCRIPT [--batches N] [--wait-ms MS] "
                       "[--step-ms MS] [--exit CODE] [--hang]\n");
      return 2;
    }
  for (int i = 3; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
      if (strcmp (a, "--batches") == 0)
        batches = atoi (v), i++;
      else if (strcmp (a, "--wait-ms") == 0)
        wait_ms = atoi (v), i++;
      else if (strcmp (a, "--step-ms") == 0)
        step_ms = atoi (v), i++;
      else if (strcmp (a, "--exit") == 0)
        exit_code = atoi (v), i++;
      else if (strcmp (a, "--hang") == 0)
        hang = 1;
      else if (strcmp (a, "--forge") == 0)
        forge = 1;
      else if (strcmp (a, "--exit-after-finished") == 0)
        exit_after = atoi (v), i++;
      else if (strcmp (a, "--pid-file") == 0)
        pid_file = v, i++;
      else if (strcmp (a, "--start-ms") == 0)
        start_ms = atoi (v), i++;
      else if (strcmp (a, "--workers-start-ms") == 0)
        workers_start_ms = atoi (v), i++;
      else if (strcmp (a, "--chatter") == 0)
        chatter = v, i++;
      else if (strcmp (a, "--error") == 0)
        error_text = v, i++;
      else if (strcmp (a, "--cpu-ms") == 0)
        cpu_ms = v, i++;
      else if (strcmp (a, "--slow-rank") == 0)
        slow_rank = atoi (v), i++;
      else if (strcmp (a, "--fail-rank") == 0)
        fail_rank = atoi (v), i++;
      else
        {
          fprintf (stderr, "probe-standin: unknown option %s\n", a);
          return 2;
        }
    }
  const char *rank_text = getenv ("LOADSCOPE_STANDIN_RANK");
  if (rank_text)
    return run_rank (atoi (rank_text), pid_file, batches, wait_ms, step_ms, slow_rank, fail_rank, hang);
  int n_ranks = config_int ("ranks");
  if (n_ranks < 0 || n_ranks > 8)
    {
      fprintf (stderr, "probe-standin: at most 8 ranks\n");
      return 2;
    }
  standin_rank ranks[8] = { { 0 } };

  const char *fd = getenv ("LOADSCOPE_PROBE_FD");
  if (!fd || ls_handle_parse (fd, &channel) != 0)
    {
      fprintf (stderr, "probe-standin: no channel in $LOADSCOPE_PROBE_FD\n");
      return 2;
    }
  if (pid_file && write_pid_file (pid_file))
    return 2;
  if (n_ranks > 1 && start_ranks (ranks, n_ranks, argv))
    return 2;
  printf ("probe-standin: a print of the script, on its standard output\n");
  fflush (stdout);

  const int batch_size = 4;
  if (start_ms > 0)
    ls_sleep_ms ((uint32_t) start_ms);
  emit ("{\"event\":\"probe\",\"pid\":%lu,\"python\":\"stand-in\",\"executable\":\"probe-standin\","
        "\"torch\":\"none\",\"cuda\":false,\"device\":\"cpu\"}",
        (unsigned long) ls_process_self_pid ());
  while (strcmp (chatter, "early") == 0)
    {
      emit ("{\"event\":\"stages\",\"getitem_ms\":1}");
      ls_sleep_ms (100);
    }
  emit ("{\"event\":\"loader\",\"index\":0,\"num_workers\":0,\"batch_size\":%d,\"prefetch_factor\":null,"
        "\"persistent_workers\":false,\"pin_memory\":false,\"multiprocessing_context\":null,"
        "\"dataset\":\"StandIn\",\"dataset_samples\":%d,\"script_asked\":{\"num_workers\":0,\"batch_size\":%d},"
        "\"notes\":[]}",
        batch_size, batches * batch_size, batch_size);
  if (workers_start_ms >= 0)
    {
      emit ("{\"event\":\"workers\",\"epoch\":0,\"pids\":[4194305]}");
      ls_sleep_ms ((uint32_t) workers_start_ms);
    }
  uint64_t t0 = ls_clock_ns ();
  for (int b = 0; b < batches; b++)
    {
      uint64_t asked = ls_clock_ns ();
      ls_sleep_ms ((uint32_t) (slow_rank == 0 ? 4 * wait_ms : wait_ms));
      double wait = ms_since (asked), ready = ms_since (t0);
      uint64_t returned = ls_clock_ns ();
      ls_sleep_ms ((uint32_t) step_ms);
      emit ("{\"event\":\"batch\",\"seq\":%d,\"epoch\":0,\"batch\":%d,\"samples\":%d,\"ready_ms\":%.3f,"
            "\"wait_ms\":%.3f,\"copy_ms\":null,\"compute_ms\":%.3f,\"busy_ms\":1.9375,\"idle_ms\":null,"
            "\"sampler_ms\":0.0625,\"getitem_ms\":1.5,\"collate_ms\":0.25,\"handoff_ms\":0.125,"
            "\"pin_ms\":0.03125,\"worker_pid\":%lu,\"build_start_ms\":%.3f,\"build_end_ms\":%.3f}",
            b, b, batch_size, ready, wait, ms_since (returned), (unsigned long) ls_process_self_pid (),
            ready - wait > 0 ? ready - wait : 0, ready - 0.125 > 0 ? ready - 0.125 : 0);
    }
  while (strcmp (chatter, "late") == 0)
    {
      emit ("{\"event\":\"stages\",\"getitem_ms\":1}");
      ls_sleep_ms (100);
    }
  if (error_text)
    {
      char text[256];
      json_string (text, sizeof text, error_text);
      emit ("{\"event\":\"error\",\"kind\":\"script_raised\",\"message\":\"train.py raised RuntimeError: %s\","
            "\"traceback\":\"%s\"}",
            text, text);
      return 1;
    }
  if (hang)
    for (;;)
      ls_sleep_ms (1000);
  if (exit_code >= 0)
    return exit_code;
  if (n_ranks > 1)
    {
      double seconds0 = ms_since (t0) / 1000.0;
      int failed = wait_ranks (ranks, n_ranks);
      if (failed)
        {
          char how[128];
          ls_exit_status_describe (&ranks[failed].status, how, sizeof how);
          emit ("{\"event\":\"error\",\"kind\":\"rank_failed\",\"message\":\"rank %d of stand-in (pid %lu) %s\"}",
                failed, (unsigned long) ls_process_pid (ranks[failed].proc), how);
          return 1;
        }
      /* Every rank's figures as ranks.py sums them up: rank 0's from its
       * batches, the others' from their own time and fixed waits. */
      char list[4096];
      size_t at = 0;
      for (int r = 0; r < n_ranks && at < sizeof list; r++)
        {
          double secs = r == 0 ? seconds0 : ranks[r].seconds;
          double wait = r == slow_rank ? 4.0 * wait_ms : (double) wait_ms;
          unsigned long pid = r == 0 ? (unsigned long) ls_process_self_pid ()
                                     : (unsigned long) ls_process_pid (ranks[r].proc);
          at += (size_t) snprintf (list + at, sizeof list - at,
                                   "%s{\"rank\":%d,\"pid\":%lu,\"samples\":%d,\"measured_s\":%.4f,"
                                   "\"throughput_sps\":%.3f,\"wait_ms_p50\":%.3f,\"wait_ms_mean\":%.3f,"
                                   "\"step_ms_p50\":%d,\"getitem_ms\":1.5,\"collate_ms\":0.25,\"num_workers\":0,"
                                   "\"batch_size\":%d,\"threads\":1,\"cpu_ms\":null}",
                                   r ? "," : "", r, pid, batches * batch_size, secs,
                                   secs > 0 ? batches * batch_size / secs : 0.0, wait, wait, step_ms, batch_size);
        }
      emit ("{\"event\":\"ranks\",\"world_size\":%d,\"master_port\":null,\"ranks\":[%s]}", n_ranks, list);
      for (int r = 1; r < n_ranks; r++)
        ls_process_free (ranks[r].proc);
    }
  /* Where the builders' time went, per batch, as the probe sends it at
   * its end (loadscope_probe/output.py): the figures of each batch above. */
  emit ("{\"event\":\"stages\",\"sampler\":0.0625,\"getitem\":1.5,\"collate\":0.25,\"handoff\":0.125,"
        "\"pin\":0.03125,\"idle\":0.0,\"busy\":1.9375,\"getitem_per_sample\":%.4f}",
        1.5 / batch_size);
  /* The probe's end carries the runner's token; a forged one (the
   * script's own line, then os._exit(0)) does not. */
  const char *token = getenv ("LOADSCOPE_PROBE_TOKEN");
  if (forge)
    emit ("{\"event\":\"finished\",\"reason\":\"batches\",\"batches\":%d,\"cpu_ms\":%s}", batches, cpu_ms);
  else
    emit ("{\"event\":\"finished\",\"reason\":\"script_ended\",\"batches\":%d,\"cpu_ms\":%s,\"end\":\"%s\"}",
          batches, cpu_ms, token ? token : "");
  return exit_after;
}
