/* The probe's channel and the script's process tree under a hostile script
 * (tests/pytorch/hostile.py): a line past the cap, JSON past the
 * nesting cap, 8 MiB without a newline, a closed channel, forged events, a
 * child that leaves the session with setsid(), a script killed with its
 * workers' temporary files, SIGTERM, SIGINT and SIGKILL of the runner, and
 * a script whose name holds escapes, a newline and a byte that is not
 * UTF-8; `run` and `sweep`. Each run ends failed naming the script (or
 * done), and after each:
 * no process of the script's tree is left (a marker in their arguments and
 * environment, read through /proc), no loadscope-probe-* in the TMPDIR the
 * runner was given, the store passes PRAGMA integrity_check, and its JSON
 * export imports into a fresh store. Results only, never timings. Skipped,
 * saying so, where no interpreter here imports torch. The phases of
 * --timeout (valid lines that are no progress never hold a run past it; a
 * slow start is not a hang) also run with the protocol's stand-in
 * (tests/probe-standin.c, $LS_PROBE_STANDIN), torch or not. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "test-sql.h"
#include "test-util.h"

static char *scratch, *python, *hostile, *ordinary, *tmpdir, *standin;
static int serial;

typedef struct {
  int status; /* exit status, -1 when killed */
  char *out, *err;
} result;

static void
result_clear (result *r)
{
  g_free (r->out);
  g_free (r->err);
}

static GSubprocess *
start (const char *marker, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) g_getenv ("LOADSCOPE"));
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (char *) *a);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GSubprocessLauncher) l
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  /* The runner's own TMPDIR, so that what it leaves there is seen; the
   * marker reaches every process of the tree that keeps its environment. */
  g_subprocess_launcher_setenv (l, "TMPDIR", tmpdir, TRUE);
  g_subprocess_launcher_setenv (l, "LS_HOSTILE_MARKER", marker, TRUE);
  g_autoptr (GError) error = NULL;
  GSubprocess *p = g_subprocess_launcher_spawnv (l, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  return p;
}

static result
finish (GSubprocess *p)
{
  g_autoptr (GError) error = NULL;
  result r = { 0 };
  g_subprocess_communicate_utf8 (p, NULL, NULL, &r.out, &r.err, &error);
  g_assert_no_error (error);
  r.status = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
  return r;
}

static result
loadscope (const char *marker, const char *const *args)
{
  g_autoptr (GSubprocess) p = start (marker, args);
  return finish (p);
}

/* Whether the NUL-separated file holds marker. */
static gboolean
file_holds (const char *path, const char *marker)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &data, &len, NULL))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (data[i] == '\0')
      data[i] = ' ';
  return g_strstr_len (data, (gssize) len, marker) != NULL;
}

/* Processes whose arguments or environment hold marker (this one aside);
 * with `also`, only those whose arguments hold it too. */
static int
marked_processes (const char *marker, const char *also)
{
  int n = 0;
  g_autofree char *self = g_strdup_printf ("%d", (int) getpid ());
  GDir *d = g_dir_open ("/proc", 0, NULL);
  g_assert_nonnull (d);
  for (const char *name; (name = g_dir_read_name (d));)
    {
      if (!g_ascii_isdigit (name[0]) || strcmp (name, self) == 0)
        continue;
      g_autofree char *cmd = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *env = g_build_filename ("/proc", name, "environ", NULL);
      gboolean in_cmd = file_holds (cmd, marker);
      if (also ? in_cmd && file_holds (cmd, also) : in_cmd || file_holds (env, marker))
        n++;
    }
  g_dir_close (d);
  return n;
}

/* Waits (60 s at most: a deadline, not a measurement) until there are
 * `want` such processes (0: none). */
static gboolean
wait_processes (const char *marker, const char *also, gboolean want_some)
{
  for (int i = 0; i < 1200; i++)
    {
      int n = marked_processes (marker, also);
      if (want_some ? n > 0 : n == 0)
        return TRUE;
      g_usleep (50000);
    }
  return FALSE;
}

