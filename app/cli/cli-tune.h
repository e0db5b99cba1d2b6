#pragma once

/* `loadscope tune`: see its --help. Returns the exit status. */
int ls_cli_tune (int argc, char **argv);
