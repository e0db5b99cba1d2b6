#pragma once

/* `loadscope demo`: the headless default, a sample dataset and a sweep. */
int ls_cli_demo (int argc, char **argv);