static int
probe_folders (void)
{
  int n = 0;
  GDir *d = g_dir_open (tmpdir, 0, NULL);
  g_assert_nonnull (d);
  for (const char *name; (name = g_dir_read_name (d));)
    if (g_str_has_prefix (name, "loadscope-probe-"))
      {
        g_test_message ("left in TMPDIR: %s", name);
        n++;
      }
  g_dir_close (d);
  return n;
}

/* What must hold after every run: nothing of the tree, nothing in TMPDIR,
 * a sound store whose export imports again. */
static void
check_after (const char *marker, const char *db)
{
  g_assert_true (wait_processes (marker, NULL, FALSE));
  g_assert_cmpint (probe_folders (), ==, 0);
  g_autofree char *check = ls_test_sql_text (db, "PRAGMA integrity_check");
  g_assert_cmpstr (check, ==, "ok");
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run"), >=, 1);
  g_autofree char *json = g_strdup_printf ("%s.json", db);
  g_autofree char *fresh = g_strdup_printf ("%s.fresh.sqlite", db);
  const char *exp[] = { "export", "--db", db, "--all", "--format", "json", "-o", json, "--force", NULL };
  result r = loadscope ("none", exp);
  g_test_message ("export: %d %s", r.status, r.err);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  const char *imp[] = { "import", "--db", fresh, json, NULL };
  r = loadscope ("none", imp);
  g_test_message ("import: %d %s", r.status, r.err);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
}

static gboolean
need_torch (void)
{
  if (python)
    return TRUE;
  g_test_skip ("no interpreter here imports torch (install python3-torch)");
  return FALSE;
}

typedef struct {
  const char *mode, *timeout;
  int status;
  const char *expect; /* in stderr, with the script's name; NULL: a run that is done */
} hostile_case;

static const hostile_case cases[] = {
  { "bracket", "60", 1, "a line longer than 1048576 bytes" },
  { "deep", "60", 1, "nested more than 64 levels" },
  { "nonewline", "60", 1, "a line longer than 1048576 bytes" },
  /* the clock starts at the close, after torch's import (the probe's line) */
  { "close", "15", 1, "closed the probe's channel and did not end within 15 s" },
  { "forge-seq", "60", 1, "batch.seq" },
  { "forge-samples", "60", 1, "batch.samples: 4294967615 is out of range" },
  { "forge-pid", "60", 1, "pid 1 cannot be a worker" },
  { "setsid", "60", 0, NULL },
  { "tempfiles", "60", 1, "hostile.py was killed by signal 9" },
  /* a "finished" line the script wrote itself, then os._exit(0) */
  { "forge-finished", "60", 1, "wrote a \"finished\" line that is not the probe's own end" },
  { "forge-finished-late", "60", 1, "wrote a \"finished\" line that is not the probe's own end" },
  /* a valid line every 0.5 s is no progress: the phase's clock runs on */
  { "chatter-early", "3", 1, "did not build a torch.utils.data.DataLoader within 3 s" },
  { "chatter", "3", 1, "hung: no batch for 3 s (--timeout) after " },
};

static void
test_case (gconstpointer data)
{
  const hostile_case *c = data;
  if (!need_torch ())
    return;
  g_autofree char *marker = g_strdup_printf ("lsmark-%d-%d-%s", (int) getpid (), ++serial, c->mode);
  g_autofree char *db = g_strdup_printf ("%s/%s.sqlite", scratch, c->mode);
  g_autofree char *args = g_strdup_printf ("%s %s", c->mode, marker);
  const char *argv[] = { "run", "--target", "pytorch", "--script", hostile, "--python", python, "--script-args", args,
                         "--batches", "100", "--timeout", c->timeout, "--db", db, NULL };
  result r = loadscope (marker, argv);
  g_test_message ("%s: exit %d: %s", c->mode, r.status, r.err);
  g_assert_cmpint (r.status, ==, c->status);
  if (c->expect)
    {
      g_assert_nonnull (strstr (r.err, "hostile.py"));
      g_assert_nonnull (strstr (r.err, c->expect));
    }
  result_clear (&r);
  check_after (marker, db);
  /* A forged pid is never stored (nor sampled). */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM worker WHERE pid <= 1"), ==, 0);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch WHERE seq < 0 OR samples > 65536"), ==, 0);
}

