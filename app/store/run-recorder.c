/* Recording one run into the store as it goes. */
#include <math.h>
#include "app/core/i18n.h"
#include <string.h>

#include "app/core/record-ranges.h"
#include "app/core/run-options.h"
#include "app/store/run-recorder.h"

#include "app/core/run-summary.h"
#include "app/store/store-private.h"
#include "platform/process.h"

/* Batches wait in memory and are written together, in one short
 * transaction, once 2048 are pending or 250 ms have passed since the last
 * write: no transaction stays open across the wait for the next batch, so
 * a slow run never holds the store's write lock. */
#define BATCH_COMMIT_US (250 * 1000)
#define BATCH_COMMIT_ROWS 2048
/* A store locked or full for long: the oldest pending rows are dropped
 * beyond this, so memory stays bounded (the run says so when it ends). */
#define BATCH_PENDING_MAX (64 * BATCH_COMMIT_ROWS)

typedef struct {
  uint64_t seq;
  ls_batch_record b;
} pending_batch;

struct ls_run_recorder {
  ls_store *store;
  gint64 run_id;
  char *uuid;
  sqlite3_stmt *insert_batch;
  GArray *pending;          /* pending_batch, not yet written */
  gint64 last_write_us;     /* when batches were last written (or tried) */
  guint64 dropped;          /* batches never written */
  gboolean failing;         /* the last write failed: retry on time only */
};

static gboolean
step_done (ls_store *store, sqlite3_stmt *st, const char *what, GError **error)
{
  int rc = sqlite3_step (st);
  if (rc == SQLITE_DONE || rc == SQLITE_ROW)
    return TRUE;
  return ls_store_set_error (store, rc, what, error);
}

static gboolean
prepare (ls_store *store, const char *sql, sqlite3_stmt **st, const char *what, GError **error)
{
  int rc = sqlite3_prepare_v2 (ls_store_db (store), sql, -1, st, NULL);
  return rc == SQLITE_OK ? TRUE : ls_store_set_error (store, rc, what, error);
}

static const char *
output_name (ls_output_format f)
{
  return f == LS_OUTPUT_U8_HWC ? "u8-hwc" : "f32-chw";
}

