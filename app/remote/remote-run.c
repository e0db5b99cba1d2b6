/* `loadscope run --on TARGET ...`: the run on the target, followed from
 * here. The target's runner streams its events on the transport's stdout;
 * they are passed on as they come (a sweep or the window reads them as a
 * local runner's). When it ends, its store file is fetched as an export
 * bundle and imported into the local store, so the run keeps the target's
 * machine identity; its "finished" event is passed on only then, with the
 * run's local id. The transport's stdin stays open for the run's life:
 * when this process ends or is stopped it closes, and the runner there
 * ends its run as interrupted (ls_remote_stop_on_stdin_eof). */
#include "app/remote/remote.h"
#include "app/core/i18n.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <json-glib/json-glib.h>
#include <glib/gstdio.h>

#include "app/core/run-events.h"
#include "app/core/tmp-dir.h"
#include "app/store/import.h"
#include "app/store/run-sweep.h"
#include "app/store/store.h"
#include "platform/interrupt.h"

static const char run_script[]
    = "need_bundle\n"
      "f=$2\n"
      "shift 2\n"
      "mkdir -p \"$d/runs\" || exit 98\n"
      "echo $$ > \"$d/runs/$f.pid\"\n"
      "echo loadscope-remote-ready >&2\n"
      "LOADSCOPE_STOP_ON_STDIN_EOF=1 exec \"$d/loadscope\" run --db \"$d/runs/$f.sqlite\" \"$@\"\n";

/* Waits for the runner of that store to end (its pid file names it; its
 * command line holds the store's name: `remote wait-runner`), then exports
 * the store as a bundle on stdout. */
static const char fetch_script[]
    = "need_bundle\n"
      "r=$d/runs/$2\n"
      "\"$d/loadscope\" remote wait-runner \"$r.pid\" \"$2\"\n"
      "[ -f \"$r.sqlite\" ] || { echo \"no run store $r.sqlite on the target\" >&2; exit 98; }\n"
      "rm -f \"$r.bundle\"\n"
      "\"$d/loadscope\" export --db \"$r.sqlite\" --all --format sqlite -o \"$r.bundle\" >/dev/null || exit 98\n"
      "exec cat \"$r.bundle\"\n";

static const char forget_script[]
    = "r=$d/runs/$2\n"
      "rm -f \"$r.sqlite\" \"$r.sqlite-wal\" \"$r.sqlite-shm\" \"$r.bundle\" \"$r.pid\"\n";

typedef struct {
  const ls_remote_target *target;
  GMainLoop *loop;
  GSubprocess *proc;
  GOutputStream *to_target;
  GDataInputStream *out, *err;
  FILE *events;          /* where events go (NULL: nowhere) */
  gboolean out_done, err_done, exited;
  gboolean started;      /* the runner said "started" */
  gboolean answered;     /* the target's shell said it is about to start the runner */
  gboolean no_answer;    /* ended here: it did not answer in time */
  guint answer_limit;    /* the source that ends it then (0: gone) */
  gboolean passthrough;  /* run --diagnose: its report, not events, comes back (to stdout) */
  JsonObject *summary;   /* of its "finished" */
  GString *said;         /* its stderr, the last lines */
  volatile sig_atomic_t *stops;
  sig_atomic_t stops_seen;
} follow;

static void
maybe_quit (follow *f)
{
  if (f->out_done && f->err_done && f->exited)
    g_main_loop_quit (f->loop);
}

static void
emit_line (follow *f, const char *line)
{
  if (!f->events)
    return;
  fputs (line, f->events);
  fputc ('\n', f->events);
  fflush (f->events);
}

static void on_out_line (GObject *source, GAsyncResult *result, gpointer user_data);