typedef struct {
  const char *name, *args, *timeout;
  const char *expect; /* the run's error; NULL: a run that is done */
} phase_case;

/* Runs of the stand-in: --timeout per phase (lines that are no progress,
 * before the DataLoader and after the batches, and a start, torch's
 * import, or a worker set's start longer than --timeout, which have their
 * own allowance), and
 * figures past what the store keeps. */
static const phase_case phase_cases[] = {
  { "chatter-early", "--chatter early", "2", "did not build a torch.utils.data.DataLoader within 2 s" },
  { "chatter-late", "--batches 2 --chatter late", "2", "hung: no batch for 2 s (--timeout) after 2 batches" },
  { "slow-start", "--start-ms 3000 --batches 2", "1", NULL },
  /* a worker set's start (spawned workers import torch) has the same allowance */
  { "slow-workers", "--workers-start-ms 3000 --batches 2", "1", NULL },
  /* the script's CPU time forged: its cpu_percent past the store's range
   * is stored unknown, and the export imports again (check_after) */
  { "forged-cpu", "--batches 2 --cpu-ms 9999999999", "60", NULL },
  /* a "finished" without the runner's end token, then exit status 0 */
  { "forged-finished", "--batches 2 --forge", "60",
    "hostile.py wrote a \"finished\" line that is not the probe's own end (its end proof is missing)" },
  /* the probe's "finished", then an exit that is not the probe's own */
  { "finished-then-exit-3", "--batches 2 --exit-after-finished 3", "60",
    "reported its end, then exited with code 3 (the probe's own end exits with status 0)" },
};

static void
test_phase (gconstpointer data)
{
  const phase_case *c = data;
  g_autofree char *marker = g_strdup_printf ("lsmark-%d-%d-phase-%s", (int) getpid (), ++serial, c->name);
  g_autofree char *db = g_strdup_printf ("%s/phase-%s.sqlite", scratch, c->name);
  const char *argv[] = { "run", "--target", "pytorch", "--script", hostile, "--python", standin, "--script-args", c->args,
                         "--timeout", c->timeout, "--db", db, NULL };
  result r = loadscope (marker, argv);
  g_test_message ("%s: exit %d: %s", c->name, r.status, r.err);
  g_assert_cmpint (r.status, ==, c->expect ? 1 : 0);
  if (c->expect)
    g_assert_nonnull (strstr (r.err, c->expect));
  result_clear (&r);
  check_after (marker, db);
  g_autofree char *status = ls_test_sql_text (db, "SELECT status FROM run");
  g_assert_cmpstr (status, ==, c->expect ? "failed" : "done");
}

/* Scripts plain python runs (tests/pytorch/ordinary.py): never refused
 * for their knobs' types or sizes; the run is done and stored. */
static const char *const ordinary_modes[] = { "np-int64",  "mp-context",   "huge-len",
                                              "big-batch", "many-workers", "iterable-len" };

static void
test_ordinary (gconstpointer data)
{
  const char *mode = data;
  if (!need_torch ())
    return;
  g_autofree char *marker = g_strdup_printf ("lsmark-%d-%d-ordinary-%s", (int) getpid (), ++serial, mode);
  g_autofree char *db = g_strdup_printf ("%s/ordinary-%s.sqlite", scratch, mode);
  g_autofree char *args = g_strdup_printf ("%s %s", mode, marker);
  const char *argv[] = { "run", "--target", "pytorch", "--script", ordinary, "--python", python, "--script-args", args,
                         "--batches", "3", "--timeout", "120", "--db", db, NULL };
  result r = loadscope (marker, argv);
  g_test_message ("%s: exit %d: %s", mode, r.status, r.err);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  check_after (marker, db);
  g_autofree char *status = ls_test_sql_text (db, "SELECT status FROM run");
  g_assert_cmpstr (status, ==, "done");
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch"), ==, 3);
}

