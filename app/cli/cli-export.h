#pragma once

/* `loadscope export`: see its --help. Returns the exit status. */
int ls_cli_export (int argc, char **argv);
