/* Runs on another machine: a GPU server over SSH (`ssh:HOST`, the system's
 * ssh with its config and agent; Loadscope never handles a password) or a
 * container or sandbox entered by a command prefix (`exec:docker exec -i
 * NAME`). A self-contained Linux bundle of the runner is installed there
 * once (`loadscope remote install`), in a folder named by this build's
 * version key; each run executes there with `--events -` streamed back,
 * its own store file on the target fetched afterwards as an export bundle
 * and merged into the local store through the checked import, so the run
 * keeps the target's machine identity.
 *
 * On the target (sh, coreutils, tar):
 *   ${LOADSCOPE_REMOTE_CACHE:-$HOME/.cache/loadscope/remote}/KEY/
 *     loadscope, bin/, lib/ ...   the bundle (tests/device/bundle.sh)
 *     installed                   the sha256 of the tar it came from
 *     runs/RUN.sqlite, RUN.pid    each run's store, and its runner's pid
 *
 * Arguments cross as an argv: ssh joins its arguments into one line for
 * the remote shell, so each is single-quoted (ls_remote_quote); the scripts
 * run there take every path as a positional parameter, never as text. */
#pragma once

#include <gio/gio.h>
#include <stdio.h>

G_BEGIN_DECLS

#define LS_REMOTE_ERROR (ls_remote_error_quark ())
GQuark ls_remote_error_quark (void);

typedef enum {
  LS_REMOTE_ERROR_TARGET,    /* not ssh:HOST or exec:COMMAND */
  LS_REMOTE_ERROR_CONNECT,   /* the transport could not start or reach the target */
  LS_REMOTE_ERROR_MISSING,   /* the bundle of this version is not on the target */
  LS_REMOTE_ERROR_FAILED,    /* a step on the target failed (its words in the message) */
  LS_REMOTE_ERROR_TIMEOUT,   /* the target did not answer, or not finish, in time */
} ls_remote_error;

typedef enum {
  LS_REMOTE_SSH,
  LS_REMOTE_EXEC,
} ls_remote_kind;

typedef struct {
  ls_remote_kind kind;
  char *text;    /* as given: "ssh:gpu1" */
  char *host;    /* ssh: the host (anything ssh accepts) */
  char **prefix; /* exec: the command prefix, split as a shell would (no expansion) */
} ls_remote_target;

/* Parses "ssh:HOST" or "exec:COMMAND". NULL with LS_REMOTE_ERROR_TARGET
 * naming the text and what is accepted. */
ls_remote_target *ls_remote_target_parse (const char *text, GError **error);
void ls_remote_target_free (ls_remote_target *target);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_remote_target, ls_remote_target_free)

/* s in single quotes for a POSIX shell ('\'' for a quote). Newly allocated. */
char *ls_remote_quote (const char *s);

/* The local argv (NULL-terminated, owning its strings) that runs
 * remote_argv on the target: ssh -T -o BatchMode=yes [$LOADSCOPE_SSH_OPTIONS
 * split] HOST -- 'quoted' 'args', or PREFIX... args. ssh is $LOADSCOPE_SSH
 * or "ssh". */
GPtrArray *ls_remote_argv (const ls_remote_target *target, const char *const *remote_argv);

/* The argv of `sh -c SCRIPT sh ARGS...` on the target. */
GPtrArray *ls_remote_sh_argv (const ls_remote_target *target, const char *script, const char *const *args);

/* This build's version key: its version and the first 16 hex digits of
 * the sha256 of this executable ("0.1.0-3f2a..."). The bundle installed
 * by this executable goes into the folder of this name. Newly allocated. */
char *ls_remote_version_key (void);
/* The same for the runner executable at exe (NULL: this one): what a
 * window whose runs go through $LOADSCOPE will install to. */
char *ls_remote_version_key_of (const char *exe);

/* `loadscope remote install`: the bundle folder (a tests/device/bundle.sh
 * output) tarred, sent, checked by sha256 and unpacked into KEY/ on the
 * target. Progress on out. */
