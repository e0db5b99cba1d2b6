#pragma once

/* `loadscope run`: one measured run. */
int ls_cli_run (int argc, char **argv);
