#pragma once

/* `loadscope whatif`: see its --help. Returns the exit status. */
int ls_cli_whatif (int argc, char **argv);
