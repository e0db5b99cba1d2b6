/* `loadscope run --events FILE|-`: one JSON object per line as the run goes
 * (started, workers, batch, sample, error, finished), for live views such
 * as the workbench's. Each line is flushed as it is written. */
#pragma once

#include <stdio.h>

#include <json-glib/json-glib.h>

#include "loader/run.h"

typedef struct ls_run_events ls_run_events;

/* path "-" is stdout. NULL with error when the file cannot be created. */
ls_run_events *ls_run_events_open (const char *path, GError **error);
void ls_run_events_close (ls_run_events *ev);

void ls_run_events_started (ls_run_events *ev, const ls_run_result *so_far, gint64 run_id, const char *run_uuid,
                            uint64_t planned_batches);
void ls_run_events_workers (ls_run_events *ev, const ls_worker_info *workers, size_t n);
void ls_run_events_batch (ls_run_events *ev, uint64_t seq, const ls_batch_record *b);
void ls_run_events_memory (ls_run_events *ev, const ls_memory_point *p);
void ls_run_events_error (ls_run_events *ev, const char *message);
void ls_run_events_finished (ls_run_events *ev, JsonNode *summary);

/* The deepest line ls_run_events_parse_line parses (json-glib recurses per
 * level; an event is 3 levels deep, a summary a few more). */
#define LS_RUN_EVENTS_MAX_DEPTH 64

/* One line of a runner's --events stream, as a reader (the sweep session)
 * takes it: the event object, or NULL for anything else (not UTF-8, not a
 * JSON object, nested deeper than LS_RUN_EVENTS_MAX_DEPTH, or members of
 * other types than the runner writes: "event" and the texts strings,
 * "summary" an object (its texts strings, its figures plain values or
 * objects of them), "pids" an array, the rest plain values; such lines
 * are the runner's own messages merged into the same pipe). Unref the
 * result. */
JsonObject *ls_run_events_parse_line (const char *line, gsize len);
