#include "app/cli/cli-machine.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"
#include "app/core/terminal-text.h"

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "loader/arena.h"
#include "loader/gpumon.h"
#include "loader/sink.h"
#include "platform/sysinfo.h"

typedef struct {
  gboolean cuda_answered;
  char cuda_device[256];
  char cuda_driver[32];   /* "13.0", from cuDriverGetVersion */
  char cuda_library[300]; /* the driver library that answered */
  char cuda_error[512];
  gboolean nvml_answered;
  char nvml_device[LS_GPUMON_NAME_MAX];
  char nvml_driver[LS_GPUMON_DRIVER_MAX];
  char nvml_error[512];
} gpu_probe;

/* Asks CUDA (as the cuda sink would: device 0) and NVML whether a GPU
 * answers, and keeps each one's reason when it does not. */
static void
probe_gpu (gpu_probe *g)
{
  ls_sink_config config;
  ls_arena arena = { 0 };
  ls_sink *sink = NULL;
  ls_error err = { 0 };

  ls_sink_config_init (&config);
  config.kind = LS_SINK_CUDA;
  config.pin = LS_PIN_OFF;
  config.model_ms = 0;
  arena.batch_size = 1;
  arena.sample_bytes = 16;
  if (ls_sink_open (&config, &arena, &sink, NULL, 0, &err) == LS_OK)
    {
      int v = ls_sink_cuda_driver_version (sink);
      g->cuda_answered = TRUE;
      g_strlcpy (g->cuda_device, ls_sink_device_name (sink), sizeof g->cuda_device);
      if (v > 0)
        g_snprintf (g->cuda_driver, sizeof g->cuda_driver, "%d.%d", v / 1000, v % 1000 / 10);
      g_strlcpy (g->cuda_library, ls_sink_cuda_driver_library (sink), sizeof g->cuda_library);
      ls_sink_close (sink);
    }
  else
    g_strlcpy (g->cuda_error, err.message, sizeof g->cuda_error);

  ls_gpumon *mon = NULL;
  ls_error nerr = { 0 };
  if (ls_gpumon_start (0, 0, &mon, &nerr) == LS_OK)
    {
      ls_gpumon_summary summary;
      ls_gpumon_stop (mon, &summary);
      g->nvml_answered = TRUE;
      g_strlcpy (g->nvml_device, summary.device_name, sizeof g->nvml_device);
      g_strlcpy (g->nvml_driver, summary.driver_version, sizeof g->nvml_driver);
      ls_gpumon_summary_clear (&summary);
    }
  else
    g_strlcpy (g->nvml_error, nerr.message, sizeof g->nvml_error);
}

static void
set_text_or_null (JsonObject *o, const char *name, gboolean present, const char *text)
{
  if (present && text[0])
    json_object_set_string_member (o, name, text);
  else
    json_object_set_null_member (o, name);
}

/* The page size an arena gets here, for each kind of memory the pool
 * uses (16 MiB of it, populated: huge pages show only once touched).
 * Spawned workers map it by handle or name (a memory file); forked ones
 * inherit it (anonymous shared memory). 0: could not tell. */
static void
probe_arena_pages (size_t *spawn, size_t *fork)
{
  ls_arena a;
  *spawn = *fork = 0;
  if (ls_arena_create (&a, 1, 1, (size_t) 16 << 20, NULL) == LS_OK)
    {
      *spawn = a.page_bytes;
      ls_arena_close (&a);
    }
#ifndef _WIN32
  if (ls_arena_create_forked (&a, 1, 1, (size_t) 16 << 20, NULL) == LS_OK)
    {
      *fork = a.page_bytes;
      ls_arena_close (&a);
    }
#endif
}

