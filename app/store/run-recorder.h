/* Recording one run as it goes: its row first (status running), once its
 * sink is known; its batches in short transactions; its workers, series,
 * status and figures when it ends. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "app/store/store.h"
#include "loader/run.h"

typedef struct ls_run_recorder ls_run_recorder;

/* Inserts the run (status running) once its sink is known (so_far). */
ls_run_recorder *ls_run_recorder_begin (ls_store *store, gint64 machine_id, gint64 sweep_id,
                                        const ls_run_config *config, const ls_run_result *so_far, GError **error);

/* Keeps one batch; the kept rows are written in one short transaction
 * when 2048 are pending or 250 ms have passed since the last write, so a
 * killed runner loses at most the batches since then, and no transaction
 * is open between batches (another writer never waits on a slow run). */
void ls_run_recorder_batch (ls_run_recorder *rec, uint64_t seq, const ls_batch_record *batch);

/* Writes workers, series, status and figures, and commits. Frees rec. */
gboolean ls_run_recorder_finish (ls_run_recorder *rec, const ls_run_result *result, const char *summary_json,
                                 GError **error);

gint64 ls_run_recorder_id (const ls_run_recorder *rec);
const char *ls_run_recorder_uuid (const ls_run_recorder *rec);
