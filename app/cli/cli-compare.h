#pragma once

/* `loadscope compare`: see its --help. Returns the exit status. */
int ls_cli_compare (int argc, char **argv);
