#pragma once

/* Where the loadscope-worker executable is: $LOADSCOPE_WORKER, else beside
 * this executable, else (in a build tree) ../loader/. Newly allocated. */
char *ls_worker_path (void);

/* The same, found once and kept for the process's life (a run
 * configuration points at it and is never freed). */
const char *ls_worker_path_for_process (void);

/* This executable's own path (to start runners of a sweep). Newly allocated. */
char *ls_self_exe_path (void);
