/* The cuda sink's pipeline, the same for both CUDA APIs (the calls come
 * from the sink's ls_cuda_ops; sink-cuda-pipeline.h).
 *
 * Two streams (copy, compute) and two of everything per batch in flight:
 * device buffers, pinned staging buffers (pin staging), event sets. Batch k
 * uses set k % 2. At the end of submit(k) the host waits for the step of
 * batch k-1, so when batch k's set comes round again (k+2) everything batch
 * k did on the device has finished.
 *
 *   non_blocking: copy k on the copy stream (overlapping step k-1), an event
 *                 after it, the compute stream waits on that event and runs
 *                 step k.
 *   blocking:     the copy waits for step k-1 (a synchronize of the compute
 *                 stream) and the host waits for the copy; then step k on
 *                 the compute stream.
 *
 * The model step reads the whole batch (so the copy's data is used) and
 * then spins on clock64() for a time calibrated at open, so that one step
 * lasts config->model_ms. */
#include "loader/sink-cuda-pipeline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/shm.h"

static const char *
name (ls_cuda_pipeline *p, ls_cuda_call call)
{
  return p->ops->call_name (p, call);
}

int
ls_cuda_fail (ls_cuda_pipeline *p, ls_error *err, int status, const char *call_fmt, ...)
{
  char call[160];
  va_list ap;

  va_start (ap, call_fmt);
  vsnprintf (call, sizeof call, call_fmt, ap);
  va_end (ap);
  return ls_error_set (err, p->ops->error_code (status), "CUDA sink: %s failed with %s (%s)", call,
                       p->ops->status_name (p, status), p->ops->status_text (p, status));
}

static int
elapsed_ms (ls_cuda_pipeline *p, void *start, void *end, double *ms)
{
  float f = 0;
  int e = p->ops->event_elapsed_ms (p, start, end, &f);
  *ms = (double) f;
  return e;
}

/* ls_sink_calibrate's timer: one step over the first device buffer on the
 * compute stream, timed with batch set 0's events. */
static int
time_step (void *sink, size_t bytes, long long spin_cycles, double *ms, ls_error *err)
{
  ls_cuda_pipeline *p = (ls_cuda_pipeline *) sink;
  ls_cuda_batch *c = &p->inflight[0];
  int e, rc;

  if ((e = p->ops->event_record (p, c->compute_start, p->compute)) != 0)
    return ls_cuda_fail (p, err, e, "%s", name (p, LS_CUDA_EVENT_RECORD));
  if ((rc = p->ops->launch_step (p, p->dev[0], bytes, spin_cycles, err)) != LS_OK)
    return rc;
  if ((e = p->ops->event_record (p, c->compute_end, p->compute)) != 0)
    return ls_cuda_fail (p, err, e, "%s", name (p, LS_CUDA_EVENT_RECORD));
  if ((e = p->ops->event_synchronize (p, c->compute_end)) != 0)
    return ls_cuda_fail (p, err, e, "%s (calibration step)", name (p, LS_CUDA_EVENT_SYNCHRONIZE));
  if ((e = elapsed_ms (p, c->compute_start, c->compute_end, ms)) != 0)
    return ls_cuda_fail (p, err, e, "%s", name (p, LS_CUDA_EVENT_ELAPSED_TIME));
  return LS_OK;
}

static void
release_slot (ls_cuda_batch *c, uint32_t *release, size_t *n_release)
{
  if (c->holds_slot)
    {
      release[(*n_release)++] = c->slot;
      c->holds_slot = false;
    }
}

/* Waits for a queued batch's step, records its timing and releases its
 * slot (its copy has finished long before). */
static int
finish (ls_cuda_pipeline *p, ls_cuda_batch *c, uint32_t *release, size_t *n_release, ls_error *err)
{
  unsigned long long seq = (unsigned long long) c->seq;
  ls_sink_timing t;
  int e;

  if (!c->pending)
    return LS_OK;
  if ((e = p->ops->event_synchronize (p, c->compute_end)) != 0)
    return ls_cuda_fail (p, err, e, "%s (model step of batch %llu)", name (p, LS_CUDA_EVENT_SYNCHRONIZE), seq);
  memset (&t, 0, sizeof t);
  t.seq = c->seq;
  t.stage_ms = c->stage_ms;
  if ((e = elapsed_ms (p, c->copy_start, c->copy_end, &t.copy_ms)) != 0)
    return ls_cuda_fail (p, err, e, "%s (copy of batch %llu)", name (p, LS_CUDA_EVENT_ELAPSED_TIME), seq);
  if ((e = elapsed_ms (p, c->compute_start, c->compute_end, &t.compute_ms)) != 0)
    return ls_cuda_fail (p, err, e, "%s (model step of batch %llu)", name (p, LS_CUDA_EVENT_ELAPSED_TIME), seq);
  c->pending = false;
  ls_sink_add_timing (&p->base, &t);
  release_slot (c, release, n_release);
  return LS_OK;
}

