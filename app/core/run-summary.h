/* The run summary of the command line contract, as JSON or as text. */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "loader/run.h"

/* Builds the summary object (DESIGN.md, "Command line contract"). */
JsonNode *ls_run_summary_json (const ls_run_config *config, const ls_run_result *result);

/* A few lines for a person reading a terminal. */
void ls_run_summary_print (FILE *to, const ls_run_config *config, const ls_run_result *result);

const char *ls_run_status_name (ls_run_status status);

/* Where the batches' build time went (ls_batch_record's stage fields). */
enum { LS_STAGE_READ, LS_STAGE_DECODE, LS_STAGE_TRANSFORM, LS_STAGE_WRITE, LS_STAGE_IDLE, LS_STAGE_BUSY, LS_N_STAGES };

/* "read", "decode", "transform", "write", "idle", "busy": JSON keys, store
 * columns (with "_ms"), chart labels. */
const char *ls_stage_name (int stage);

typedef struct ls_stage_summary {
  gboolean valid;              /* at least one measured batch, and every stage known (a batch record's
                                * stage is NaN where it was not measured: the PyTorch probe's runs) */
  guint64 measured_batches;
  double mean_ms[LS_N_STAGES]; /* per measured batch */
  double total_ms[LS_N_STAGES]; /* over every delivered batch, warm-up included */
  /* The workers' own totals (reported when they stop; 0 workers: none):
   * READY to STOP, and its idle and busy parts. */
  double workers_wall_ms, workers_idle_ms, workers_busy_ms;
  guint workers_reported;
} ls_stage_summary;

void ls_run_stage_summary (const ls_run_result *result, ls_stage_summary *out);

/* One stage of a batch record, in ms. */
double ls_batch_record_stage (const ls_batch_record *b, int stage);

/* Where a user's script's batch went inside its DataLoader
 * (ls_batch_record's script stage fields). */
enum { LS_SCRIPT_STAGE_SAMPLER, LS_SCRIPT_STAGE_GETITEM, LS_SCRIPT_STAGE_COLLATE, LS_SCRIPT_STAGE_HANDOFF,
       LS_SCRIPT_STAGE_PIN, LS_N_SCRIPT_STAGES };

/* "sampler", "getitem", "collate", "handoff", "pin" (a part of the
 * hand-off): the probe's and the events' keys and the store's columns
 * (with "_ms"). */
const char *ls_script_stage_name (int stage);

/* A script stage of a batch record, in ms (NaN: not seen). */
double ls_batch_record_script_stage (const ls_batch_record *b, int stage);