/* A working folder holding torch/ and loadscope_probe.py (which forges a
 * "finished"): neither shadows torch nor the probe, and the run is the
 * script's own, done with its batches. */
static void
test_shadowing_folder (void)
{
  if (!need_torch ())
    return;
  g_autofree char *cwd = g_build_filename (scratch, "shadow", NULL);
  g_autofree char *fake_torch = g_build_filename (cwd, "torch", NULL);
  g_assert_cmpint (g_mkdir_with_parents (fake_torch, 0700), ==, 0);
  g_autofree char *init = g_build_filename (fake_torch, "__init__.py", NULL);
  g_assert_true (g_file_set_contents (init, "raise ImportError('the working folder shadowed torch')\n", -1, NULL));
  g_autofree char *fake_probe = g_build_filename (cwd, "loadscope_probe.py", NULL);
  g_assert_true (g_file_set_contents (fake_probe,
                                      "import os\n"
                                      "fd = int(os.environ['LOADSCOPE_PROBE_FD'])\n"
                                      "os.write(fd, b'{\"event\":\"finished\",\"reason\":\"script_ended\"}\\n')\n",
                                      -1, NULL));
  g_autofree char *marker = g_strdup_printf ("lsmark-%d-%d-shadow", (int) getpid (), ++serial);
  g_autofree char *db = g_strdup_printf ("%s/shadow.sqlite", scratch);
  g_autofree char *args = g_strdup_printf ("normal %s", marker);
  const char *argv[] = { g_getenv ("LOADSCOPE"), "run", "--target", "pytorch", "--script", hostile, "--python", python,
                         "--script-args", args, "--batches", "100", "--db", db, NULL };
  g_autoptr (GSubprocessLauncher) l
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (l, cwd);
  g_subprocess_launcher_setenv (l, "TMPDIR", tmpdir, TRUE);
  g_subprocess_launcher_setenv (l, "LS_HOSTILE_MARKER", marker, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_launcher_spawnv (l, argv, &error);
  g_assert_no_error (error);
  result r = finish (p);
  g_test_message ("shadow: exit %d: %s", r.status, r.err);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  check_after (marker, db);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch"), >=, 3);
}

/* A sweep of hostile scripts: every configuration's tree ends with its
 * run, and the sweep goes on to the next (no row left running). */
static void
test_sweep (gconstpointer data)
{
  const hostile_case *c = data;
  if (!need_torch ())
    return;
  g_autofree char *marker = g_strdup_printf ("lsmark-%d-%d-sweep-%s", (int) getpid (), ++serial, c->mode);
  g_autofree char *db = g_strdup_printf ("%s/sweep-%s.sqlite", scratch, c->mode);
  g_autofree char *args = g_strdup_printf ("%s %s", c->mode, marker);
  const char *argv[] = { "sweep", "--target", "pytorch", "--script", hostile, "--python", python, "--script-args", args,
                         "--workers", "0,1", "--batches", "100", "--timeout", c->timeout, "--db", db, NULL };
  result r = loadscope (marker, argv);
  g_test_message ("sweep %s: exit %d: %s", c->mode, r.status, r.err);
  g_assert_cmpint (r.status, ==, c->status);
  if (c->expect)
    g_assert_nonnull (strstr (r.err, c->expect));
  result_clear (&r);
  check_after (marker, db);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run"), ==, 2);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'running'"), ==, 0);
}

static const hostile_case sweep_cases[] = {
  { "setsid", "60", 0, NULL },
  { "close", "15", 1, "closed the probe's channel" },
};

/* SIGTERM or SIGINT to the runner while the script has closed its channel
 * and sleeps: the run ends interrupted, the tree with it. */