static void
print_json (const ls_sysinfo *info, const gpu_probe *g)
{
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "hostname", info->hostname);
  set_text_or_null (o, "container", TRUE, info->container);
  json_object_set_string_member (o, "os", info->os_name);
  json_object_set_string_member (o, "kernel", info->kernel);
  json_object_set_string_member (o, "arch", info->arch);
  json_object_set_string_member (o, "cpu_model", info->cpu_model);
  json_object_set_int_member (o, "logical_cores", info->logical_cores);
  json_object_set_int_member (o, "usable_cores", info->affinity_cores);
  json_object_set_int_member (o, "ram_bytes", (gint64) info->total_ram_bytes);
  size_t spawn_page, fork_page;
  probe_arena_pages (&spawn_page, &fork_page);
  JsonObject *pages = json_object_new ();
  json_object_set_int_member (pages, "spawn", (gint64) spawn_page);
  if (fork_page)
    json_object_set_int_member (pages, "fork", (gint64) fork_page);
  else
    json_object_set_null_member (pages, "fork");
  json_object_set_object_member (o, "arena_page_bytes", pages);

  JsonObject *cuda = json_object_new ();
  json_object_set_boolean_member (cuda, "answered", g->cuda_answered);
  set_text_or_null (cuda, "device", g->cuda_answered, g->cuda_device);
  set_text_or_null (cuda, "driver", g->cuda_answered, g->cuda_driver);
  set_text_or_null (cuda, "library", g->cuda_answered, g->cuda_library);
  set_text_or_null (cuda, "error", !g->cuda_answered, g->cuda_error);
  json_object_set_object_member (o, "cuda", cuda);

  JsonObject *nvml = json_object_new ();
  json_object_set_boolean_member (nvml, "answered", g->nvml_answered);
  set_text_or_null (nvml, "device", g->nvml_answered, g->nvml_device);
  set_text_or_null (nvml, "driver", g->nvml_answered, g->nvml_driver);
  set_text_or_null (nvml, "error", !g->nvml_answered, g->nvml_error);
  json_object_set_object_member (o, "nvml", nvml);
  json_object_set_string_member (o, "sink_auto", g->cuda_answered ? "cuda" : "sim");

  g_autoptr (JsonNode) root = json_node_init_object (json_node_alloc (), o);
  json_object_unref (o);
  g_autofree char *text = json_to_string (root, TRUE);
  g_autofree char *shown = ls_terminal_json (text);
  printf ("%s\n", shown);
}

int
ls_cli_machine (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- describe this machine"));
  g_autoptr (GError) error = NULL;
  gboolean json = FALSE;
  ls_sysinfo info;
  ls_error err = { 0 };
  gpu_probe gpu = { 0 };
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object"), NULL },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Prints what every recorded run stores about the machine it ran on, and whether\n"
                                  "a GPU answered: CUDA (device 0, as `--sink auto` asks it, and which driver\n"
                                  "version answered; without one, runs use the simulated GPU) and NVML (without it, runs have no NVML series), each with\n"
                                  "its reason when it did not."));
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    {
      fprintf (stderr, _("loadscope machine: %s\n"), error->message);
      return 2;
    }
  if (argc > 1)
    {
      fprintf (stderr, _("loadscope machine: unexpected argument '%s'\n"), argv[1]);
      return 2;
    }
  if (ls_sysinfo_read (&info, &err) != LS_OK)
    {
      fprintf (stderr, _("loadscope machine: %s\n"), err.message);
      return 1;
    }
  probe_gpu (&gpu);
  if (json)
    {
      print_json (&info, &gpu);
      return 0;
    }
  printf (_("os:        %s\n"), info.os_name);
  printf (_("kernel:    %s\n"), info.kernel);
  printf (_("arch:      %s\n"), info.arch);
  printf (_("cpu:       %s\n"), info.cpu_model);
  printf (_("cores:     %d logical, %d usable by this process\n"), info.logical_cores, info.affinity_cores);
  printf (_("memory:    %.1f GiB\n"), (double) info.total_ram_bytes / (1024.0 * 1024.0 * 1024.0));
  printf (_("hostname:  %s\n"), info.hostname);
  printf (_("container: %s\n"), info.container[0] ? info.container : _("not known here"));
  size_t spawn_page, fork_page;
  probe_arena_pages (&spawn_page, &fork_page);
  if (fork_page)
    printf (_("arena:     %zu KiB pages with spawn workers, %zu KiB with fork workers%s\n"), spawn_page / 1024,
            fork_page / 1024, spawn_page > 4096 || fork_page > 4096 ? _(" (huge pages)") : "");
  else
    printf (_("arena:     %zu KiB pages\n"), spawn_page / 1024);
#ifdef __linux__
  /* On a VM each process's first touch of each 4 KiB page costs the
   * hypervisor's work, which the first batch pays (docs/arena.md). */
  if (spawn_page == 4096 && (fork_page == 4096 || fork_page == 0))
    printf ("%s", _("           the first batch pays each worker's first touch of every 4 KiB page (microseconds each\n"
                    "           on a VM); 2 MiB pages reserved by root avoid it: sysctl vm.nr_hugepages=256 covers\n"
                    "           an arena of up to 512 MiB, which runs then use\n"));
#endif
  if (gpu.cuda_answered)
    printf (_("GPU:       %s (CUDA device 0, driver %s from %s; runs use it with --sink auto)\n"), gpu.cuda_device,
            gpu.cuda_driver[0] ? gpu.cuda_driver : _("of unknown version"), gpu.cuda_library);
  else
    printf (_("GPU:       none answered (%s); runs use the simulated GPU\n"), gpu.cuda_error);
  if (gpu.nvml_answered)
    printf (_("NVML:      %s, driver %s\n"), gpu.nvml_device[0] ? gpu.nvml_device : _("a device"),
            gpu.nvml_driver[0] ? gpu.nvml_driver : "unknown");
  else
    printf (_("NVML:      none answered (%s); runs have no NVML series\n"), gpu.nvml_error);
  return 0;
}
