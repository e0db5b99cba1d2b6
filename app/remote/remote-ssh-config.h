/* The hosts a user's ssh client knows by name: the `Host` entries of
 * ~/.ssh/config (and of the files its `Include` lines name), offered by the
 * window's Machine choice as ssh:HOST targets. The file is the user's, but
 * it is read as untrusted input: its size, its lines, the files it
 * includes and the hosts taken are capped, and a name that is a pattern
 * (`*`, `?`, `!`) or that ssh would not take as a host (a leading '-',
 * spaces, control characters, more than LS_SSH_CONFIG_HOST_MAX bytes,
 * not UTF-8) is left out. Nothing here connects anywhere. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define LS_SSH_CONFIG_FILE_MAX (256 * 1024) /* bytes of one file read; a longer one is refused */
#define LS_SSH_CONFIG_FILES_MAX 16          /* files read in all (the config and what it includes) */
#define LS_SSH_CONFIG_DEPTH_MAX 4           /* Include inside Include, as ssh allows 16 */
#define LS_SSH_CONFIG_HOSTS_MAX 200         /* hosts kept; more are dropped */
#define LS_SSH_CONFIG_HOST_MAX 255          /* bytes of one host name */

/* $HOME/.ssh/config (HOME as GLib reads it). Newly allocated. */
char *ls_ssh_config_default_path (void);

/* The host names of path, in the order they appear, each once (char *,
 * owned by the array). A file that is not there gives an empty list. NULL
 * with a G_FILE_ERROR naming the file and the reason when path (or a file
 * it includes by a plain name) cannot be read or is larger than
 * LS_SSH_CONFIG_FILE_MAX; an Include that names no file, or a pattern, is
 * followed as ssh does (relative to ~/.ssh; a `*` or `?` in its last part
 * matches files of that folder). */
GPtrArray *ls_ssh_config_hosts (const char *path, GError **error);

/* Whether ssh would take name as a host (see above). */
gboolean ls_ssh_config_host_ok (const char *name);

G_END_DECLS
