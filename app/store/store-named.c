#include "app/store/store-named.h"

#include "app/store/store-private.h"

/* The sweep charts' knob and stage columns (LS_QUERY_SWEEP_CHART_RUNS). */
#define KNOB_COLUMNS                                                                                                   \
  "run.pin, run.start_method, run.non_blocking, run.batch_size, run.prefetch, run.persistent, run.in_order, "       \
  "run.model_ms, run.sink, run.dataset, run.output, "                                                                \
  "(SELECT machine.hostname FROM machine WHERE machine.id = run.machine_id)"
#define STAGE_COLUMNS                                                                                                  \
  "run.stage_read_ms, run.stage_decode_ms, run.stage_transform_ms, run.stage_write_ms, run.stage_idle_ms"
#define SCRIPT_STAGE_COLUMNS                                                                                           \
  "json_extract(run.summary, '$.stages_ms.sampler'), json_extract(run.summary, '$.stages_ms.getitem'), "              \
  "json_extract(run.summary, '$.stages_ms.collate'), json_extract(run.summary, '$.stages_ms.handoff'), "            \
  "json_extract(run.summary, '$.stages_ms.idle')"

static const struct {
  const char *sql;
  const char *what; /* "reading the <what>" in errors; for one-row queries "no <what> <id>" */
  guint n_params;
} queries[LS_N_QUERIES] = {
  [LS_QUERY_SWEEP_RUNS_BY_NODE]
  = { "SELECT m.hostname, count (*) FROM run r JOIN machine m ON m.id = r.machine_id "
      "WHERE r.sweep_id = ? GROUP BY m.hostname ORDER BY m.hostname",
      "reading the sweep's runs", 1 },
  [LS_QUERY_SWEEP_UUID] = { "SELECT uuid FROM sweep WHERE id = ?", "sweep", 1 },
  [LS_QUERY_SWEEP_HEADER] = { "SELECT sweep.started_at, sweep.repeat, machine.hostname, machine.os FROM sweep "
                              "JOIN machine ON machine.id = sweep.machine_id WHERE sweep.id = ?",
                              "sweep", 1 },
  [LS_QUERY_SWEEP_CHART_RUNS]
  = { "SELECT run.status, run.workers, run.simulated, run.throughput_sps, run.wait_p50_ms, "
      "run.wait_p95_ms, run.wait_p99_ms, run.gpu_util_exact, run.gpu_util_nvml, "
      "run.pss_peak_bytes, run.private_peak_bytes, " KNOB_COLUMNS ", " STAGE_COLUMNS ", run.format = 'pytorch', "
      SCRIPT_STAGE_COLUMNS " FROM run WHERE run.sweep_id = ? ORDER BY run.id",
      "reading the sweep's runs", 1 },
  [LS_QUERY_SWEEP_DONE_RUN_IDS]
  = { "SELECT id FROM run WHERE sweep_id = ? AND status = 'done' ORDER BY id", "reading the sweep's runs", 1 },
  [LS_QUERY_RUN_CHART_INFO]
  = { "SELECT run.status, run.workers, run.start_method, run.pin, run.sink, "
      "run.simulated, run.warmup, run.wait_p50_ms, run.wait_p95_ms, run.arena_bytes, "
      "machine.hostname, machine.os, run.started_at FROM run "
      "JOIN machine ON machine.id = run.machine_id WHERE run.id = ?",
      "run", 1 },
  [LS_QUERY_RUN_BATCH_WAITS]
  = { "SELECT seq, ready_ms, wait_ms, copy_ms FROM batch WHERE run_id = ? ORDER BY seq", "reading the run's batches",
      1 },
  [LS_QUERY_RUN_BATCH_STAGES] = { "SELECT seq, read_ms, decode_ms, transform_ms, write_ms, idle_ms, wait_ms, "
                                  "sampler_ms, getitem_ms, collate_ms, handoff_ms, pin_ms "
                                  "FROM batch WHERE run_id = ? ORDER BY seq",
                                  "reading the run's batches", 1 },
  [LS_QUERY_RUN_BATCH_TIMES]
  = { "SELECT seq, wait_ms, copy_ms, compute_ms, stage_ms, ready_ms FROM batch WHERE run_id = ? ORDER BY seq",
      "reading the run's batches", 1 },
  [LS_QUERY_RUN_BATCH_BUSY]
  = { "SELECT busy_ms FROM batch WHERE run_id = ? AND seq >= ? AND busy_ms IS NOT NULL ORDER BY seq",
      "reading the run's stages", 2 },
  [LS_QUERY_RUN_MEMORY_SAMPLES] = { "SELECT t_ms, pss_bytes, runner_pss_bytes, private_bytes FROM sample "
                                    "WHERE run_id = ? ORDER BY t_ms",
                                    "reading the run's samples", 1 },
  [LS_QUERY_WORKER_STARTUPS]
  = { "SELECT machine.os LIKE 'Windows%', run.start_method, worker.startup_ms, machine.id, machine.os "
      "FROM worker JOIN run ON run.id = worker.run_id "
      "JOIN machine ON machine.id = run.machine_id WHERE worker.startup_ms IS NOT NULL",
      "reading worker start-ups", 0 },
  [LS_QUERY_RUN_THROUGHPUTS] = { "SELECT format, dataset, batch_size, workers, throughput_sps FROM run "
                                 "WHERE status = 'done' AND throughput_sps IS NOT NULL "
                                 "ORDER BY format = 'pytorch', dataset, batch_size, workers",
                                 "reading the runs' throughput", 0 },
  [LS_QUERY_RUN_BATCH_LANES]
  = { "SELECT seq, epoch, batch, samples, ready_ms, wait_ms, worker, build_start_ms, build_end_ms, read_ms, "
      "decode_ms, transform_ms, write_ms, sampler_ms, getitem_ms, collate_ms, handoff_ms, copy_ms, compute_ms "
      "FROM batch WHERE run_id = ? ORDER BY seq",
      "reading the run's batches", 1 },
  [LS_QUERY_FIRST_BATCH_PARTS]
  = { "SELECT machine.os LIKE 'Windows%', run.start_method, first_worker_start_ms, first_populate_ms, "
      "first_in_flight_ms, first_build_ms, first_handoff_ms FROM run "
      "JOIN machine ON machine.id = run.machine_id WHERE run.workers > 0 AND first_build_ms IS NOT NULL",
      "reading the runs' first batches", 0 },
};

ls_store_rows *
ls_store_query_rows (ls_store *store, ls_store_query query, const gint64 *params, guint n_params, GError **error)
{
  g_return_val_if_fail (query < LS_N_QUERIES, NULL);
  g_return_val_if_fail (n_params == queries[query].n_params, NULL);
  return ls_store_rows_new (store, queries[query].sql, params, n_params, queries[query].what, error);
}

ls_store_rows *
ls_store_query_row (ls_store *store, ls_store_query query, gint64 id, GError **error)
{
  g_return_val_if_fail (query < LS_N_QUERIES, NULL);
  g_return_val_if_fail (queries[query].n_params == 1, NULL);
  return ls_store_rows_new_for_id (store, queries[query].sql, id, queries[query].what, error);
}
