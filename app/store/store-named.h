/* The store's named queries: what the reports (app/report), the what-if
 * model (app/analysis) and Slurm collect (app/slurm) read, so that no SQL
 * text lives outside app/store. Each name says its parameters and its
 * columns in order; the rows are read with ls_store_rows_* (store-query.h).
 * A column added here is added at the end, so readers' indices stay. */
#pragma once

#include "app/store/store-query.h"

G_BEGIN_DECLS

typedef enum {
  /* (sweep id) -> machine.hostname, runs on it */
  LS_QUERY_SWEEP_RUNS_BY_NODE,
  /* (sweep id), one row -> sweep.uuid */
  LS_QUERY_SWEEP_UUID,
  /* (sweep id), one row -> started_at, repeat, machine.hostname, machine.os */
  LS_QUERY_SWEEP_HEADER,
  /* (sweep id) -> the runs for the sweep charts, by id: status, workers,
   * simulated, throughput_sps, wait_p50_ms, wait_p95_ms, wait_p99_ms,
   * gpu_util_exact, gpu_util_nvml, pss_peak_bytes, private_peak_bytes (0-10);
   * the knobs pin, start_method, non_blocking, batch_size, prefetch,
   * persistent, in_order, model_ms, sink, dataset, output, machine hostname
   * (11-22); the loader's stages read, decode, transform, write, idle
   * (23-27); a PyTorch script's run (28); its stages sampler, getitem,
   * collate, handoff (29-32) */
  LS_QUERY_SWEEP_CHART_RUNS,
  /* (sweep id) -> the ids of its finished runs, in order */
  LS_QUERY_SWEEP_DONE_RUN_IDS,
  /* (run id), one row -> status, workers, start_method, pin, sink,
   * simulated, warmup, wait_p50_ms, wait_p95_ms, arena_bytes,
   * machine.hostname, machine.os, started_at */
  LS_QUERY_RUN_CHART_INFO,
  /* (run id) -> seq, ready_ms, wait_ms, copy_ms, by seq */
  LS_QUERY_RUN_BATCH_WAITS,
  /* (run id) -> seq, read_ms, decode_ms, transform_ms, write_ms, idle_ms,
   * wait_ms, by seq */
  LS_QUERY_RUN_BATCH_STAGES,
  /* (run id) -> seq, wait_ms, copy_ms, compute_ms, stage_ms, ready_ms, by seq */
  LS_QUERY_RUN_BATCH_TIMES,
  /* (run id, first seq) -> busy_ms of the batches from that seq, by seq */
  LS_QUERY_RUN_BATCH_BUSY,
  /* (run id) -> t_ms, pss_bytes, runner_pss_bytes, private_bytes, by time */
  LS_QUERY_RUN_MEMORY_SAMPLES,
  /* () -> on Windows (0/1), start_method, startup_ms, machine id,
   * machine.os: every worker start-up recorded */
  LS_QUERY_WORKER_STARTUPS,
  /* () -> format, dataset, batch_size, workers, throughput_sps of every
   * finished run, scripts last */
  LS_QUERY_RUN_THROUGHPUTS,
  /* (run id) -> seq, epoch, batch, samples, ready_ms, wait_ms, worker,
   * build_start_ms, build_end_ms (0-8); the loader's stages read, decode,
   * transform, write (9-12); a script's sampler, getitem, collate, handoff
   * (13-16); copy_ms, compute_ms (17-18), by seq: a run's timeline */
  LS_QUERY_RUN_BATCH_LANES,
  /* () -> on Windows (0/1), start_method, first_worker_start_ms,
   * first_populate_ms, first_in_flight_ms, first_build_ms,
   * first_handoff_ms: every run with workers whose first batch's parts
   * were recorded (schema 9) */
  LS_QUERY_FIRST_BATCH_PARTS,
  LS_N_QUERIES
} ls_store_query;

/* The rows of a named query; params as its name says. NULL with the error
 * ("<path>: reading the sweep's runs: ..."). */
ls_store_rows *ls_store_query_rows (ls_store *store, ls_store_query query, const gint64 *params, guint n_params,
                                    GError **error);

/* A one-row query by id, stepped to its row: NULL with
 * LS_STORE_ERROR_NOT_FOUND ("<path>: no run 7") when there is none. */
ls_store_rows *ls_store_query_row (ls_store *store, ls_store_query query, gint64 id, GError **error);

G_END_DECLS
