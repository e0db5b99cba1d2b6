/* The check the window makes of a PyTorch script target when it is
 * chosen, before any run, as the dataset check does for a dataset: the
 * script is a readable file and the interpreter imports torch. And the
 * sweep request's target knobs, filled as `loadscope sweep --target
 * pytorch --script ... --python ... --script-args ... --loader N` fills
 * them, so the window and the command line start the same runners. */
#pragma once

#include <gio/gio.h>

#include "app/core/sweep-request.h"

/* The interpreter used when none is given. */
#define LS_TARGET_DEFAULT_PYTHON "python3"

/* TRUE with a one-line description ("train.py: torch 2.1.2, Python 3.11.2
 * (/usr/bin/python3)") when `script` is a readable file that `python`
 * (NULL or empty: the first that imports torch, ls_target_find_python)
 * compiles, and the interpreter imports torch, its path in *chosen and
 * whether its torch.cuda answers in *cuda (the pin knob means nothing
 * without it);
 * FALSE with an error naming the script or the interpreter (with the path
 * it was found at) and why (no such file, not a file, "is not a Python
 * script python3 (/usr/bin/python3) can compile: SyntaxError: ...",
 * interpreter not found, "cannot import torch: ModuleNotFoundError: ...").
 * Blocks while the interpreter imports torch (a second or two). */
gboolean ls_target_pytorch_check (const char *script, const char *python, char **description, char **chosen,
                                  gboolean *cuda, GCancellable *cancellable, GError **error);

/* The first Python interpreter that imports torch: an activated virtual
 * or conda environment's, then in each folder of PATH in turn python3,
 * python and python3.13 down to python3.8 (one file tried once, at most
 * 12 tried). None: an error that lists each one tried and why it failed.
 * Blocks for a torch import per interpreter tried (seconds). */
char *ls_target_find_python (GCancellable *cancellable, GError **error);

/* The same in a worker thread. */
void ls_target_pytorch_check_async (const char *script, const char *python, GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data);
/* The description, or NULL with error. */
char *ls_target_pytorch_check_finish (GAsyncResult *result, char **chosen, gboolean *cuda, GError **error);

/* Sets the request's target to the script: --target pytorch, --script,
 * --python (python3 when NULL or empty), --script-args (when not empty)
 * and --loader (when > 0). FALSE with an error when the arguments cannot
 * be split as a shell would (an open quote), naming them, or the loader
 * index is negative; the request is then unchanged. */
gboolean ls_target_pytorch_request (ls_sweep_request *request, const char *script, const char *python,
                                    const char *script_args, int loader, GError **error);