static void
on_out_line (GObject *source, GAsyncResult *result, gpointer user_data)
{
  follow *f = user_data;
  gsize len = 0;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, &len, NULL);
  if (!line)
    {
      f->out_done = TRUE;
      maybe_quit (f);
      return;
    }
  if (f->passthrough)
    {
      /* The target's report, printed here: its controls (escapes) shown, not obeyed. */
      g_autofree char *valid = g_utf8_make_valid (line, (gssize) len);
      GString *shown = g_string_sized_new (strlen (valid));
      for (const char *p = valid; *p; p = g_utf8_next_char (p))
        {
          gunichar c = g_utf8_get_char (p);
          if (g_unichar_iscntrl (c) && c != '\t')
            g_string_append_printf (shown, "\\x%02x", c);
          else
            g_string_append_unichar (shown, c);
        }
      printf ("%s\n", shown->str);
      fflush (stdout);
      g_string_free (shown, TRUE);
      g_data_input_stream_read_line_async (f->out, G_PRIORITY_DEFAULT, NULL, on_out_line, f);
      return;
    }
  g_autoptr (JsonObject) event = ls_run_events_parse_line (line, len);
  if (!event)
    {
      /* Not an event: the runner's own words. */
      g_autofree char *valid = g_utf8_make_valid (line, (gssize) len);
      fprintf (stderr, "%s\n", valid);
    }
  else
    {
      const char *kind = json_object_get_string_member_with_default (event, "event", "");
      if (strcmp (kind, "finished") == 0)
        {
          JsonNode *s = json_object_get_member (event, "summary");
          if (s && JSON_NODE_HOLDS_OBJECT (s))
            {
              g_clear_pointer (&f->summary, json_object_unref);
              f->summary = json_object_ref (json_node_get_object (s));
            }
        }
      else
        {
          if (strcmp (kind, "started") == 0)
            f->started = TRUE;
          /* Its run id is the target store's: not one of this store. */
          if (json_object_has_member (event, "run_id"))
            {
              g_autoptr (JsonObject) copy = json_object_new ();
              g_autoptr (GList) members = json_object_get_members (event);
              for (GList *l = members; l; l = l->next)
                if (strcmp (l->data, "run_id") != 0)
                  json_object_set_member (copy, l->data, json_node_copy (json_object_get_member (event, l->data)));
              g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
              json_node_set_object (node, copy);
              g_autofree char *text = json_to_string (node, FALSE);
              emit_line (f, text);
            }
          else
            emit_line (f, line);
        }
    }
  g_data_input_stream_read_line_async (f->out, G_PRIORITY_DEFAULT, NULL, on_out_line, f);
}

static void
on_err_line (GObject *source, GAsyncResult *result, gpointer user_data)
{
  follow *f = user_data;
  gsize len = 0;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, &len, NULL);
  if (!line)
    {
      f->err_done = TRUE;
      maybe_quit (f);
      return;
    }
  g_autofree char *valid = g_utf8_make_valid (line, (gssize) len);
  if (strcmp (valid, "loadscope-remote-ready") == 0)
    f->answered = TRUE;
  if (!g_str_has_prefix (valid, "loadscope-remote"))
    fprintf (stderr, "%s\n", valid);
  g_string_append_printf (f->said, "%s\n", valid);
  if (f->said->len > 8192)
    g_string_erase (f->said, 0, (gssize) f->said->len - 8192);
  g_data_input_stream_read_line_async (f->err, G_PRIORITY_DEFAULT, NULL, on_err_line, f);
}

static void
on_exit (GObject *source, GAsyncResult *result, gpointer user_data)
{
  follow *f = user_data;
  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  f->exited = TRUE;
  maybe_quit (f);
}

/* A stop (Ctrl-C, the sweep's cancel): the transport's stdin closes, the
 * runner there ends its run as interrupted and says so; a second stop
 * ends the transport at once. */
static gboolean
on_tick (gpointer user_data)
{
  follow *f = user_data;
  if (*f->stops > f->stops_seen)
    {
      f->stops_seen = *f->stops;
      if (f->to_target && !g_output_stream_is_closed (f->to_target))
        g_output_stream_close (f->to_target, NULL, NULL);
      else if (!f->exited)
        g_subprocess_force_exit (f->proc);
    }
  return G_SOURCE_CONTINUE;
}

/* A target that has not answered by now never will: an exec: prefix whose
 * container is stopped or paused, a command that waits for a password on
 * the terminal (ssh has its own ConnectTimeout; a prefix has none). */
static gboolean
on_no_answer (gpointer user_data)
{
  follow *f = user_data;
  f->answer_limit = 0;
  if (!f->answered && !f->exited)
    {
      f->no_answer = TRUE;
      g_subprocess_force_exit (f->proc);
    }
  return G_SOURCE_REMOVE;
}

/* How long a target has to answer: LOADSCOPE_REMOTE_ANSWER_S (1 to 3600),
 * else 60 s. */
static guint
answer_limit_s (void)
{
  const char *text = g_getenv ("LOADSCOPE_REMOTE_ANSWER_S");
  guint64 v = 0;
  if (text && g_ascii_string_to_unsigned (text, 10, 1, 3600, &v, NULL))
    return (guint) v;
  return 60;
}

static void
emit_error (follow *f, const char *message)
{
  fprintf (stderr, "loadscope run: %s\n", message);
  if (!f->events)
    return;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "event");
  json_builder_add_string_value (b, "error");
  json_builder_set_member_name (b, "message");
  json_builder_add_string_value (b, message);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree char *text = json_to_string (root, FALSE);
  emit_line (f, text);
}

