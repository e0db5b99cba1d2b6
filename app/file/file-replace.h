/* Files at their final name whole or not at all: written to a partial file
 * in the same folder ("FILE.PID-START-XXXXXX.partial": the writer's
 * process id and start time, platform/process-identity.h), synced to the
 * disk, renamed over FILE, and the folder synced. Until the rename FILE is
 * the old one (or absent); a failed write removes the partial and leaves
 * FILE as it was. While it exists the partial (and SQLite's -journal, -wal
 * and -shm beside it) is armed with platform/cleanup.h: Ctrl-C or SIGTERM
 * that end the process remove it. SIGKILL or a crash can leave one, never
 * at FILE's name; the next writer of FILE removes it (a regular file of
 * this user's whose process is gone; a running writer's stays). Every
 * export, report and chart file goes through here. */
#pragma once

#include <glib.h>

/* The error domain of what this writes: G_FILE_ERROR, each message naming
 * the final file and saying why in words ("FILE: cannot write it: its
 * folder does not exist"). */

typedef struct ls_partial_file ls_partial_file;

/* A new, empty partial file beside path (created exclusively, armed),
 * after removing the partials of path that writers now gone left. NULL
 * with the error (its folder does not exist, permission denied). */
ls_partial_file *ls_partial_file_new (const char *path, GError **error);

/* The partial's name, for a writer that opens it itself (SQLite: close the
 * partial's own descriptor first with ls_partial_file_close). */
const char *ls_partial_file_path (const ls_partial_file *partial);

/* Closes the partial's own descriptor, for a writer that writes it by name;
 * commit reopens it to sync it. */
void ls_partial_file_close (ls_partial_file *partial);

/* Appends len bytes. FALSE with the error (no space left, a file size
 * limit); the partial stays until freed. */
gboolean ls_partial_file_write (ls_partial_file *partial, const void *data, gsize len, GError **error);

/* Syncs the partial, renames it over the final name and syncs the folder.
 * FALSE with the error: the partial stays until freed, the final name as
 * it was. */
gboolean ls_partial_file_commit (ls_partial_file *partial, GError **error);

/* Removes what is left of an uncommitted partial (and SQLite's files
 * beside it), disarms, frees. NULL does nothing. */
void ls_partial_file_free (ls_partial_file *partial);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_partial_file, ls_partial_file_free)

/* Whether name (a file name, no folder) is one of the partials of a file
 * named base (or SQLite's files beside one), and whose: its writer's pid
 * and start time (0: not known when it was written). */
gboolean ls_partial_file_owner (const char *base, const char *name, gint64 *pid, guint64 *start);

/* The whole of it: data to path, replacing what was there. */
gboolean ls_file_replace (const char *path, const void *data, gsize len, GError **error);
