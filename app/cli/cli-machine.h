#pragma once

/* `loadscope machine`: what this machine is, as runs record it. */
int ls_cli_machine (int argc, char **argv);