static void
test_signal (gconstpointer data)
{
  int sig = GPOINTER_TO_INT (data);
  if (!need_torch ())
    return;
  g_autofree char *marker = g_strdup_printf ("lsmark-%d-%d-signal%d", (int) getpid (), ++serial, sig);
  g_autofree char *db = g_strdup_printf ("%s/signal-%d.sqlite", scratch, sig);
  g_autofree char *args = g_strdup_printf ("close %s", marker);
  const char *argv[] = { "run", "--target", "pytorch", "--script", hostile, "--python", python, "--script-args", args,
                         "--batches", "100", "--timeout", "600", "--db", db, NULL };
  g_autoptr (GSubprocess) p = start (marker, argv);
  g_assert_true (wait_processes (marker, "loadscope_probe", TRUE));
  g_subprocess_send_signal (p, sig);
  result r = finish (p);
  g_test_message ("signal %d: exit %d: %s", sig, r.status, r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "interrupted"));
  result_clear (&r);
  check_after (marker, db);
}

/* SIGKILL of the runner: the interpreter dies with it (PR_SET_PDEATHSIG);
 * the per-run folder it could not remove goes with the next run. */
static void
test_runner_killed (void)
{
  if (!need_torch ())
    return;
  g_autofree char *marker = g_strdup_printf ("lsmark-%d-%d-killed", (int) getpid (), ++serial);
  g_autofree char *args = g_strdup_printf ("close %s", marker);
  const char *argv[] = { "run", "--target", "pytorch", "--script", hostile, "--python", python, "--script-args", args,
                         "--batches", "100", "--timeout", "600", "--no-db", NULL };
  g_autoptr (GSubprocess) p = start (marker, argv);
  g_assert_true (wait_processes (marker, "loadscope_probe", TRUE));
  g_subprocess_force_exit (p);
  result r = finish (p);
  g_assert_cmpint (r.status, ==, -1);
  result_clear (&r);
  g_assert_true (wait_processes (marker, NULL, FALSE));
  /* The next run removes the folder of a runner that is gone. */
  g_autofree char *db = g_strdup_printf ("%s/after-kill.sqlite", scratch);
  g_autofree char *next = g_strdup_printf ("normal %s-next", marker);
  const char *again[] = { "run", "--target", "pytorch", "--script", hostile, "--python", python, "--script-args", next,
                          "--batches", "100", "--db", db, NULL };
  r = loadscope (marker, again);
  g_test_message ("the next run: exit %d: %s", r.status, r.err);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  check_after (marker, db);
}

/* `esc\e[31m\n\xff.py`: the target line shows it escaped, the store and its
 * export keep UTF-8. */
static void
test_escaped_name (void)
{
  if (!need_torch ())
    return;
  g_autofree char *name = g_build_filename (scratch, "esc\033[31m\n\377.py", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (hostile, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (name, text, -1, NULL));
  g_autofree char *marker = g_strdup_printf ("lsmark-%d-%d-escaped", (int) getpid (), ++serial);
  g_autofree char *db = g_strdup_printf ("%s/escaped.sqlite", scratch);
  g_autofree char *args = g_strdup_printf ("normal %s", marker);
  const char *argv[] = { "run", "--target", "pytorch", "--script", name, "--python", python, "--script-args", args,
                         "--batches", "100", "--db", db, NULL };
  g_autoptr (GSubprocess) p = start (marker, argv);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) out = NULL, err = NULL;
  g_subprocess_communicate (p, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  gsize len = 0;
  const char *o = g_bytes_get_data (out, &len);
  g_test_message ("exit %d", g_subprocess_get_exit_status (p));
  g_assert_cmpint (g_subprocess_get_exit_status (p), ==, 0);
  g_assert_null (memchr (o, '\033', len));
  g_assert_null (memchr (o, '\377', len));
  g_autofree char *shown = g_strndup (o, len);
  g_assert_nonnull (strstr (shown, "target:            pytorch: esc\\x1b[31m\\x0a"));
  check_after (marker, db);
}

/* Text that would act on a terminal or a viewer: ESC ] title BEL, a clear,
 * CR, DEL, the one-byte CSI (U+009B), and the bidirectional controls
 * U+202E, U+2066 and U+061C. */
#define NASTY "\033]0;PWNED\007\033[2J\r\177\302\233 \342\200\256rtl \342\201\246iso \330\234end"

/* The first byte of data that must not reach an output from recorded
 * text (a C0 control other than newline and tab, DEL, a C1 control, a
 * bidirectional control), as an offset, or -1. CSV ends its lines with
 * CRLF (RFC 4180), its own; a recorded CR is U+FFFD there. */
static gssize
first_raw_control (const char *data, gsize len, gboolean csv)
{
  const guchar *p = (const guchar *) data;
  for (gsize i = 0; i < len; i++)
    {
      if (csv && p[i] == '\r' && i + 1 < len && p[i + 1] == '\n')
        continue;
      if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f)
        return (gssize) i;
      if (i + 1 < len && p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] < 0xa0)
        return (gssize) i;
      if (i + 1 < len && p[i] == 0xd8 && p[i + 1] == 0x9c)
        return (gssize) i;
      if (i + 2 < len && p[i] == 0xe2 && p[i + 1] == 0x80 && (p[i + 2] == 0x8e || p[i + 2] == 0x8f
                                                              || (p[i + 2] >= 0xaa && p[i + 2] <= 0xae)))
        return (gssize) i;
      if (i + 2 < len && p[i] == 0xe2 && p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)
        return (gssize) i;
    }
  return -1;
}

