/* libFuzzer: a runner's --events stream as the sweep session reads it
 * (ls_run_events_parse_line, one line at a time, split at '\n' as
 * GDataInputStream does), then what its readers take from each event: the
 * members `loadscope sweep`, the session and the window's live view read,
 * and a finished run's summary printed as the sweep's table. GLib
 * criticals and warnings abort here: a typed getter's warning is a finding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "app/core/run-events.h"
#include "app/sweep/sweep-text.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static FILE *sink;

/* A GLib critical or warning (a typed getter on the wrong type) is a
 * finding: abort, which libFuzzer catches and keeps the input of. */
static void
abort_on_warning (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  fprintf (stderr, "%s: %s\n", domain ? domain : "GLib", message);
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL))
    abort ();
}

/* What the readers of the "event" signal take (app/cli/cli-sweep.c,
 * app/sweep/sweep-session.c, ui/ls-run-page.c). */
static void
read_like_consumers (JsonObject *ev)
{
  const char *kind = json_object_get_string_member_with_default (ev, "event", "");
  if (!kind)
    abort (); /* the parser promises a string */
  gint64 n = json_object_get_int_member_with_default (ev, "planned_batches", 0)
             + json_object_get_int_member_with_default (ev, "seq", 0);
  gboolean sim = json_object_get_boolean_member_with_default (ev, "simulated", FALSE);
  const char *texts[] = { "message", "sink", "sink_note", "run_uuid" };
  for (size_t i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      const char *t = json_object_get_string_member_with_default (ev, texts[i], "?");
      fprintf (sink, "%s", t ? t : "");
    }
  fprintf (sink, "%s %" G_GINT64_FORMAT " %d\n", kind, n, sim);

  if (strcmp (kind, "finished") == 0 && json_object_has_member (ev, "summary"))
    {
      JsonObject *summary = json_object_get_object_member (ev, "summary");
      g_autoptr (JsonArray) rows = json_array_new ();
      json_array_add_object_element (rows, json_object_ref (summary));
      json_object_get_string_member_with_default (summary, "status", "failed");
      ls_sweep_print_table (sink, rows);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (!sink)
    {
      g_log_set_default_handler (abort_on_warning, NULL);
      sink = fopen ("/dev/null", "w");
      if (!sink)
        abort ();
    }
  const char *text = (const char *) data;
  size_t start = 0;
  while (start < size)
    {
      const char *nl = memchr (text + start, '\n', size - start);
      size_t end = nl ? (size_t) (nl - text) : size;
      /* GDataInputStream hands the line NUL-terminated: so does this. */
      g_autofree char *line = g_strndup (text + start, end - start);
      g_autoptr (JsonObject) ev = ls_run_events_parse_line (line, end - start);
      if (ev)
        read_like_consumers (ev);
      start = end + 1;
    }
  return 0;
}
