#pragma once

/* `loadscope history`: see its --help. Returns the exit status. */
int ls_cli_history (int argc, char **argv);