static void
assert_clean (const char *what, const char *data, gsize len)
{
  gssize at = first_raw_control (data, len, g_str_has_prefix (what, "export"));
  if (at >= 0)
    {
      gsize from = (gsize) MAX (at - 40, 0);
      g_autofree char *piece = g_strndup (data + from, MIN (80, len - from));
      g_autofree char *around = g_strescape (piece, NULL);
      g_error ("%s: a raw control at byte %" G_GSSIZE_FORMAT ": ...%s...", what, at, around);
    }
}

static void
assert_clean_file (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >, 0);
  assert_clean (path, data, len);
}

static void
assert_clean_cli (const char *what, const char *const *args, int status)
{
  result r = loadscope ("none", args);
  g_test_message ("%s: exit %d: %s", what, r.status, r.err);
  g_assert_cmpint (r.status, ==, status);
  assert_clean (what, r.out, strlen (r.out));
  assert_clean (what, r.err, strlen (r.err));
  result_clear (&r);
}

/* A run and a sweep whose every text field carries NASTY (the script's
 * file name and arguments, its error and traceback; the machine's names
 * and the sweep's error written into the store): nothing of it reaches
 * stdout, stderr, the reports or CSV raw. */
static void
test_text_fields_clean_everywhere (void)
{
  g_autofree char *script = g_build_filename (scratch, "train" NASTY ".py", NULL);
  g_assert_true (g_file_set_contents (script, "# the stand-in does not read it\n", -1, NULL));
  g_autofree char *db = g_strdup_printf ("%s/nasty.sqlite", scratch);
  const char *args = "--batches 2 --error '" NASTY "'";
  const char *run[] = { "run", "--target", "pytorch", "--script", script, "--python", standin, "--script-args", args,
                        "--timeout", "60", "--db", db, NULL };
  assert_clean_cli ("run", run, 1);
  const char *sweep[] = { "sweep", "--target", "pytorch", "--script", script, "--python", standin, "--script-args", args,
                          "--workers", "0", "--timeout", "60", "--db", db, NULL };
  assert_clean_cli ("sweep", sweep, 1);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE instr(error, 'PWNED') > 0"), ==, 2);
  ls_test_sql_exec (db, "UPDATE machine SET hostname = hostname || '" NASTY "', os = os || '" NASTY
                        "', kernel = kernel || '" NASTY "', cpu_model = cpu_model || '" NASTY "', gpu = '" NASTY
                        "', driver = '" NASTY "', cuda = '" NASTY "'; UPDATE sweep SET error = '" NASTY "'");
  const char *const reads[][12] = {
    { "history", "--db", db },
    { "history", "--json", "--db", db },
    { "show", "1", "--db", db },
    { "show", "2", "--db", db },
    { "show", "1", "--json", "--db", db },
    { "compare", "1", "2", "--db", db },
    { "export", "--all", "--format", "csv", "-o", "-", "--db", db },
    { "export", "--all", "--batches", "--format", "csv", "-o", "-", "--db", db },
  };
  for (guint i = 0; i < G_N_ELEMENTS (reads); i++)
    assert_clean_cli (reads[i][0], reads[i], 0);
  const char *formats[] = { "html", "md" };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autofree char *one = g_strdup_printf ("%s/nasty-run.%s", scratch, formats[f]);
      g_autofree char *sw = g_strdup_printf ("%s/nasty-sweep.%s", scratch, formats[f]);
      const char *report_run[] = { "report", "--run", "1", "--format", formats[f], "-o", one, "--db", db, NULL };
      const char *report_sweep[] = { "report", "--sweep", "1", "--format", formats[f], "-o", sw, "--db", db, NULL };
      assert_clean_cli ("report --run", report_run, 0);
      assert_clean_cli ("report --sweep", report_sweep, 0);
      assert_clean_file (one);
      assert_clean_file (sw);
    }
  /* The text is kept, shown escaped. */
  result r = loadscope ("none", (const char *[]){ "show", "1", "--db", db, NULL });
  g_assert_nonnull (strstr (r.out, "\\x1b]0;PWNED\\x07"));
  g_assert_nonnull (strstr (r.out, "\\u202ertl"));
  result_clear (&r);
}

