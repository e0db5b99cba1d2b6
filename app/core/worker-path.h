#pragma once

/* Where the loadscope-worker executable is: $LOADSCOPE_WORKER, else beside
 * this executable, else (in a build tree) ../loader/. Newly allocated. */
char *ls_worker_path (void);

/* This executable's own path (to start runners of a sweep). Newly allocated. */
char *ls_self_exe_path (void);
