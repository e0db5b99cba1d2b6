/* The user's PyTorch script as the run's target (target-pytorch.h): the
 * probe found, the script started under it with the knobs given, and the
 * run loop (reading, sampling, the interrupt and the timeout) to the
 * script's end and what the target records of it. The probe's events are
 * target-pytorch-events.c's, the run's figures target-pytorch-figures.c's. */
#include "app/target/target-pytorch.h"
#include "app/core/i18n.h"

#include <gio/gio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/core/json-util.h"
#include "app/core/run-options.h"
#include "app/core/run-summary.h"
#include "app/core/summary-keys.h"
#include "app/core/worker-path.h"
#include "loader/gpumon.h"
#include "app/core/terminal-text.h"
#include "app/target/probe-line.h"
#include "app/target/probe-phase.h"
#include "app/target/probe-process.h"
#include "app/target/target-pytorch-private.h"
#include "app/target/target-ranks.h"
#include "platform/clock.h"
#include "platform/procmem.h"
#include "platform/process-identity.h"
#include "platform/process.h"

char *
ls_target_probe_dir (GError **error)
{
  const char *env = g_getenv ("LOADSCOPE_PROBE_PATH");
  g_autofree char *exe = ls_self_exe_path ();
  g_autofree char *dir = g_path_get_dirname (exe);
  g_autoptr (GPtrArray) tried = g_ptr_array_new_with_free_func (g_free);
  if (env && *env)
    g_ptr_array_add (tried, g_strdup (env));
  g_ptr_array_add (tried, g_build_filename (dir, "..", "data", "probe", NULL));
  g_ptr_array_add (tried, g_build_filename (dir, "..", "share", "loadscope", "probe", NULL));
  for (guint i = 0; i < tried->len; i++)
    {
      g_autofree char *init = g_build_filename (tried->pdata[i], "loadscope_probe", "__main__.py", NULL);
      if (g_file_test (init, G_FILE_TEST_IS_REGULAR))
        return g_canonicalize_filename (tried->pdata[i], NULL);
    }
  g_autoptr (GString) looked = g_string_new (NULL);
  for (guint i = 0; i < tried->len; i++)
    g_string_append_printf (looked, "%s%s", i ? ", " : "", (char *) tried->pdata[i]);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("the PyTorch probe (loadscope_probe) was not found (looked in %s); build with `meson compile` or "
               "install with `meson install`, or set LOADSCOPE_PROBE_PATH"),
               looked->str);
  return NULL;
}

char *
ls_target_pytorch_name (const char *script)
{
  g_autofree char *base = g_path_get_basename (script);
  return g_strdup_printf ("pytorch: %s", base);
}

/* (unused on Windows, where --target pytorch is refused) */
G_GNUC_UNUSED static char *
script_hash (const char *script)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents (script, &data, &len, NULL))
    return NULL;
  g_autofree char *hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
  return g_strndup (hex, 12);
}

#define SAMPLE_MS 100

static char *
probe_config_json (const ls_target_pytorch *t, const ls_run_config *c)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  /* Only the knobs given: the probe leaves the others as the script set
   * them (the script's batch 16 and pin_memory=True stay). */
  if (t->knobs & LS_KNOB_WORKERS)
    {
      json_builder_set_member_name (b, "workers");
      json_builder_add_int_value (b, c->pool.num_workers);
    }
  if (t->knobs & LS_KNOB_BATCH_SIZE)
    {
      json_builder_set_member_name (b, "batch_size");
      json_builder_add_int_value (b, c->pool.batch_size);
    }
  if (t->knobs & LS_KNOB_PREFETCH)
    {
      json_builder_set_member_name (b, "prefetch");
      json_builder_add_int_value (b, c->pool.prefetch_factor);
    }
  if (t->knobs & LS_KNOB_PERSISTENT)
    {
      json_builder_set_member_name (b, "persistent");
      json_builder_add_boolean_value (b, c->pool.persistent_workers);
    }
  if (t->knobs & LS_KNOB_PIN)
    {
      json_builder_set_member_name (b, "pin");
      json_builder_add_string_value (b, ls_pin_mode_name (c->sink.pin));
    }
  if (t->knobs & LS_KNOB_START)
    {
      json_builder_set_member_name (b, "start");
      json_builder_add_string_value (b, ls_start_method_name (c->pool.start));
    }
  if (t->replay)
    {
      json_builder_set_member_name (b, "replay");
      json_builder_add_int_value (b, t->replay);
    }
  if (t->files_log)
    {
      json_builder_set_member_name (b, "files_log");
      json_builder_add_string_value (b, t->files_log);
    }
  ls_target_ranks_config (b, t->ranks, t->threads, c->warmup);
  ls_target_ranks_launcher (b, t->launcher);
  json_builder_set_member_name (b, "loader");
  json_builder_add_int_value (b, t->loader);
  json_builder_set_member_name (b, "batches");
  json_builder_add_int_value (b, (gint64) c->max_batches);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}

