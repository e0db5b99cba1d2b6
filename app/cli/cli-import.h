#pragma once

/* `loadscope import`: see its --help. Returns the exit status. */
int ls_cli_import (int argc, char **argv);