static void
emit_finished (follow *f, JsonObject *summary)
{
  g_autoptr (JsonObject) event = json_object_new ();
  json_object_set_string_member (event, "event", "finished");
  json_object_set_object_member (event, "summary", json_object_ref (summary));
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, event);
  g_autofree char *text = json_to_string (node, FALSE);
  emit_line (f, text);
}

/* The run's store on the target into the local one; its local id. */
static gint64
bring_home (const ls_remote_target *target, const char *key, const char *name, const char *db, gint64 sweep_id,
            GError **error)
{
  const char *args[] = { key, name, NULL };
  g_autofree char *script = g_strconcat (ls_remote_script_prelude, fetch_script, NULL);
  g_autoptr (GPtrArray) argv = ls_remote_sh_argv (target, script, args);
  g_autoptr (GBytes) bundle = ls_remote_command (target, argv, NULL, 0, NULL, NULL, error);
  if (!bundle)
    return -1;
  g_autofree char *tmp = ls_tmp_dir_make ("loadscope-remote-", error); /* a killed one's: removed */
  if (!tmp)
    return -1;
  g_autofree char *path = g_build_filename (tmp, "run.sqlite", NULL);
  gint64 id = -1;
  g_autoptr (ls_store) store = NULL;
  g_autoptr (GArray) runs = NULL;
  ls_import_counts counts;
  if (g_file_set_contents (path, g_bytes_get_data (bundle, NULL), (gssize) g_bytes_get_size (bundle), error)
      && (store = ls_store_open (db, error)) && ls_import_file_runs (store, path, &counts, &runs, error))
    {
      if (runs->len == 0)
        g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED, _("the run's store on %s holds no run"),
                     target->text);
      else
        {
          id = g_array_index (runs, ls_import_run, runs->len - 1).local_id;
          if (sweep_id > 0 && !ls_store_run_set_sweep (store, id, sweep_id, error))
            id = -1;
        }
    }
  ls_tmp_dir_remove (tmp);
  if (id > 0)
    {
      /* At home now: the target's copy goes (best effort). */
      g_autofree char *forget = g_strconcat (ls_remote_script_prelude, forget_script, NULL);
      g_autoptr (GPtrArray) argv2 = ls_remote_sh_argv (target, forget, args);
      g_autoptr (GBytes) none = ls_remote_command (target, argv2, NULL, 0, NULL, NULL, NULL);
    }
  return id;
}

static volatile sig_atomic_t stops;