gboolean ls_remote_install (const ls_remote_target *target, const char *bundle_dir, FILE *out, GError **error);

/* `loadscope run --on TARGET ...`: argv is the run's arguments without
 * --on (argv[0] is "run"). Local options (--db, --no-db, --sweep-id,
 * --events, --json) stay here, the knobs go to the target. Returns the
 * exit status: 0 done, 1 failed or interrupted, 2 bad usage, a target
 * without the bundle, or a transport that failed (a sweep stops there). */
int ls_remote_run_main (const char *target_text, int argc, char **argv);

/* `loadscope remote collect TARGET`: every run store left on the target
 * (a dropped connection) merged into the local store db (NULL: default). */
int ls_remote_collect (const ls_remote_target *target, const char *db, FILE *out);

/* For a runner started on a target: when this process's stdin ends (the
 * connection dropped, the local side ended), it is stopped as Ctrl-C
 * would (its run recorded as interrupted). Called by `loadscope run` when
 * $LOADSCOPE_STOP_ON_STDIN_EOF is 1. */
void ls_remote_stop_on_stdin_eof (void);

/* ---- shared by the pieces ---- */

/* The scripts run on the target by `sh -c`. $1 is the version key. */
extern const char ls_remote_script_prelude[];

/* Runs argv with stdin from in_path (NULL: nothing), returns stdout (and
 * its length); NULL with the error naming the target, the exit status and
 * its stderr. exit_status (may be NULL) gets the exit code, -1 when it did
 * not exit. A command still running after limit_s seconds (0: the
 * default, ls_remote_command_limit_s) is ended and *timed_out (may be
 * NULL) set, with LS_REMOTE_ERROR_TIMEOUT. Runs in its own main context,
 * so any thread may call it. */
GBytes *ls_remote_command (const ls_remote_target *target, GPtrArray *argv, const char *in_path, guint limit_s,
                           GCancellable *cancellable, int *exit_status, GError **error);

/* How long a fetch, a list or an install may take in all:
 * LOADSCOPE_REMOTE_COMMAND_S (1 to 86400), else 600 s. */
guint ls_remote_command_limit_s (void);

/* Makes the runner's bundle in out_dir (which must not exist) from this
 * installation or build tree: this executable, its worker, the probe in
 * probe_dir and the settings schema, with the libraries they need (the
 * bundle maker, tests/device/bundle.sh). Its progress goes to stdout and
 * stderr. Not on Windows. */
gboolean ls_remote_make_bundle (const char *out_dir, const char *probe_dir, GError **error);

/* Why a transport failed, from its exit status and stderr, in words. */
char *ls_remote_transport_failure (const ls_remote_target *target, int exit_status, const char *stderr_text);

/* Whether the target answers and holds this version's bundle: a short
 * command there, ended after limit_s seconds. FALSE with the reason
 * otherwise (ls_remote_transport_failure's words: no bundle and the
 * command that installs it, ssh's refusal; or "did not answer in N s").
 * Blocking: the window asks through ls_remote_check_async. */
gboolean ls_remote_check (const ls_remote_target *target, const char *runner, guint limit_s,
                          GCancellable *cancellable, GError **error);

/* ls_remote_check of the target written as text, in a thread (20 s).
 * runner: the loadscope executable the runs will use (NULL: this one),
 * whose version the target must hold. */
void ls_remote_check_async (const char *target_text, const char *runner, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data);
gboolean ls_remote_check_finish (GAsyncResult *result, GError **error);

/* `runner remote install TARGET` (runner NULL: this executable) as a
 * subprocess, which makes the bundle from this installation and sends it:
 * the window's Install button. FALSE with "Installing failed: " and the
 * last of what it said. Cancelling ends the wait, not the install. */
void ls_remote_install_async (const char *target_text, const char *runner, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data);
gboolean ls_remote_install_finish (GAsyncResult *result, GError **error);

G_END_DECLS
