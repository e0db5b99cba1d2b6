/* The composition root: the only place that joins app/ with ui/. */
#include "app/cli.h"

int
main (int argc, char **argv)
{
  return ls_cli_main (argc, argv);
}
