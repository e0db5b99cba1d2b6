/* `run --diagnose --target pytorch`: the differential check of
 * app/core/run-diagnose.h on the user's script. (a) replays the batches its
 * DataLoader built first, the loader stopped: the script's step alone; (c)
 * and (b) run it as it is with the dataset's files dropped from and then
 * read into the page cache. The files are those the loader's fetches
 * opened in (a) (an audit hook in the probe), widened to every file under
 * the folder that holds them all. */
#pragma once

#include "app/core/run-diagnose.h"
#include "app/target/target-pytorch.h"

gboolean ls_target_pytorch_diagnose (const ls_target_pytorch *t, const ls_run_config *config, ls_diagnose_result *out,
                                     GError **error);

/* The dataset's files from the probe's list of files opened (one absolute
 * path per line, untrusted: capped, only regular files): every regular
 * file under the deepest folder that holds them all, when that is not the
 * file system's root and holds at most max_files; else the listed files.
 * *seen_files: the listed files taken; note: what was taken and why. */
GPtrArray *ls_target_dataset_files (const char *files_log, guint max_files, guint *seen_files, char *note,
                                    size_t note_len);
