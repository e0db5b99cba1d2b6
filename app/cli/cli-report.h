#pragma once

/* `loadscope report`: see its --help. Returns the exit status. */
int ls_cli_report (int argc, char **argv);