static int
enter (ls_cuda_pipeline *p, ls_error *err)
{
  return p->ops->enter ? p->ops->enter (p, err) : LS_OK;
}

/* The copy of batch c (set k) on the copy stream between its two events;
 * a blocking one after the step before and waited for. */
static int
copy_batch (ls_cuda_pipeline *p, int k, const void *src, size_t bytes, uint32_t *release, size_t *n_release,
            ls_error *err)
{
  const ls_sink_config *config = &p->base.config;
  ls_cuda_batch *c = &p->inflight[k];
  int e;

  if (!config->non_blocking)
    {
      /* A blocking copy is ordered after the previous step. */
      if ((e = p->ops->stream_synchronize (p, p->compute)) != 0)
        return ls_cuda_fail (p, err, e, "%s (model step before batch %llu)", name (p, LS_CUDA_STREAM_SYNCHRONIZE),
                             (unsigned long long) c->seq);
    }

  if ((e = p->ops->event_record (p, c->copy_start, p->copy)) != 0)
    return ls_cuda_fail (p, err, e, "%s (copy start)", name (p, LS_CUDA_EVENT_RECORD));
  if ((e = p->ops->memcpy_htod_async (p, p->dev[k], src, bytes, p->copy)) != 0)
    return ls_cuda_fail (p, err, e, "%s (%zu bytes to the device)", name (p, LS_CUDA_MEMCPY_HTOD_ASYNC), bytes);
  if ((e = p->ops->event_record (p, c->copy_end, p->copy)) != 0)
    return ls_cuda_fail (p, err, e, "%s (copy end)", name (p, LS_CUDA_EVENT_RECORD));

  if (!config->non_blocking)
    {
      /* The host waits for the copy, as cudaMemcpy (non_blocking=False)
       * makes it; its source is then free. */
      if ((e = p->ops->event_synchronize (p, c->copy_end)) != 0)
        return ls_cuda_fail (p, err, e, "%s (copy of batch %llu)", name (p, LS_CUDA_EVENT_SYNCHRONIZE),
                             (unsigned long long) c->seq);
      release_slot (c, release, n_release);
    }
  return LS_OK;
}

/* Batch c's step (set k) on the compute stream after its copy, between its
 * two events. */
static int
step_batch (ls_cuda_pipeline *p, int k, size_t bytes, ls_error *err)
{
  ls_cuda_batch *c = &p->inflight[k];
  int e, rc;

  if ((e = p->ops->stream_wait_event (p, p->compute, c->copy_end)) != 0)
    return ls_cuda_fail (p, err, e, "%s (step after copy)", name (p, LS_CUDA_STREAM_WAIT_EVENT));
  if ((e = p->ops->event_record (p, c->compute_start, p->compute)) != 0)
    return ls_cuda_fail (p, err, e, "%s (step start)", name (p, LS_CUDA_EVENT_RECORD));
  if ((rc = p->ops->launch_step (p, p->dev[k], bytes, p->cal.spin_cycles, err)) != LS_OK)
    return rc;
  if ((e = p->ops->event_record (p, c->compute_end, p->compute)) != 0)
    return ls_cuda_fail (p, err, e, "%s (step end)", name (p, LS_CUDA_EVENT_RECORD));
  c->pending = true;
  return LS_OK;
}

