#pragma once

/* `loadscope remote install|collect|key TARGET`: app/remote/. */
int ls_cli_remote (int argc, char **argv);
