/* The command line: subcommand dispatch and help text. */
#pragma once

/* Runs `loadscope ARGS...` and returns the process exit status:
 * 0 done, 1 the job failed, 2 bad usage or bad input. */
int ls_cli_main (int argc, char **argv);