ls_run_recorder *
ls_run_recorder_begin (ls_store *store, gint64 machine_id, gint64 sweep_id, const ls_run_config *config,
                       const ls_run_result *so_far, GError **error)
{
  const ls_pool_config *p = &config->pool;
  const ls_sink_config *k = &config->sink;
  sqlite3_stmt *st = NULL;
  g_autofree char *now = ls_store_now ();
  gboolean device = k->kind != LS_SINK_NONE;
  const char *sink = so_far->sink_name[0] ? so_far->sink_name : "none";

  if (!prepare (store,
                "INSERT INTO run (uuid, machine_id, sweep_id, runner_pid, started_at, status, dataset, format, "
                "workers, start_method, batch_size, prefetch, persistent, shuffle, drop_last, in_order, seed, "
                "timeout_s, on_error, output, epochs, max_batches, warmup, sink, simulated, pin, non_blocking, model_ms) "
                "VALUES (?,?,?,?,?,'running',?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                &st, "recording the run", error))
    return NULL;

  ls_run_recorder *rec = g_new0 (ls_run_recorder, 1);
  rec->store = store;
  rec->uuid = g_uuid_string_random ();
  int i = 1;
  sqlite3_bind_text (st, i++, rec->uuid, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, i++, machine_id);
  if (sweep_id > 0)
    sqlite3_bind_int64 (st, i++, sweep_id);
  else
    sqlite3_bind_null (st, i++);
  sqlite3_bind_int64 (st, i++, (gint64) ls_process_self_pid ());
  sqlite3_bind_text (st, i++, now, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, i++, strcmp (p->dataset.kind, "synthetic") == 0 ? "synthetic" : p->dataset.path, -1,
                     SQLITE_TRANSIENT);
  sqlite3_bind_text (st, i++, p->dataset.kind, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int (st, i++, (int) p->num_workers);
  sqlite3_bind_text (st, i++, ls_start_method_name (p->start), -1, SQLITE_STATIC);
  sqlite3_bind_int (st, i++, (int) p->batch_size);
  sqlite3_bind_int (st, i++, (int) p->prefetch_factor);
  sqlite3_bind_int (st, i++, p->persistent_workers);
  sqlite3_bind_int (st, i++, p->shuffle);
  sqlite3_bind_int (st, i++, p->drop_last);
  sqlite3_bind_int (st, i++, p->in_order);
  sqlite3_bind_int64 (st, i++, (gint64) p->seed);
  sqlite3_bind_double (st, i++, p->timeout_s);
  sqlite3_bind_text (st, i++, p->skip_bad_samples ? "skip" : "fail", -1, SQLITE_STATIC);
  sqlite3_bind_text (st, i++, output_name (p->dataset.output), -1, SQLITE_STATIC);
  sqlite3_bind_int (st, i++, (int) p->epochs);
  sqlite3_bind_int64 (st, i++, (gint64) config->max_batches);
  sqlite3_bind_int (st, i++, (int) config->warmup);
  sqlite3_bind_text (st, i++, sink, -1, SQLITE_STATIC);
  sqlite3_bind_int (st, i++, so_far->simulated);
  if (device)
    {
      sqlite3_bind_text (st, i++, ls_pin_mode_name (k->pin), -1, SQLITE_STATIC);
      sqlite3_bind_int (st, i++, k->non_blocking);
      sqlite3_bind_double (st, i++, k->model_ms);
    }
  gboolean ok = step_done (store, st, "recording the run", error);
  sqlite3_finalize (st);
  if (!ok)
    {
      g_free (rec->uuid);
      g_free (rec);
      return NULL;
    }
  rec->run_id = sqlite3_last_insert_rowid (ls_store_db (store));
  if (!prepare (store,
                "INSERT INTO batch (run_id, seq, epoch, batch, samples, ready_ms, wait_ms, copy_ms, compute_ms, "
                "stage_ms, read_ms, decode_ms, transform_ms, write_ms, idle_ms, busy_ms, sampler_ms, getitem_ms, "
                "collate_ms, handoff_ms, pin_ms, worker, build_start_ms, build_end_ms) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                &rec->insert_batch, "recording batches", error))
    {
      g_free (rec->uuid);
      g_free (rec);
      return NULL;
    }
  rec->pending = g_array_new (FALSE, FALSE, sizeof (pending_batch));
  rec->last_write_us = g_get_monotonic_time ();
  return rec;
}

gint64
ls_run_recorder_id (const ls_run_recorder *rec)
{
  return rec->run_id;
}

const char *
ls_run_recorder_uuid (const ls_run_recorder *rec)
{
  return rec->uuid;
}

/* Writes the pending batches in one transaction; on failure (locked,
 * full) they stay pending and the next write tries again. */
static gboolean
write_batches (ls_run_recorder *rec, GError **error)
{
  sqlite3 *db = ls_store_db (rec->store);
  sqlite3_stmt *st = rec->insert_batch;
  int rc = SQLITE_OK;

  rec->last_write_us = g_get_monotonic_time ();
  if (rec->pending->len == 0)
    return TRUE;
  if ((rc = sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK)
    return ls_store_set_error (rec->store, rc, "recording batches", error);
  for (guint i = 0; i < rec->pending->len && rc == SQLITE_OK; i++)
    {
      const pending_batch *p = &g_array_index (rec->pending, pending_batch, i);
      const ls_batch_record *b = &p->b;
      sqlite3_bind_int64 (st, 1, rec->run_id);
      sqlite3_bind_int64 (st, 2, (gint64) p->seq);
      sqlite3_bind_int (st, 3, (int) b->epoch);
      sqlite3_bind_int64 (st, 4, (gint64) b->batch);
      sqlite3_bind_int (st, 5, (int) b->samples);
      sqlite3_bind_double (st, 6, b->ready_ms);
      sqlite3_bind_double (st, 7, b->wait_ms);
      if (b->compute_ms >= 0)
        {
          sqlite3_bind_double (st, 8, b->copy_ms);
          sqlite3_bind_double (st, 9, b->compute_ms);
          sqlite3_bind_double (st, 10, b->stage_ms);
        }
      else
        {
          sqlite3_bind_null (st, 8);
          sqlite3_bind_null (st, 9);
          sqlite3_bind_null (st, 10);
        }
      for (int k = 0; k < LS_N_STAGES; k++)
        sqlite3_bind_double (st, 11 + k, ls_batch_record_stage (b, k));
      /* NaN binds as NULL: not a script's batch, or not seen */
      for (int k = 0; k < LS_N_SCRIPT_STAGES; k++)
        sqlite3_bind_double (st, 11 + LS_N_STAGES + k, ls_batch_record_script_stage (b, k));
      /* Where and when it was built (NULL: not known). */
      int at = 11 + LS_N_STAGES + LS_N_SCRIPT_STAGES;
      if (b->worker >= -1 && isfinite (b->build_start_ms) && isfinite (b->build_end_ms))
        {
          sqlite3_bind_int (st, at, (int) b->worker);
          sqlite3_bind_double (st, at + 1, MAX (b->build_start_ms, 0));
          sqlite3_bind_double (st, at + 2, MAX (b->build_end_ms, 0));
        }
      else
        for (int k = 0; k < 3; k++)
          sqlite3_bind_null (st, at + k);
      rc = sqlite3_step (st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode (db);
      sqlite3_reset (st);
    }
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    {
      ls_store_set_error (rec->store, rc, "recording batches", error);
      sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
      rec->failing = TRUE;
      return FALSE;
    }
  g_array_set_size (rec->pending, 0);
  rec->failing = FALSE;
  return TRUE;
}

void
ls_run_recorder_batch (ls_run_recorder *rec, uint64_t seq, const ls_batch_record *b)
{
  pending_batch p = { seq, *b };

  if (rec->pending->len >= BATCH_PENDING_MAX)
    {
      g_array_remove_index (rec->pending, 0);
      rec->dropped++;
    }
  g_array_append_val (rec->pending, p);
  /* A store that refused the last write (full, locked) is tried again
   * every 250 ms, not at every batch. */
  if ((rec->pending->len >= BATCH_COMMIT_ROWS && !rec->failing)
      || g_get_monotonic_time () - rec->last_write_us >= BATCH_COMMIT_US)
    write_batches (rec, NULL);
}

static void
bind_opt_double (sqlite3_stmt *st, int i, gboolean valid, double v)
{
  if (valid)
    sqlite3_bind_double (st, i, v);
  else
    sqlite3_bind_null (st, i);
}

/* A figure import takes again (app/core/record-ranges.h), or NULL: one
 * past the range (a script's forged CPU time over a short run) is
 * unknown, not a number that would make the export refused. */
static void
bind_figure (sqlite3_stmt *st, int i, gboolean valid, double v, double max)
{
  bind_opt_double (st, i, valid && isfinite (v) && v >= 0 && v <= max, v);
}

static void
bind_opt_int (sqlite3_stmt *st, int i, gboolean valid, gint64 v)
{
  if (valid)
    sqlite3_bind_int64 (st, i, v);
  else
    sqlite3_bind_null (st, i);
}

static gboolean
write_workers_and_series (ls_run_recorder *rec, const ls_run_result *r, GError **error)
{
  sqlite3_stmt *st = NULL;

  if (!prepare (rec->store,
                "INSERT INTO worker (run_id, idx, epoch, pid, startup_ms, exit, cpu_ns, populate_ms, measured_faults, "
                "measured_bytes) VALUES (?,?,?,?,?,?,?,?,?,?)",
                &st, "recording workers", error))
    return FALSE;
  for (size_t i = 0; i < r->n_workers; i++)
    {
      const ls_worker_info *w = &r->workers[i];
      char how[128];
      ls_exit_status_describe (&w->exit, how, sizeof how);
      sqlite3_bind_int64 (st, 1, rec->run_id);
      sqlite3_bind_int (st, 2, (int) w->index);
      sqlite3_bind_int (st, 3, (int) w->epoch);
      sqlite3_bind_int64 (st, 4, (gint64) w->pid);
      bind_opt_double (st, 5, w->startup_ms >= 0, w->startup_ms);
      sqlite3_bind_text (st, 6, how, -1, SQLITE_TRANSIENT);
      bind_opt_int (st, 7, w->cpu_ns > 0, (gint64) w->cpu_ns);
      /* A script's workers (--target pytorch) report none of these. */
      bind_opt_double (st, 8, w->startup_ms >= 0 && w->populate_ms > 0, w->populate_ms);
      bind_opt_int (st, 9, w->measured_bytes > 0, (gint64) w->measured_faults);
      bind_opt_int (st, 10, w->measured_bytes > 0, (gint64) w->measured_bytes);
      if (!step_done (rec->store, st, "recording workers", error))
        {
          sqlite3_finalize (st);
          return FALSE;
        }
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);

  if (!prepare (rec->store,
                "INSERT INTO sample (run_id, t_ms, processes, rss_bytes, pss_bytes, uss_bytes, working_set_bytes, "
                "private_bytes, runner_pss_bytes, cpu_ns) VALUES (?,?,?,?,?,?,?,?,?,?)",
                &st, "recording memory samples", error))
    return FALSE;
  unsigned v = r->memory.valid;
  for (size_t i = 0; i < r->memory.n_series; i++)
    {
      const ls_memory_point *p = &r->memory.series[i];
      sqlite3_bind_int64 (st, 1, rec->run_id);
      sqlite3_bind_double (st, 2, p->t_ms);
      sqlite3_bind_int (st, 3, (int) p->processes);
      bind_opt_int (st, 4, v & LS_PROCMEM_RSS, (gint64) p->rss_bytes);
      bind_opt_int (st, 5, v & LS_PROCMEM_PSS, (gint64) p->pss_bytes);
      bind_opt_int (st, 6, v & LS_PROCMEM_USS, (gint64) p->uss_bytes);
      bind_opt_int (st, 7, v & LS_PROCMEM_WORKING_SET, (gint64) p->working_set_bytes);
      bind_opt_int (st, 8, v & LS_PROCMEM_PRIVATE, (gint64) p->private_bytes);
      sqlite3_bind_int64 (st, 9, (gint64) p->runner_pss_bytes);
      sqlite3_bind_int64 (st, 10, (gint64) p->cpu_ns);
      if (!step_done (rec->store, st, "recording memory samples", error))
        {
          sqlite3_finalize (st);
          return FALSE;
        }
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);

  /* NVML's series, beside the memory one. */
  if (r->gpu.valid && r->gpu.samples)
    {
      if (!prepare (rec->store, "INSERT INTO sample (run_id, t_ms, gpu_util, gpu_mem_bytes) VALUES (?,?,?,?)", &st,
                    "recording GPU samples", error))
        return FALSE;
      for (size_t i = 0; i < r->gpu.samples; i++)
        {
          const ls_gpumon_sample *g = &r->gpu.series[i];
          sqlite3_bind_int64 (st, 1, rec->run_id);
          sqlite3_bind_double (st, 2, g->t_ms);
          bind_opt_double (st, 3, g->valid & LS_GPUMON_UTIL, g->gpu_util_percent / 100.0);
          bind_opt_int (st, 4, g->valid & LS_GPUMON_MEM, (gint64) g->mem_used_bytes);
          if (!step_done (rec->store, st, "recording GPU samples", error))
            {
              sqlite3_finalize (st);
              return FALSE;
            }
          sqlite3_reset (st);
        }
      sqlite3_finalize (st);
    }
  return TRUE;
}

static const char *
status_name (ls_run_status s)
{
  return s == LS_RUN_DONE ? "done" : s == LS_RUN_FAILED ? "failed" : "interrupted";
}

gboolean
ls_run_recorder_finish (ls_run_recorder *rec, const ls_run_result *r, const char *summary_json, GError **error)
{
  ls_store *store = rec->store;
  sqlite3 *db = ls_store_db (store);
  sqlite3_stmt *st = NULL;
  g_autofree char *now = ls_store_now ();
  gboolean ok = FALSE;
  const ls_memory_summary *m = &r->memory;

  /* Batches that cannot be written now are lost with the figures below:
   * the run stays as its row says (the next open marks it interrupted). */
  if (!write_batches (rec, error))
    goto out;
  if (rec->dropped)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_SQL,
                   _("%s: %llu batches could not be recorded (the store was locked or full)"),
                   ls_store_path (store), (unsigned long long) rec->dropped);
      goto out;
    }
  int rc = sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    {
      ls_store_set_error (store, rc, "finishing the run", error);
      goto out;
    }
  if (!write_workers_and_series (rec, r, error))
    goto rollback;
  if (!prepare (store,
                "UPDATE run SET status = ?, error = ?, finished_at = ?, summary = ?, sink = ?, simulated = ?, "
                "dataset_samples = ?, sample_bytes = ?, throughput_sps = ?, wait_p50_ms = ?, wait_p95_ms = ?, "
                "wait_p99_ms = ?, wait_max_ms = ?, gpu_util_exact = ?, rss_peak_bytes = ?, pss_peak_bytes = ?, "
                "uss_peak_bytes = ?, private_peak_bytes = ?, arena_bytes = ?, cpu_percent = ?, "
                "time_to_first_batch_ms = ?, epoch_boundary_ms = ?, samples = ?, skipped_samples = ?, gpu_util_nvml = ?, "
                "stage_read_ms = ?, stage_decode_ms = ?, stage_transform_ms = ?, stage_write_ms = ?, stage_idle_ms = ?, "
                "stage_busy_ms = ?, first_worker_start_ms = ?, first_populate_ms = ?, first_in_flight_ms = ?, "
                "first_build_ms = ?, first_handoff_ms = ?, arena_page_bytes = ? WHERE id = ?",
                &st, "finishing the run", error))
    goto rollback;
  int i = 1;
  sqlite3_bind_text (st, i++, status_name (r->status), -1, SQLITE_STATIC);
  if (r->status == LS_RUN_DONE)
    sqlite3_bind_null (st, i++);
  else
    sqlite3_bind_text (st, i++, r->error, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, i++, now, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, i++, summary_json, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, i++, r->sink_name[0] ? r->sink_name : "none", -1, SQLITE_TRANSIENT);
  sqlite3_bind_int (st, i++, r->simulated);
  sqlite3_bind_int64 (st, i++, (gint64) r->dataset_samples);
  sqlite3_bind_int64 (st, i++, (gint64) r->sample_bytes);
  bind_figure (st, i++, r->measured_s > 0, r->throughput_sps, LS_RECORD_MAX_THROUGHPUT);
  bind_figure (st, i++, r->wait_ms.valid, r->wait_ms.p50, LS_RECORD_MAX_MS);
  bind_figure (st, i++, r->wait_ms.valid, r->wait_ms.p95, LS_RECORD_MAX_MS);
  bind_figure (st, i++, r->wait_ms.valid, r->wait_ms.p99, LS_RECORD_MAX_MS);
  bind_figure (st, i++, r->wait_ms.valid, r->wait_ms.max, LS_RECORD_MAX_MS);
  bind_opt_double (st, i++, r->gpu_util_exact >= 0, r->gpu_util_exact);
  bind_opt_int (st, i++, m->valid & LS_PROCMEM_RSS, (gint64) m->peak.rss_bytes);
  bind_opt_int (st, i++, m->valid & LS_PROCMEM_PSS, (gint64) m->peak.pss_bytes);
  bind_opt_int (st, i++, m->valid & LS_PROCMEM_USS, (gint64) m->peak.uss_bytes);
  bind_opt_int (st, i++, m->valid & LS_PROCMEM_PRIVATE, (gint64) m->peak.private_bytes);
  sqlite3_bind_int64 (st, i++, (gint64) r->arena_bytes);
  bind_figure (st, i++, TRUE, r->cpu_percent, LS_RECORD_MAX_CPU_PERCENT);
  bind_figure (st, i++, r->time_to_first_batch_ms >= 0, r->time_to_first_batch_ms, LS_RECORD_MAX_MS);
  bind_figure (st, i++, r->epoch_boundary_ms >= 0, r->epoch_boundary_ms, LS_RECORD_MAX_MS);
  sqlite3_bind_int64 (st, i++, (gint64) r->samples);
  sqlite3_bind_int64 (st, i++, (gint64) r->skipped_samples);
  bind_opt_double (st, i++, r->gpu_util_nvml >= 0, r->gpu_util_nvml);
  ls_stage_summary stages;
  ls_run_stage_summary (r, &stages);
  for (int k = 0; k < LS_N_STAGES; k++)
    bind_figure (st, i++, stages.valid, stages.mean_ms[k], LS_RECORD_MAX_MS);
  const ls_first_batch *f = &r->first_batch;
  bind_figure (st, i++, f->valid, f->worker_start_ms, LS_RECORD_MAX_MS);
  bind_figure (st, i++, f->valid, f->populate_ms, LS_RECORD_MAX_MS);
  bind_figure (st, i++, f->valid, f->in_flight_ms, LS_RECORD_MAX_MS);
  bind_figure (st, i++, f->valid, f->build_ms, LS_RECORD_MAX_MS);
  bind_figure (st, i++, f->valid, f->handoff_ms, LS_RECORD_MAX_MS);
  bind_opt_int (st, i++, r->arena_page_bytes > 0, (gint64) r->arena_page_bytes);
  sqlite3_bind_int64 (st, i++, rec->run_id);
  ok = step_done (store, st, "finishing the run", error);
  sqlite3_finalize (st);
  if (!ok)
    goto rollback;
  if ((rc = sqlite3_exec (db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
    {
      ls_store_set_error (store, rc, "finishing the run", error);
      ok = FALSE;
      goto rollback;
    }
  goto out;

rollback:
  sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
out:
  sqlite3_finalize (rec->insert_batch);
  g_array_unref (rec->pending);
  g_free (rec->uuid);
  g_free (rec);
  return ok;
}
