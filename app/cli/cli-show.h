#pragma once

/* `loadscope show`: see its --help. Returns the exit status. */
int ls_cli_show (int argc, char **argv);
