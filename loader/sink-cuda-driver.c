/* The cuda sink: real host-to-device copies and a model-step kernel, timed
 * with CUDA events, through the CUDA driver API loaded at run time
 * (cuda-driver.c) and the kernel's PTX embedded at build time
 * (model-step.cu, model-step-ptx.h). Nothing of CUDA is linked, so the
 * same code runs on Linux and Windows, and a machine without a driver or
 * a device gets the simulated GPU with the reason (sink.c).
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
 *   blocking:     the copy waits for step k-1 (cuStreamSynchronize on the
 *                 compute stream) and the host waits for the copy; then
 *                 step k on the compute stream.
 *
 * The model step reads the whole batch (so the copy's data is used) and
 * then spins on clock64() for a time calibrated at open, so that one step
 * lasts config->model_ms. The same scheme and calibration as the runtime
 * API's sink-cuda.cu, call for call. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/cuda-driver.h"
#include "loader/model-step-ptx.h"
#include "loader/sink-calibrate.h"
#include "loader/sink-private.h"
#include "platform/clock.h"
#include "platform/shm.h"

#define STEP_BLOCK 256
#define STEP_OUT_WORDS 64 /* as model-step.cu has it */
#define STEP_KERNEL "ls_model_step"

typedef struct {
  CUevent copy_start, copy_end, compute_start, compute_end;
  int n_events;    /* created so far (close destroys these) */
  bool pending;    /* queued; its timing is not recorded yet */
  bool holds_slot; /* its arena slot is not released yet */
  uint32_t slot;
  uint64_t seq;
  double stage_ms;
} cuda_batch;

typedef struct {
  ls_sink base;
  ls_cuda_driver cu;
  bool initialised; /* cuInit succeeded: the driver stays loaded */
  CUdevice device;
  CUcontext ctx; /* the device's primary context, retained */
  CUmodule module;
  CUfunction step;
  CUstream copy, compute;
  bool have_copy, have_compute;
  CUdeviceptr dev[2];
  void *staging[2];
  size_t buf_bytes;
  CUdeviceptr dev_out;
  void *registered; /* the arena, pinned in place (pin arena) */
  cuda_batch inflight[2];
  unsigned grid;
  ls_step_calibration cal; /* the model step's clock and read time (sink-calibrate.h) */
} cuda_sink;

#define NAME(s, field) LS_CUDA_NAME (&(s)->cu, field)

static int
code_for (CUresult e)
{
  switch (e)
    {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return LS_ERR_NOMEM;
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_DEVICE_NOT_LICENSED:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return LS_ERR_UNSUPPORTED;
    default:
      return LS_ERR_OS;
    }
}

/* "CUDA sink: <call> failed with <CUDA_ERROR_NAME> (<text>)" */
static int fail (cuda_sink *s, ls_error *err, CUresult e, const char *call_fmt, ...) LS_PRINTF (4, 5);

static int
fail (cuda_sink *s, ls_error *err, CUresult e, const char *call_fmt, ...)
{
  char call[160];
  va_list ap;

  va_start (ap, call_fmt);
  vsnprintf (call, sizeof call, call_fmt, ap);
  va_end (ap);
  return ls_error_set (err, code_for (e), "CUDA sink: %s failed with %s (%s)", call, ls_cuda_error_name (&s->cu, e),
                       ls_cuda_error_text (&s->cu, e));
}

static double
elapsed_ms (cuda_sink *s, CUevent a, CUevent b, CUresult *e)
{
  float ms = 0;
  *e = s->cu.event_elapsed_time (&ms, a, b);
  return (double) ms;
}

static int
launch_step (cuda_sink *s, CUdeviceptr dev, size_t bytes, long long spin_cycles, ls_error *err)
{
  size_t n_words = bytes / 16;
  CUdeviceptr tail = dev + n_words * 16;
  unsigned tail_n = (unsigned) (bytes % 16);
  /* The kernel's parameters, as model-step.cu declares them. */
  void *params[] = { &dev, &n_words, &tail, &tail_n, &spin_cycles, &s->dev_out };
  CUresult e;

  e = s->cu.launch_kernel (s->step, s->grid, 1, 1, STEP_BLOCK, 1, 1, 0, s->compute, params, NULL);
  if (e != CUDA_SUCCESS)
    return fail (s, err, e, "%s (the model step, %u blocks of %d threads)", NAME (s, launch_kernel), s->grid,
                 STEP_BLOCK);
  return LS_OK;
}