gboolean
ls_target_pytorch_run (const ls_target_pytorch *t, ls_run_config *config, ls_run_result *result,
                       JsonObject *target, GError **error)
{
  if (!t->script || !g_file_test (t->script, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("--script %s: no such file"), t->script ? t->script : "");
      return FALSE;
    }
  g_autofree char *probe = ls_target_probe_dir (error);
  if (!probe)
    return FALSE;
  g_auto (GStrv) args = NULL;
  if (t->script_args && *t->script_args && !g_shell_parse_argv (t->script_args, NULL, &args, error))
    {
      g_prefix_error (error, "--script-args: ");
      return FALSE;
    }
  g_autofree char *script = g_canonicalize_filename (t->script, NULL);
  g_autofree char *name = ls_target_pytorch_name (script);
  g_autofree char *hash = script_hash (script);
  /* A file name need not be UTF-8; what is stored and exported must be. */
  g_autofree char *name_text = g_utf8_make_valid (name, -1), *script_text = g_utf8_make_valid (script, -1);
  g_autofree char *base_name = g_path_get_basename (script);
  g_autofree char *base = g_utf8_make_valid (base_name, -1);
  /* The run's dataset column names the script. */
  if (!g_utf8_validate (config->pool.dataset.path, -1, NULL))
    {
      g_autofree char *raw = g_strdup (config->pool.dataset.path);
      copy_utf8 (config->pool.dataset.path, sizeof config->pool.dataset.path, raw);
    }
  json_object_set_string_member (target, "kind", "pytorch");
  json_object_set_string_member (target, "name", name_text);
  json_object_set_string_member (target, "script", script_text);
  json_object_set_string_member (target, "script_sha256", hash ? hash : "");
  g_autofree char *args_text = g_utf8_make_valid (t->script_args ? t->script_args : "", -1);
  json_object_set_string_member (target, "script_args", args_text);
  json_object_set_string_member (target, "python", t->python ? t->python : "python3");
  ls_target_ranks_describe (target, t->ranks, t->threads);
  if (t->ranks > 0)
    json_object_set_string_member (target, "launcher", t->launcher ? t->launcher : "probe");

  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  /* The probe's __main__.py by its path, not `-m loadscope_probe`: -m puts
   * the working folder first on sys.path, where a torch/ or a
   * loadscope_probe.py would shadow torch or the probe. A file's own
   * folder comes first instead, and the probe puts the script's there. */
  g_autofree char *probe_main = g_build_filename (probe, "loadscope_probe", "__main__.py", NULL);
  g_ptr_array_add (argv, (char *) (t->python ? t->python : "python3"));
  g_ptr_array_add (argv, probe_main);
  g_ptr_array_add (argv, script);
  for (char **a = args; a && *a; a++)
    g_ptr_array_add (argv, *a);
  g_ptr_array_add (argv, NULL);

  g_autofree char *cfg = probe_config_json (t, config);
  const char *old_path = g_getenv ("PYTHONPATH");
  g_autofree char *path = old_path && *old_path ? g_strconcat (probe, G_SEARCHPATH_SEPARATOR_S, old_path, NULL)
                                                 : g_strdup (probe);
  /* --threads: OpenMP reads it before the probe can call torch.set_num_threads. */
  g_autofree char *omp = t->threads > 0 ? g_strdup_printf ("%d", t->threads) : NULL;
  /* The probe's end proof: it takes it out of its environment before the
   * script runs, and its "finished" line carries it. */
  g_autofree char *token = g_uuid_string_random ();
  const char *env[] = { "PYTHONPATH", path, "LOADSCOPE_PROBE_CONFIG", cfg, "LOADSCOPE_PROBE_TOKEN", token,
                        omp ? "OMP_NUM_THREADS" : NULL, omp, NULL };
  g_autoptr (ls_probe_process) proc = ls_probe_process_start ((const char *const *) argv->pdata, env, error);
  if (!proc)
    return FALSE;

  pt_run s = { 0 };
  memset (result, 0, sizeof *result);
  result->status = LS_RUN_DONE;
  result->time_to_first_batch_ms = result->epoch_boundary_ms = result->gpu_util_exact = result->gpu_util_nvml = -1;
  g_strlcpy (result->sink_name, "none", sizeof result->sink_name);
  g_strlcpy (result->device_name, "cpu (the script's own step)", sizeof result->device_name);
  config->pool.epochs = 0; /* the script decides */
  s.config = config;
  s.r = result;
  s.target = target;
  s.knobs = t->knobs;
  s.probe_cpu_ms = -1;
  s.end_token = token;
  s.pid = (ls_pid) ls_probe_process_pid (proc);
  s.script_start = ls_process_start_time (s.pid);
  s.base = base;
  ls_probe_state_init (&s.proto);
  s.pids[s.n_pids++] = s.pid;
  s.t0_ns = ls_clock_ns ();
  ls_phase_init (&s.phase, config->pool.timeout_s, s.t0_ns);
  uint64_t next_sample = s.t0_ns;
  gboolean open = TRUE;

  /* Every turn waits at most SAMPLE_MS / 2 and reads at most 64 KiB, so
   * the timeout and the interrupt are looked at whatever the script writes
   * (or does not write, or closes). */
  for (;;)
    {
      g_autoptr (GError) line_error = NULL;
      ls_probe_read got = ls_probe_process_read (proc, SAMPLE_MS / 2, ls_target_pytorch_on_line, &s, &line_error);
      if (got == LS_PROBE_READ_ERROR)
        {
          if (line_error)
            broken (&s, line_error->message);
          break;
        }
      open = got == LS_PROBE_READ_MORE;
      uint64_t now = ls_clock_ns ();
      if (now >= next_sample)
        {
          ls_target_pytorch_sample (&s, &result->memory);
          next_sample = now + (uint64_t) SAMPLE_MS * 1000000u;
        }
      if (config->interrupt && *config->interrupt)
        {
          fail (&s, LS_RUN_INTERRUPTED, "interrupted");
          break;
        }
      /* The script ended (a worker it left may still hold the pipe: its
       * lines are read at the end). */
      if (ls_probe_process_exited (proc))
        break;
      if (!open)
        ls_phase_closed (&s.phase, now);
      if (ls_phase_expired (&s.phase, now))
        {
          char msg[LS_ERROR_MESSAGE_MAX];
          ls_phase_message (&s.phase, base, result->batches, msg, sizeof msg);
          fail (&s, LS_RUN_FAILED, msg);
          break;
        }
    }
  uint64_t end_ns = ls_clock_ns ();
  /* The probe ends the script; what it leaves behind (its workers, a
   * child in a session of its own, the per-run folder) goes with it. */
  ls_target_pytorch_sample (&s, &result->memory);
  ls_probe_process_end (proc, s.broken ? NULL : ls_target_pytorch_on_line, &s);

  /* The probe ends its process with status 0 once it said "finished":
   * anything else after it (a status, a signal) is not the probe's end. */
  const ls_exit_status *end_st = ls_probe_process_status (proc);
  if (result->status == LS_RUN_DONE && s.finished && end_st->kind != LS_EXIT_RUNNING
      && !(end_st->kind == LS_EXIT_CODE && end_st->code == 0))
    {
      char msg[LS_ERROR_MESSAGE_MAX], how[128];
      ls_exit_status_describe (end_st, how, sizeof how);
      /* untranslated: the run's error, kept in the store */
      g_snprintf (msg, sizeof msg, "%s reported its end, then %s%s (the probe's own end exits with status 0)", base,
                  end_st->kind == LS_EXIT_SIGNAL ? "was " : "", how);
      fail (&s, LS_RUN_FAILED, msg);
    }
  if (result->status == LS_RUN_DONE && !s.finished)
    {
      char msg[LS_ERROR_MESSAGE_MAX], how[128];
      const ls_exit_status *st = ls_probe_process_status (proc);
      ls_exit_status_describe (st, how, sizeof how);
      if (st->kind == LS_EXIT_CODE)
        /* untranslated: the run's error, kept in the store */
        g_snprintf (msg, sizeof msg, "%s ended with exit status %d before the probe reported", base, st->code);
      else
        g_snprintf (msg, sizeof msg, "%s %s%s", base, st->kind == LS_EXIT_SIGNAL ? "was " : "", how);
      fail (&s, LS_RUN_FAILED, msg);
    }
  ensure_started (&s);
  ls_target_pytorch_figures (&s, (double) (end_ns - s.t0_ns) / 1e9);
  ls_target_ranks_node (target, result);
  if (s.gpumon)
    {
      ls_gpumon_stop (s.gpumon, &result->gpu);
      if (s.measure_from_ns && s.measure_to_ns > s.measure_from_ns)
        {
          double from = ((double) s.measure_from_ns - (double) result->gpu.start_ns) / 1e6;
          double to = ((double) s.measure_to_ns - (double) result->gpu.start_ns) / 1e6;
          /* NVML is read every 100 ms: batches that came faster than that
           * are given the 250 ms around them, so at least one reading. */
          if (to - from < 250)
            {
              double mid = (from + to) / 2;
              g_snprintf (result->gpu_note, sizeof result->gpu_note,
                          /* untranslated: kept in the store with the run's figures */
                          "the measured batches took %.0f ms, less than NVML's readings allow: utilization over "
                          "the 250 ms around them",
                          to - from);
              from = mid - 125;
              to = mid + 125;
            }
          double util = ls_gpumon_mean_util (&result->gpu, from, to);
          result->gpu_util_nvml = util >= 0 ? util : -1;
        }
    }
  /* Where the copy per batch comes from, or why it is null, where a
   * reader meets it. */
  const char *copy_note = NULL;
  g_autofree char *timed_note = NULL;
  if (s.copies_timed > 0)
    copy_note = timed_note = g_strdup_printf (
        /* untranslated: kept in the store with the run's figures */
        "timed on the device: CUDA events around the script's own .to() / .cuda() of the batch's tensors "
        "(%" G_GSIZE_FORMAT " measured batches)", s.copies_timed);
  else if (config->sink.kind != LS_SINK_CUDA)
    copy_note = "none: the script's step runs on the CPU (torch.cuda.is_available() is False), so there is no copy "
                "to a device to time";
  else if (s.copies_watched)
    copy_note = "none seen: the script did not copy the batch's tensors to the device with .to() or .cuda() (a "
                "copy of its own making, or none, is not timed)";
  else
    copy_note = "not measured: the probe could not watch the script's copies to the device";
  json_object_set_string_member (target, "copy_note", copy_note);
  if (s.probe_cpu_ms >= 0)
    json_object_set_double_member (target, "script_cpu_ms", s.probe_cpu_ms);
  else
    json_object_set_double_member (target, "script_cpu_ms", (double) s.pid_cpu_ns[0] / 1e6);
  if (result->compute_ms.valid)
    json_object_set_double_member (target, "step_ms_p50", result->compute_ms.p50);
  if (result->measured_s > 0)
    json_object_set_double_member (target, "step_share", s.steps_sum_ms / (result->measured_s * 1e3));
  return TRUE;
}
