/* libFuzzer: the probe's channel as the runner reads it (app/target/
 * probe-line.h): the bytes split into lines by the capped reader, fed in
 * pieces of a size taken from the input's first byte (as pipe reads cut
 * them), each line checked against the protocol, then every member the
 * runner reads taken with the typed getters it uses. A GLib critical or
 * warning (a getter on the wrong type) aborts: a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "app/target/probe-line.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
abort_on_warning (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  fprintf (stderr, "%s: %s\n", domain ? domain : "GLib", message);
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL))
    abort ();
}

/* What app/target/target-pytorch.c takes from each kind of event. */
static void
read_like_runner (JsonObject *o, ls_probe_event kind)
{
  volatile double sink = 0;
  switch (kind)
    {
    case LS_PROBE_EV_PROBE:
      sink += (double) json_object_get_int_member (o, "pid");
      sink += json_object_get_boolean_member_with_default (o, "cuda", FALSE);
      break;
    case LS_PROBE_EV_LOADER:
      sink += (double) json_object_get_int_member_with_default (o, "num_workers", 0);
      if (!json_object_get_null_member (o, "batch_size"))
        sink += (double) json_object_get_int_member_with_default (o, "batch_size", 0);
      sink += (double) json_object_get_int_member_with_default (o, "prefetch_factor", 2);
      sink += json_object_get_boolean_member_with_default (o, "persistent_workers", FALSE);
      sink += json_object_get_boolean_member_with_default (o, "pin_memory", FALSE);
      if (json_object_has_member (o, "dataset_samples") && !json_object_get_null_member (o, "dataset_samples"))
        sink += (double) json_object_get_int_member (o, "dataset_samples");
      break;
    case LS_PROBE_EV_WORKERS:
      {
        JsonArray *pids = json_object_get_array_member (o, "pids");
        sink += (double) json_object_get_int_member_with_default (o, "epoch", 0);
        for (guint i = 0; i < json_array_get_length (pids); i++)
          {
            gint64 pid = json_array_get_int_element (pids, i);
            if (pid < 2)
              abort (); /* the check promises no pid 1, 0 or a group */
            sink += (double) pid;
          }
      }
      break;
    case LS_PROBE_EV_WORKER_READY:
      sink += (double) json_object_get_int_member_with_default (o, "pid", 0);
      break;
    case LS_PROBE_EV_BATCH:
      {
        gint64 seq = json_object_get_int_member (o, "seq");
        gint64 samples = json_object_get_int_member (o, "samples");
        if (seq < 0 || samples < 0 || samples > LS_PROBE_MAX_SAMPLES)
          abort ();
        sink += (double) seq + (double) samples + (double) json_object_get_int_member (o, "epoch")
                + (double) json_object_get_int_member (o, "batch");
      }
      break;
    case LS_PROBE_EV_FINISHED:
    case LS_PROBE_EV_ERROR:
    case LS_PROBE_EV_STAGES:
      break;
    }
  (void) sink;
}

typedef struct {
  ls_probe_state st;
} fuzz_run;

static gboolean
on_line (gpointer user, const char *line, gsize len)
{
  fuzz_run *f = user;
  if (len > LS_PROBE_LINE_MAX)
    abort (); /* the reader promises the cap */
  ls_probe_event kind;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) o = ls_probe_line_parse (&f->st, line, len, &kind, &error);
  if (!o)
    {
      if (!error || !error->message[0])
        abort (); /* a refusal must say why */
      return TRUE;
    }
  read_like_runner (o, kind);
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static gboolean once;
  if (!once)
    {
      g_log_set_default_handler (abort_on_warning, NULL);
      once = TRUE;
    }
  if (size == 0)
    return 0;
  size_t piece = 1 + data[0] * 67u; /* 1 .. 17,086 bytes a read */
  data++;
  size--;
  fuzz_run f;
  ls_probe_state_init (&f.st);
  ls_probe_reader *r = ls_probe_reader_new ();
  for (size_t at = 0; at < size; at += piece)
    {
      size_t n = size - at < piece ? size - at : piece;
      g_autoptr (GError) error = NULL;
      if (!ls_probe_reader_feed (r, (const char *) data + at, n, on_line, &f, &error))
        break;
    }
  ls_probe_reader_free (r);
  return 0;
}