/* One step on the compute stream, timed with batch set 0's events. */
static int
time_step (cuda_sink *s, CUdeviceptr dev, size_t bytes, long long spin_cycles, double *ms, ls_error *err)
{
  cuda_batch *c = &s->inflight[0];
  CUresult e;
  int rc;

  if ((e = s->cu.event_record (c->compute_start, s->compute)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s", NAME (s, event_record));
  if ((rc = launch_step (s, dev, bytes, spin_cycles, err)) != LS_OK)
    return rc;
  if ((e = s->cu.event_record (c->compute_end, s->compute)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s", NAME (s, event_record));
  if ((e = s->cu.event_synchronize (c->compute_end)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (calibration step)", NAME (s, event_synchronize));
  *ms = elapsed_ms (s, c->compute_start, c->compute_end, &e);
  if (e != CUDA_SUCCESS)
    return fail (s, err, e, "%s", NAME (s, event_elapsed_time));
  return LS_OK;
}

/* ls_sink_calibrate's timer: a step over the first device buffer. */
static int
time_step_cb (void *sink, size_t bytes, long long spin_cycles, double *ms, ls_error *err)
{
  cuda_sink *s = (cuda_sink *) sink;
  return time_step (s, s->dev[0], bytes, spin_cycles, ms, err);
}

static void
release_slot (cuda_batch *c, uint32_t *release, size_t *n_release)
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
finish (cuda_sink *s, cuda_batch *c, uint32_t *release, size_t *n_release, ls_error *err)
{
  ls_sink_timing t;
  CUresult e;

  if (!c->pending)
    return LS_OK;
  if ((e = s->cu.event_synchronize (c->compute_end)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (model step of batch %llu)", NAME (s, event_synchronize),
                 (unsigned long long) c->seq);
  memset (&t, 0, sizeof t);
  t.seq = c->seq;
  t.stage_ms = c->stage_ms;
  t.copy_ms = elapsed_ms (s, c->copy_start, c->copy_end, &e);
  if (e != CUDA_SUCCESS)
    return fail (s, err, e, "%s (copy of batch %llu)", NAME (s, event_elapsed_time), (unsigned long long) c->seq);
  t.compute_ms = elapsed_ms (s, c->compute_start, c->compute_end, &e);
  if (e != CUDA_SUCCESS)
    return fail (s, err, e, "%s (model step of batch %llu)", NAME (s, event_elapsed_time),
                 (unsigned long long) c->seq);
  c->pending = false;
  ls_sink_add_timing (&s->base, &t);
  release_slot (c, release, n_release);
  return LS_OK;
}

/* The calling thread works in the sink's context (the runtime API made its
 * device's primary context current by itself). */
static int
make_current (cuda_sink *s, ls_error *err)
{
  CUresult e = s->cu.ctx_set_current (s->ctx);
  return e == CUDA_SUCCESS ? LS_OK : fail (s, err, e, "%s", NAME (s, ctx_set_current));
}

static int
cuda_submit (ls_sink *base, const ls_batch *b, uint32_t *release, size_t *n_release, ls_error *err)
{
  cuda_sink *s = (cuda_sink *) base;
  uint64_t seq = base->next_seq;
  int k = (int) (seq % 2);
  cuda_batch *c = &s->inflight[k];
  cuda_batch *prev = &s->inflight[1 - k];
  const void *src = b->data;
  CUresult e;
  int rc;

  if (b->bytes > s->buf_bytes)
    return ls_error_set (err, LS_ERR_INVALID, "CUDA sink: batch of %zu bytes is larger than the %zu-byte device buffer",
                         b->bytes, s->buf_bytes);
  if ((rc = make_current (s, err)) != LS_OK)
    return rc;
  /* Batch k-2 used this set; submit(k-1) waited for its step. A drain
   * between may have left it finished too. */
  if ((rc = finish (s, c, release, n_release, err)) != LS_OK)
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
      memcpy (s->staging[k], b->data, b->bytes);
      c->stage_ms = (double) (ls_clock_ns () - t0) / 1e6;
      base->host_bytes_copied += b->bytes;
      src = s->staging[k];
      release_slot (c, release, n_release);
    }

  if (!base->config.non_blocking)
    {
      /* A blocking copy is ordered after the previous step. */
      if ((e = s->cu.stream_synchronize (s->compute)) != CUDA_SUCCESS)
        return fail (s, err, e, "%s (model step before batch %llu)", NAME (s, stream_synchronize),
                     (unsigned long long) seq);
    }

  if ((e = s->cu.event_record (c->copy_start, s->copy)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (copy start)", NAME (s, event_record));
  if ((e = s->cu.memcpy_htod_async (s->dev[k], src, b->bytes, s->copy)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (%zu bytes to the device)", NAME (s, memcpy_htod_async), b->bytes);
  if ((e = s->cu.event_record (c->copy_end, s->copy)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (copy end)", NAME (s, event_record));

  if (!base->config.non_blocking)
    {
      /* The host waits for the copy, as cudaMemcpy (non_blocking=False)
       * makes it; its source is then free. */
      if ((e = s->cu.event_synchronize (c->copy_end)) != CUDA_SUCCESS)
        return fail (s, err, e, "%s (copy of batch %llu)", NAME (s, event_synchronize), (unsigned long long) seq);
      release_slot (c, release, n_release);
    }

  if ((e = s->cu.stream_wait_event (s->compute, c->copy_end, 0)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (step after copy)", NAME (s, stream_wait_event));
  if ((e = s->cu.event_record (c->compute_start, s->compute)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (step start)", NAME (s, event_record));
  if ((rc = launch_step (s, s->dev[k], b->bytes, s->cal.spin_cycles, err)) != LS_OK)
    return rc;
  if ((e = s->cu.event_record (c->compute_end, s->compute)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (step end)", NAME (s, event_record));
  c->pending = true;

  /* The consumer is held back by the step before this one only. */
  if ((rc = finish (s, prev, release, n_release, err)) != LS_OK)
    return rc;

  /* This batch's slot goes back as soon as its copy is done. */
  if (c->holds_slot)
    {
      e = s->cu.event_query (c->copy_end);
      if (e == CUDA_SUCCESS)
        release_slot (c, release, n_release);
      else if (e != CUDA_ERROR_NOT_READY)
        return fail (s, err, e, "%s (copy of batch %llu)", NAME (s, event_query), (unsigned long long) seq);
    }
  return LS_OK;
}

static int
cuda_drain (ls_sink *base, uint32_t *release, size_t *n_release, ls_error *err)
{
  cuda_sink *s = (cuda_sink *) base;
  uint64_t seq = base->next_seq;
  CUresult e;
  int rc;

  if ((rc = make_current (s, err)) != LS_OK)
    return rc;
  /* The older batch first: timings go in submission order. */
  for (int i = 0; i < 2; i++)
    if ((rc = finish (s, &s->inflight[(seq + (uint64_t) i) % 2], release, n_release, err)) != LS_OK)
      return rc;
  if ((e = s->cu.stream_synchronize (s->copy)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (copy stream)", NAME (s, stream_synchronize));
  if ((e = s->cu.stream_synchronize (s->compute)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (compute stream)", NAME (s, stream_synchronize));
  for (int i = 0; i < 2; i++)
    release_slot (&s->inflight[i], release, n_release);
  return LS_OK;
}

static void
cuda_close (ls_sink *base)
{
  cuda_sink *s = (cuda_sink *) base;

  /* Errors are ignored here: there is nothing left to report them to. */
  if (s->ctx)
    {
      s->cu.ctx_set_current (s->ctx);
      if (s->have_copy)
        s->cu.stream_synchronize (s->copy);
      if (s->have_compute)
        s->cu.stream_synchronize (s->compute);
      for (int i = 0; i < 2; i++)
        {
          cuda_batch *c = &s->inflight[i];
          CUevent ev[4] = { c->copy_start, c->copy_end, c->compute_start, c->compute_end };
          for (int j = 0; j < c->n_events; j++)
            s->cu.event_destroy (ev[j]);
          if (s->dev[i])
            s->cu.mem_free (s->dev[i]);
          if (s->staging[i])
            s->cu.mem_free_host (s->staging[i]);
        }
      if (s->dev_out)
        s->cu.mem_free (s->dev_out);
      if (s->have_copy)
        s->cu.stream_destroy (s->copy);
      if (s->have_compute)
        s->cu.stream_destroy (s->compute);
      if (s->registered)
        s->cu.mem_host_unregister (s->registered);
      if (s->module)
        s->cu.module_unload (s->module);
      s->cu.ctx_set_current (NULL);
      s->cu.primary_ctx_release (s->device);
    }
  if (s->cu.lib)
    ls_cuda_driver_unload (&s->cu, s->initialised);
  free (s->base.timings); /* ls_sink_close has taken them; a failed open has not */
  free (s);
}

static const ls_sink_ops cuda_ops = { cuda_submit, cuda_drain, cuda_close };

/* The driver, the device and its primary context: failures here are "no
 * usable GPU" (auto falls back to sim with this text). */
static int
open_device (cuda_sink *s, ls_error *err)
{
  const ls_sink_config *config = &s->base.config;
  ls_error why = { 0 };
  CUresult e;
  int count = 0, version = 0;

  if (ls_cuda_driver_load (&s->cu, &why) != LS_OK)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no usable GPU: %s", why.message);
  if ((e = s->cu.init (0)) != CUDA_SUCCESS)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no usable GPU: %s failed with %s (%s)", NAME (s, init),
                         ls_cuda_error_name (&s->cu, e), ls_cuda_error_text (&s->cu, e));
  s->initialised = true;
  if (s->cu.driver_get_version (&version) == CUDA_SUCCESS)
    s->base.driver_version = version;
  snprintf (s->base.driver_library, sizeof s->base.driver_library, "%s", s->cu.library);
  if ((e = s->cu.device_get_count (&count)) != CUDA_SUCCESS)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no usable GPU: %s failed with %s (%s)", NAME (s, device_get_count),
                         ls_cuda_error_name (&s->cu, e), ls_cuda_error_text (&s->cu, e));
  if (count == 0)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no CUDA device");
  if (config->device < 0 || config->device >= count)
    return ls_error_set (err, LS_ERR_INVALID, "CUDA device %d does not exist (this machine has %d, from 0)",
                         config->device, count);
  if ((e = s->cu.device_get (&s->device, config->device)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (%d)", NAME (s, device_get), config->device);
  if ((e = s->cu.primary_ctx_retain (&s->ctx, s->device)) != CUDA_SUCCESS)
    {
      s->ctx = NULL;
      return fail (s, err, e, "%s (device %d)", NAME (s, primary_ctx_retain), config->device);
    }
  return make_current (s, err);
}

/* The device's name, its SMs (the grid) and its PCI bus id. */
static int
describe_device (cuda_sink *s, ls_error *err)
{
  const ls_sink_config *config = &s->base.config;
  int sms = 0, domain = 0, bus = 0, dev = 0;
  CUresult e;

  /* A name longer than the field is cut short, as intended. */
  if ((e = s->cu.device_get_name (s->base.device_name, (int) sizeof s->base.device_name, s->device)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (%d)", NAME (s, device_get_name), config->device);
  s->base.device_name[sizeof s->base.device_name - 1] = '\0';
  if ((e = s->cu.device_get_attribute (&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, s->device)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (multiprocessor count)", NAME (s, device_get_attribute));
  s->grid = (unsigned) (sms > 0 ? sms * 2 : 2);
  /* The monitor finds this device in NVML by it: NVML's indices are not
   * CUDA's (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER). The attributes give
   * it too, should the call fail. */
  if (s->cu.device_get_pci_bus_id (s->base.pci_bus_id, (int) sizeof s->base.pci_bus_id, s->device) != CUDA_SUCCESS)
    {
      s->cu.device_get_attribute (&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, s->device);
      s->cu.device_get_attribute (&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, s->device);
      s->cu.device_get_attribute (&dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, s->device);
      snprintf (s->base.pci_bus_id, sizeof s->base.pci_bus_id, "%04x:%02x:%02x.0", (unsigned) domain, (unsigned) bus,
                (unsigned) dev);
    }
  return LS_OK;
}

/* The model step from the embedded PTX; the driver JIT-compiles it for the
 * device (once, then from its cache). */
static int
load_step (cuda_sink *s, ls_error *err)
{
  CUresult e = s->cu.module_load_data (&s->module, ls_model_step_ptx);
  if (e != CUDA_SUCCESS)
    {
      s->module = NULL;
      if (e == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || e == CUDA_ERROR_INVALID_PTX)
        return ls_error_set (err, LS_ERR_UNSUPPORTED,
                             "no usable GPU: %s (the model step's PTX) failed with %s (%s): the driver (%d.%d) is too "
                             "old for the PTX",
                             NAME (s, module_load_data), ls_cuda_error_name (&s->cu, e),
                             ls_cuda_error_text (&s->cu, e), s->base.driver_version / 1000,
                             s->base.driver_version % 1000 / 10);
      return fail (s, err, e, "%s (the model step's PTX)", NAME (s, module_load_data));
    }
  if ((e = s->cu.module_get_function (&s->step, s->module, STEP_KERNEL)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (%s)", NAME (s, module_get_function), STEP_KERNEL);
  return LS_OK;
}

static int
setup (cuda_sink *s, const ls_arena *arena, ls_error *err)
{
  const ls_sink_config *config = &s->base.config;
  CUresult e;
  int rc;

  if ((rc = open_device (s, err)) != LS_OK || (rc = describe_device (s, err)) != LS_OK
      || (rc = load_step (s, err)) != LS_OK)
    return rc;

  s->buf_bytes = (size_t) arena->batch_size * arena->sample_bytes;
  for (int i = 0; i < 2; i++)
    {
      if ((e = s->cu.mem_alloc (&s->dev[i], s->buf_bytes ? s->buf_bytes : 16)) != CUDA_SUCCESS)
        {
          s->dev[i] = 0;
          return fail (s, err, e, "%s (%zu bytes for a batch on %s)", NAME (s, mem_alloc), s->buf_bytes,
                       s->base.device_name);
        }
      if ((e = s->cu.memset_d8 (s->dev[i], 0, s->buf_bytes ? s->buf_bytes : 16)) != CUDA_SUCCESS)
        return fail (s, err, e, "%s", NAME (s, memset_d8));
      if (config->pin == LS_PIN_STAGING)
        {
          if ((e = s->cu.mem_host_alloc (&s->staging[i], s->buf_bytes ? s->buf_bytes : 16, 0)) != CUDA_SUCCESS)
            {
              s->staging[i] = NULL;
              return fail (s, err, e, "%s (%zu bytes of pinned staging memory)", NAME (s, mem_host_alloc),
                           s->buf_bytes);
            }
        }
    }
  if ((e = s->cu.mem_alloc (&s->dev_out, STEP_OUT_WORDS * sizeof (unsigned long long))) != CUDA_SUCCESS)
    {
      s->dev_out = 0;
      return fail (s, err, e, "%s (model step output)", NAME (s, mem_alloc));
    }
  if ((e = s->cu.memset_d8 (s->dev_out, 0, STEP_OUT_WORDS * sizeof (unsigned long long))) != CUDA_SUCCESS)
    return fail (s, err, e, "%s", NAME (s, memset_d8));

  if (config->pin == LS_PIN_ARENA)
    {
      void *data = ls_shm_data (arena->shm);
      size_t bytes = ls_arena_bytes (arena);
      if ((e = s->cu.mem_host_register (data, bytes, 0)) != CUDA_SUCCESS)
        return fail (s, err, e, "%s (the %zu-byte arena)", NAME (s, mem_host_register), bytes);
      s->registered = data;
    }

  if ((e = s->cu.stream_create (&s->copy, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (copy stream)", NAME (s, stream_create));
  s->have_copy = true;
  if ((e = s->cu.stream_create (&s->compute, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    return fail (s, err, e, "%s (compute stream)", NAME (s, stream_create));
  s->have_compute = true;
  for (int i = 0; i < 2; i++)
    {
      cuda_batch *c = &s->inflight[i];
      CUevent *ev[4] = { &c->copy_start, &c->copy_end, &c->compute_start, &c->compute_end };
      for (int j = 0; j < 4; j++)
        {
          if ((e = s->cu.event_create (ev[j], CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
            return fail (s, err, e, "%s", NAME (s, event_create));
          c->n_events++;
        }
    }
  return ls_sink_calibrate (time_step_cb, s, s->buf_bytes, s->base.config.model_ms, &s->cal, err);
}

int
ls_sink_cuda_driver_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err)
{
  cuda_sink *s;
  int rc;

  *out = NULL;
  s = calloc (1, sizeof *s);
  if (!s)
    return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
  s->base.ops = &cuda_ops;
  s->base.kind = LS_SINK_CUDA;
  s->base.config = *config;
  /* Room for the timings up front: the first ones arrive one submit late. */
  s->base.timings = malloc (64 * sizeof *s->base.timings);
  if (!s->base.timings)
    {
      free (s);
      return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
    }
  s->base.cap_timings = 64;
  if ((rc = setup (s, arena, err)) != LS_OK)
    {
      cuda_close (&s->base);
      return rc;
    }
  *out = &s->base;
  return LS_OK;
}