int
ls_remote_run_main (const char *target_text, int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_remote_target) target = ls_remote_target_parse (target_text, &error);
  if (!target)
    {
      fprintf (stderr, "loadscope run: %s\n", error->message);
      return 2;
    }

  /* The local options; everything else goes to the target's runner. */
  char *db = NULL, *events_path = NULL;
  gboolean no_db = FALSE, json = FALSE, diagnose = FALSE;
  gint64 sweep_id = 0;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, NULL, NULL },
    { "no-db", 0, 0, G_OPTION_ARG_NONE, &no_db, NULL, NULL },
    { "sweep-id", 0, 0, G_OPTION_ARG_INT64, &sweep_id, NULL, NULL },
    { "events", 0, 0, G_OPTION_ARG_FILENAME, &events_path, NULL, NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, NULL, NULL },
    { "diagnose", 0, 0, G_OPTION_ARG_NONE, &diagnose, NULL, NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_ignore_unknown_options (context, TRUE);
  g_option_context_set_help_enabled (context, FALSE);
  char **args = g_new0 (char *, (gsize) argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  int exit_code = 2;
  follow f = { .target = target, .said = g_string_new (NULL), .stops = &stops };
  g_autoptr (GPtrArray) remote = g_ptr_array_new ();
  g_autofree char *key = ls_remote_version_key ();
  g_autofree char *name = g_uuid_string_random ();
  g_autofree char *script = g_strconcat (ls_remote_script_prelude, run_script, NULL);
  g_autoptr (GPtrArray) local = NULL;
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GError) home_error = NULL;
  g_autofree char *why = NULL, *m = NULL;
  gint64 local_id = 0;
  int status = -1;

  if (!g_option_context_parse_strv (context, &args, &error))
    {
      fprintf (stderr, "loadscope run: %s\n", error->message);
      goto out;
    }
  if (events_path && strcmp (events_path, "-") == 0)
    f.events = stdout;
  else if (events_path && !(f.events = g_fopen (events_path, "w")))
    {
      fprintf (stderr, _("loadscope run: --events %s: cannot be written\n"), events_path);
      goto out;
    }

  g_ptr_array_add (remote, key);
  g_ptr_array_add (remote, name);
  for (guint i = 1; args[i]; i++)
    g_ptr_array_add (remote, args[i]);
  if (diagnose)
    {
      /* Its three runs are not recorded: its report comes back as it is
       * printed there (--json: its JSON), nothing to bring home. */
      f.passthrough = TRUE;
      g_ptr_array_add (remote, (char *) "--diagnose");
      if (json)
        g_ptr_array_add (remote, (char *) "--json");
    }
  else
    {
      g_ptr_array_add (remote, (char *) "--events");
      g_ptr_array_add (remote, (char *) "-");
    }
  g_ptr_array_add (remote, NULL);
  local = ls_remote_sh_argv (target, script, (const char *const *) remote->pdata);

  launcher = g_subprocess_launcher_new (
      G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  f.proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) local->pdata, &error);
  if (!f.proc)
    {
      m = g_strdup_printf (_("%s: could not start %s: %s"), target->text, (const char *) local->pdata[0],
                           error->message);
      emit_error (&f, m);
      goto out;
    }
  if (sweep_id > 0)
    ls_interrupt_from_driver_only ();
  stops = 0;
  ls_interrupt_listen (&stops, LS_INTERRUPT_COUNT, NULL);
  f.to_target = g_subprocess_get_stdin_pipe (f.proc);
  f.out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (f.proc));
  f.err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (f.proc));
  f.loop = g_main_loop_new (NULL, FALSE);
  g_data_input_stream_read_line_async (f.out, G_PRIORITY_DEFAULT, NULL, on_out_line, &f);
  g_data_input_stream_read_line_async (f.err, G_PRIORITY_DEFAULT, NULL, on_err_line, &f);
  g_subprocess_wait_async (f.proc, NULL, on_exit, &f);
  guint tick = g_timeout_add (100, on_tick, &f);
  guint limit_s = answer_limit_s ();
  f.answer_limit = g_timeout_add_seconds (limit_s, on_no_answer, &f);
  g_main_loop_run (f.loop);
  g_source_remove (tick);
  g_clear_handle_id (&f.answer_limit, g_source_remove);
  ls_interrupt_stop ();

  status = g_subprocess_get_if_exited (f.proc) ? g_subprocess_get_exit_status (f.proc) : -1;
  if (f.no_answer)
    {
      m = g_strdup_printf (_("%s did not answer in %u s; it was ended and nothing ran (is the container running? "
                           "does the command wait for a password or for input?)"),
                           target->text, limit_s);
      emit_error (&f, m);
      goto out;
    }
  if (g_subprocess_get_if_signaled (f.proc))
    why = g_strdup_printf (_("%s was ended by signal %d"), (const char *) local->pdata[0],
                           g_subprocess_get_term_sig (f.proc));
  else
    why = ls_remote_transport_failure (target, status, f.said->str);
  if (!f.summary && (status == 96 || status == 97 || status == 98 || status == 126 || status == 127))
    {
      /* No bundle there, or it could not start: nothing ran. */
      emit_error (&f, why);
      goto out;
    }
  if (!f.summary && status == 2)
    goto out; /* the runner there refused its input and said why */
  if (diagnose)
    {
      /* Its exit status is the runner's there (0 done, 1 a run failed);
       * a transport that failed says so. Its pid file there goes. */
      const char *forget_args[] = { key, name, NULL };
      g_autofree char *forget = g_strconcat (ls_remote_script_prelude, forget_script, NULL);
      g_autoptr (GPtrArray) argv2 = ls_remote_sh_argv (target, forget, forget_args);
      g_autoptr (GBytes) none = ls_remote_command (target, argv2, NULL, 0, NULL, NULL, NULL);
      if (status == 0 || status == 1)
        exit_code = status;
      else
        {
          m = g_strdup_printf (_("%s: the diagnosis did not finish there: %s"), target->text, why);
          emit_error (&f, m);
        }
      goto out;
    }

  /* Whatever ended it, what the target recorded comes home. */
  local_id = no_db ? 0 : bring_home (target, key, name, db, sweep_id, &home_error);
  if (f.summary)
    {
      /* Ended there: recorded here (or said why not), then passed on. */
      g_autoptr (JsonObject) summary = json_object_new ();
      g_autoptr (GList) members = json_object_get_members (f.summary);
      for (GList *l = members; l; l = l->next)
        json_object_set_member (summary, l->data, json_node_copy (json_object_get_member (f.summary, l->data)));
      json_object_set_int_member (summary, "run_id", local_id > 0 ? local_id : 0);
      json_object_set_string_member (summary, "on", target->text);
      if (local_id < 0)
        {
          fprintf (stderr,
                   _("loadscope run: the run could not be recorded: %s (it stays on %s: `loadscope remote collect %s` "
                   "brings it home later)\n"),
                   home_error->message, target->text, target->text);
        }
      emit_finished (&f, summary);
      if (json)
        {
          g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
          json_node_set_object (node, summary);
          g_autofree char *text = json_to_string (node, TRUE);
          printf ("%s\n", text);
        }
      else if (!f.events || f.events != stdout)
        printf (_("run on %s: %s, %.0f samples/s%s\n"), target->text,
                json_object_get_string_member_with_default (summary, "status", "?"),
                json_object_get_double_member_with_default (summary, "throughput_sps", 0),
                local_id > 0 ? _("; recorded") : "");
      const char *st = json_object_get_string_member_with_default (summary, "status", "failed");
      exit_code = strcmp (st, "done") == 0 ? 0 : 1;
      goto out;
    }

  /* The connection ended during the run, or before it began. */
  if (no_db)
    m = g_strdup_printf (_("the connection to %s ended during the run (%s); nothing was recorded (--no-db)"),
                         target->text, why);
  else if (local_id > 0)
    m = g_strdup_printf (_("the connection to %s ended during the run (%s); runs finished before it are kept, and "
                         "this one is recorded as interrupted (run %lld)"),
                         target->text, why, (long long) local_id);
  else if (!f.started)
    m = g_strdup_printf (_("%s: the run did not start there: %s"), target->text, why);
  else
    m = g_strdup_printf (_("the connection to %s ended during the run (%s); runs finished before it are kept; this "
                         "one could not be brought home (%s): `loadscope remote collect %s` does it later"),
                         target->text, why, home_error ? home_error->message : "?", target->text);
  emit_error (&f, m);
  exit_code = 2; /* a sweep stops here: the next run would meet the same */

