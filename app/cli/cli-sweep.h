#pragma once

/* `loadscope sweep`: the product grid of run knobs, recorded. */
int ls_cli_sweep (int argc, char **argv);