static char *
find_python (void)
{
  const char *candidates[] = { g_getenv ("LS_TEST_PYTHON"), "/usr/bin/python3", "python3" };
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      if (!candidates[i])
        continue;
      const char *argv[] = { candidates[i], "-c", "import torch", NULL };
      int status = -1;
      if (g_spawn_sync (NULL, (char **) argv, NULL,
                        G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL,
                        NULL, &status, NULL)
          && g_spawn_check_wait_status (status, NULL))
        return g_strdup (candidates[i]);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-hostile-probe-XXXXXX", NULL);
  tmpdir = g_build_filename (scratch, "tmp", NULL);
  g_assert_cmpint (g_mkdir (tmpdir, 0700), ==, 0);
  hostile = g_build_filename (g_getenv ("LS_TEST_DATA"), "..", "pytorch", "hostile.py", NULL);
  ordinary = g_build_filename (g_getenv ("LS_TEST_DATA"), "..", "pytorch", "ordinary.py", NULL);
  python = find_python ();
  standin = g_strdup (g_getenv ("LS_PROBE_STANDIN"));
  if (!standin || !*standin)
    g_error ("set LS_PROBE_STANDIN to tests/probe-standin (meson does)");
  for (guint i = 0; i < G_N_ELEMENTS (phase_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/hostile-probe/phase-%s", phase_cases[i].name);
      g_test_add_data_func (path, &phase_cases[i], test_phase);
    }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/hostile-probe/%s", cases[i].mode);
      g_test_add_data_func (path, &cases[i], test_case);
    }
  for (guint i = 0; i < G_N_ELEMENTS (sweep_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/hostile-probe/sweep-%s", sweep_cases[i].mode);
      g_test_add_data_func (path, &sweep_cases[i], test_sweep);
    }
  for (guint i = 0; i < G_N_ELEMENTS (ordinary_modes); i++)
    {
      g_autofree char *path = g_strdup_printf ("/hostile-probe/ordinary-%s", ordinary_modes[i]);
      g_test_add_data_func (path, ordinary_modes[i], test_ordinary);
    }
  g_test_add_func ("/hostile-probe/shadowing-folder", test_shadowing_folder);
  g_test_add_data_func ("/hostile-probe/sigterm", GINT_TO_POINTER (SIGTERM), test_signal);
  g_test_add_data_func ("/hostile-probe/sigint", GINT_TO_POINTER (SIGINT), test_signal);
  g_test_add_func ("/hostile-probe/runner-killed", test_runner_killed);
  g_test_add_func ("/hostile-probe/escaped-name", test_escaped_name);
  g_test_add_func ("/hostile-probe/text-fields-clean-everywhere", test_text_fields_clean_everywhere);
  int rc = g_test_run ();
  ls_test_remove_tree (scratch);
  return rc;
}