out:
  if (f.events && f.events != stdout)
    fclose (f.events);
  g_clear_object (&f.out);
  g_clear_object (&f.err);
  g_clear_object (&f.proc);
  g_clear_pointer (&f.loop, g_main_loop_unref);
  g_clear_pointer (&f.summary, json_object_unref);
  g_string_free (f.said, TRUE);
  g_strfreev (args);
  g_free (db);
  g_free (events_path);
  return exit_code;
}

/* ---- `loadscope remote collect` ---- */

static const char list_script[]
    = "need_bundle\n"
      "cd \"$d/runs\" 2>/dev/null || exit 0\n"
      "for s in *.sqlite; do [ -f \"$s\" ] && echo \"${s%.sqlite}\"; done\n"
      "exit 0\n";

int
ls_remote_collect (const ls_remote_target *target, const char *db, FILE *out)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *key = ls_remote_version_key ();
  g_autofree char *script = g_strconcat (ls_remote_script_prelude, list_script, NULL);
  const char *args[] = { key, NULL };
  g_autoptr (GPtrArray) argv = ls_remote_sh_argv (target, script, args);
  g_autoptr (GBytes) list = ls_remote_command (target, argv, NULL, 0, NULL, NULL, &error);
  if (!list)
    {
      fprintf (stderr, _("loadscope remote collect: %s\n"), error->message);
      return 2;
    }
  g_autofree char *text = g_bytes_get_size (list) ? g_strndup (g_bytes_get_data (list, NULL), g_bytes_get_size (list))
                                                  : g_strdup ("");
  g_auto (GStrv) names = g_strsplit (text, "\n", -1);
  guint kept = 0, failed = 0;
  for (guint i = 0; names[i]; i++)
    {
      /* Only the names this side gives (uuids): anything else is not ours. */
      if (!g_uuid_string_is_valid (names[i]))
        continue;
      g_autoptr (GError) why = NULL;
      gint64 id = bring_home (target, key, names[i], db, 0, &why);
      if (id > 0)
        {
          kept++;
          fprintf (out, _("remote collect: %s: run %s recorded as run %lld\n"), target->text, names[i],
                   (long long) id);
        }
      else
        {
          failed++;
          fprintf (stderr, _("loadscope remote collect: %s: run %s: %s\n"), target->text, names[i], why->message);
        }
    }
  fprintf (out, _("remote collect: %s: %u run%s brought home, %u could not be\n"), target->text, kept,
           kept == 1 ? "" : "s", failed);
  return failed ? 1 : 0;
}
