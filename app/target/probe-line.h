/* The probe's channel, read as untrusted input: the user's script can write
 * to the probe's file descriptor (it is the script's own process), so every
 * line is capped in length and nesting before json-glib sees it, and every
 * event's members are checked against the protocol (data/probe/
 * loadscope_probe/__init__.py) and against what an import takes again
 * (app/store/export-format.c), before the runner stores anything. */
#pragma once

#include <json-glib/json-glib.h>

#include "app/core/record-ranges.h"

/* The longest line: a longer one is a protocol error, not a bigger buffer. */
#define LS_PROBE_LINE_MAX ((gsize) 1 << 20)

/* The ranges an import takes again (app/store/export-format.c). */
#define LS_PROBE_MAX_WORKERS LS_RECORD_MAX_WORKERS
#define LS_PROBE_MAX_SAMPLES LS_RECORD_MAX_BATCH_SIZE /* samples in one batch, and the batch size */
#define LS_PROBE_MAX_EPOCH 1000000
#define LS_PROBE_MAX_COUNT ((gint64) 1 << 40)
#define LS_PROBE_MAX_MS 1e10

typedef enum {
  LS_PROBE_EV_PROBE,
  LS_PROBE_EV_LOADER,
  LS_PROBE_EV_WORKERS,
  LS_PROBE_EV_WORKER_READY,
  LS_PROBE_EV_BATCH,
  LS_PROBE_EV_FINISHED,
  LS_PROBE_EV_ERROR,
  LS_PROBE_EV_STAGES, /* flat figures: every member a number >= 0 or null */
  LS_PROBE_EV_RANKS,  /* --ranks: world_size, master_port, and per rank flat figures */
} ls_probe_event;

/* The most ranks a "ranks" event may name. */
#define LS_PROBE_MAX_RANKS 64

/* What the protocol remembers between lines. */
typedef struct {
  gint64 last_seq; /* -1 before the first batch */
} ls_probe_state;

void ls_probe_state_init (ls_probe_state *st);

/* One line (without its '\n'; need not be NUL-terminated): the event as an
 * object (unref it) and its kind, or NULL with an error (G_IO_ERROR,
 * G_IO_ERROR_INVALID_DATA) that names the event and member and says why.
 * Members the runner does not read are ignored. */
JsonObject *ls_probe_line_parse (ls_probe_state *st, const char *line, gsize len, ls_probe_event *kind,
                                 GError **error);

/* Splits the channel's bytes into lines without ever holding more than
 * LS_PROBE_LINE_MAX of an unfinished one. */
typedef struct ls_probe_reader ls_probe_reader;

/* Called per complete line; FALSE stops the feed (the caller's own error). */
typedef gboolean (*ls_probe_line_fn) (gpointer user, const char *line, gsize len);

ls_probe_reader *ls_probe_reader_new (void);
void ls_probe_reader_free (ls_probe_reader *r);

/* FALSE with an error when a line grows past LS_PROBE_LINE_MAX; FALSE
 * without one when fn stopped the feed. */
gboolean ls_probe_reader_feed (ls_probe_reader *r, const char *data, gsize len, ls_probe_line_fn fn, gpointer user,
                               GError **error);

/* Bytes of an unfinished line held (what end of file cut off). */
gsize ls_probe_reader_pending (const ls_probe_reader *r);
