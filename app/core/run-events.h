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