int
ls_cuda_pipeline_submit (ls_sink *base, const ls_batch *b, uint32_t *release, size_t *n_release, ls_error *err)
{
  ls_cuda_pipeline *p = (ls_cuda_pipeline *) base;
  uint64_t seq = base->next_seq;
  int k = (int) (seq % 2);
  ls_cuda_batch *c = &p->inflight[k];
  const void *src = b->data;
  int e, rc;

  if (b->bytes > p->buf_bytes)
    return ls_error_set (err, LS_ERR_INVALID, "CUDA sink: batch of %zu bytes is larger than the %zu-byte device buffer",
                         b->bytes, p->buf_bytes);
  if ((rc = enter (p, err)) != LS_OK)
    return rc;
  /* Batch k-2 used this set; submit(k-1) waited for its step. A drain
   * between may have left it finished too. */
  if ((rc = finish (p, c, release, n_release, err)) != LS_OK)
    return rc;

  c->seq = seq;
  c->slot = b->slot;
  c->holds_slot = true;
  c->stage_ms = 0;
  base->next_seq++;

  if (base->config.pin == LS_PIN_STAGING)
    {
      /* PyTorch's pin_memory: the host copies the batch into pinned memory;
       * the slot is free as soon as it has. */
      uint64_t t0 = ls_clock_ns ();
      memcpy (p->staging[k], b->data, b->bytes);
      c->stage_ms = (double) (ls_clock_ns () - t0) / 1e6;
      base->host_bytes_copied += b->bytes;
      src = p->staging[k];
      release_slot (c, release, n_release);
    }

  if ((rc = copy_batch (p, k, src, b->bytes, release, n_release, err)) != LS_OK
      || (rc = step_batch (p, k, b->bytes, err)) != LS_OK)
    return rc;

  /* The consumer is held back by the step before this one only. */
  if ((rc = finish (p, &p->inflight[1 - k], release, n_release, err)) != LS_OK)
    return rc;

  /* This batch's slot goes back as soon as its copy is done. */
  if (c->holds_slot)
    {
      e = p->ops->event_query (p, c->copy_end);
      if (e == 0)
        release_slot (c, release, n_release);
      else if (e != p->ops->not_ready)
        return ls_cuda_fail (p, err, e, "%s (copy of batch %llu)", name (p, LS_CUDA_EVENT_QUERY),
                             (unsigned long long) seq);
    }
  return LS_OK;
}

int
ls_cuda_pipeline_drain (ls_sink *base, uint32_t *release, size_t *n_release, ls_error *err)
{
  ls_cuda_pipeline *p = (ls_cuda_pipeline *) base;
  uint64_t seq = base->next_seq;
  int e, rc;

  if ((rc = enter (p, err)) != LS_OK)
    return rc;
  /* The older batch first: timings go in submission order. */
  for (int i = 0; i < 2; i++)
    if ((rc = finish (p, &p->inflight[(seq + (uint64_t) i) % 2], release, n_release, err)) != LS_OK)
      return rc;
  if ((e = p->ops->stream_synchronize (p, p->copy)) != 0)
    return ls_cuda_fail (p, err, e, "%s (copy stream)", name (p, LS_CUDA_STREAM_SYNCHRONIZE));
  if ((e = p->ops->stream_synchronize (p, p->compute)) != 0)
    return ls_cuda_fail (p, err, e, "%s (compute stream)", name (p, LS_CUDA_STREAM_SYNCHRONIZE));
  for (int i = 0; i < 2; i++)
    release_slot (&p->inflight[i], release, n_release);
  return LS_OK;
}

/* A zeroed device buffer; *dev stays 0 unless it was allocated. */
static int
alloc_device (ls_cuda_pipeline *p, ls_cuda_devptr *dev, size_t bytes, const char *what, ls_error *err)
{
  ls_cuda_devptr d = 0;
  int e;

  if ((e = p->ops->mem_alloc (p, &d, bytes)) != 0)
    return ls_cuda_fail (p, err, e, "%s (%s)", name (p, LS_CUDA_MEM_ALLOC), what);
  *dev = d;
  if ((e = p->ops->mem_zero (p, d, bytes)) != 0)
    return ls_cuda_fail (p, err, e, "%s", name (p, LS_CUDA_MEMSET));
  return LS_OK;
}

