#include "app/cli-machine.h"

#include <glib.h>
#include <stdio.h>

#include "platform/sysinfo.h"

int
ls_cli_machine (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("- describe this machine");
  g_autoptr (GError) error = NULL;
  ls_sysinfo info;
  ls_error err = { 0 };

  g_option_context_set_summary (context, "Prints what every recorded run stores about the machine it ran on.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "loadscope machine: %s\n", error->message);
      return 2;
    }
  if (argc > 1)
    {
      fprintf (stderr, "loadscope machine: unexpected argument '%s'\n", argv[1]);
      return 2;
    }
  if (ls_sysinfo_read (&info, &err) != LS_OK)
    {
      fprintf (stderr, "loadscope machine: %s\n", err.message);
      return 1;
    }
  printf ("os:        %s\n", info.os_name);
  printf ("kernel:    %s\n", info.kernel);
  printf ("arch:      %s\n", info.arch);
  printf ("cpu:       %s\n", info.cpu_model);
  printf ("cores:     %d logical, %d usable by this process\n", info.logical_cores, info.affinity_cores);
  printf ("memory:    %.1f GiB\n", (double) info.total_ram_bytes / (1024.0 * 1024.0 * 1024.0));
  printf ("hostname:  %s\n", info.hostname);
  return 0;
}
