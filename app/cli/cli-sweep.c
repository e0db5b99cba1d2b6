#include "app/cli/cli-sweep.h"

#include "app/sweep/sweep.h"

int
ls_cli_sweep (int argc, char **argv)
{
  ls_sweep_result result;
  int rc = ls_sweep_main (argc, argv, &result);
  ls_sweep_result_clear (&result);
  return rc;
}