/* Device buffers, pinned memory, streams and events, in that order. */
static int
setup (ls_cuda_pipeline *p, const ls_arena *arena, ls_error *err)
{
  const ls_sink_config *config = &p->base.config;
  char what[200];
  size_t bytes;
  int e, rc;

  p->buf_bytes = (size_t) arena->batch_size * arena->sample_bytes;
  bytes = p->buf_bytes ? p->buf_bytes : 16;
  snprintf (what, sizeof what, "%zu bytes for a batch on %s", p->buf_bytes, p->base.device_name);
  for (int i = 0; i < 2; i++)
    {
      void *staging = NULL;
      if ((rc = alloc_device (p, &p->dev[i], bytes, what, err)) != LS_OK)
        return rc;
      if (config->pin != LS_PIN_STAGING)
        continue;
      if ((e = p->ops->mem_host_alloc (p, &staging, bytes)) != 0)
        return ls_cuda_fail (p, err, e, "%s (%zu bytes of pinned staging memory)", name (p, LS_CUDA_MEM_HOST_ALLOC),
                             p->buf_bytes);
      p->staging[i] = staging;
    }
  if ((rc = alloc_device (p, &p->dev_out, LS_CUDA_STEP_OUT_WORDS * sizeof (unsigned long long), "model step output",
                          err))
      != LS_OK)
    return rc;

  if (config->pin == LS_PIN_ARENA)
    {
      void *data = ls_shm_data (arena->shm);
      size_t arena_bytes = ls_arena_bytes (arena);
      if ((e = p->ops->mem_host_register (p, data, arena_bytes)) != 0)
        return ls_cuda_fail (p, err, e, "%s (the %zu-byte arena)", name (p, LS_CUDA_MEM_HOST_REGISTER), arena_bytes);
      p->registered = data;
    }

  if ((e = p->ops->stream_create (p, &p->copy)) != 0)
    {
      p->copy = NULL;
      return ls_cuda_fail (p, err, e, "%s (copy stream)", name (p, LS_CUDA_STREAM_CREATE));
    }
  if ((e = p->ops->stream_create (p, &p->compute)) != 0)
    {
      p->compute = NULL;
      return ls_cuda_fail (p, err, e, "%s (compute stream)", name (p, LS_CUDA_STREAM_CREATE));
    }
  for (int i = 0; i < 2; i++)
    {
      ls_cuda_batch *c = &p->inflight[i];
      void **ev[4] = { &c->copy_start, &c->copy_end, &c->compute_start, &c->compute_end };
      for (int j = 0; j < 4; j++)
        {
          if ((e = p->ops->event_create (p, ev[j])) != 0)
            return ls_cuda_fail (p, err, e, "%s", name (p, LS_CUDA_EVENT_CREATE));
          c->n_events++;
        }
    }
  return ls_sink_calibrate (time_step, p, p->buf_bytes, config->model_ms, &p->cal, err);
}

int
ls_cuda_pipeline_open (size_t sink_bytes, const ls_cuda_ops *ops, const ls_sink_ops *sink_ops,
                       const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err)
{
  ls_cuda_pipeline *p;
  int rc;

  *out = NULL;
  p = (ls_cuda_pipeline *) calloc (1, sink_bytes);
  if (!p)
    return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
  p->ops = ops;
  p->base.ops = sink_ops;
  p->base.kind = LS_SINK_CUDA;
  p->base.config = *config;
  /* Room for the timings up front: the first ones arrive one submit late. */
  p->base.timings = (ls_sink_timing *) malloc (64 * sizeof *p->base.timings);
  if (!p->base.timings)
    {
      free (p);
      return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
    }
  p->base.cap_timings = 64;
  if ((rc = ops->open_device (p, err)) != LS_OK || (rc = setup (p, arena, err)) != LS_OK)
    {
      sink_ops->close (&p->base);
      return rc;
    }
  *out = &p->base;
  return LS_OK;
}

void
ls_cuda_pipeline_release (ls_cuda_pipeline *p)
{
  if (p->copy)
    p->ops->stream_synchronize (p, p->copy);
  if (p->compute)
    p->ops->stream_synchronize (p, p->compute);
  for (int i = 0; i < 2; i++)
    {
      ls_cuda_batch *c = &p->inflight[i];
      void *ev[4] = { c->copy_start, c->copy_end, c->compute_start, c->compute_end };
      for (int j = 0; j < c->n_events; j++)
        p->ops->event_destroy (p, ev[j]);
      if (p->dev[i])
        p->ops->mem_free (p, p->dev[i]);
      if (p->staging[i])
        p->ops->mem_free_host (p, p->staging[i]);
    }
  if (p->dev_out)
    p->ops->mem_free (p, p->dev_out);
  if (p->copy)
    p->ops->stream_destroy (p, p->copy);
  if (p->compute)
    p->ops->stream_destroy (p, p->compute);
  if (p->registered)
    p->ops->mem_host_unregister (p, p->registered);
}

void
ls_cuda_pipeline_free (ls_cuda_pipeline *p)
{
  free (p->base.timings); /* ls_sink_close has taken them; a failed open has not */
  free (p);
}
