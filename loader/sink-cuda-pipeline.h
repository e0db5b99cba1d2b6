/* The cuda sink's pipeline, whatever the CUDA API: the two batch sets in
 * flight, the order of staging, copy, events and stream waits in submit,
 * the timings, drain, the calibration's timer, and the memory, streams and
 * events it all uses. Each API's sink (sink-cuda-driver.c, the driver API;
 * sink-cuda.cu, the runtime API) fills an ls_cuda_ops table with its calls
 * and finds and describes its device; everything else is here, once.
 *
 * Streams and events are the API's handles as void * (CUstream and
 * cudaStream_t are both pointers); device memory is a 64-bit address
 * (CUdeviceptr, or the runtime's pointer). An API call's status is an int,
 * 0 for success (CUDA_SUCCESS, cudaSuccess).
 *
 * C11 and C++17 alike: nvcc compiles sink-cuda.cu as C++. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "loader/sink-calibrate.h"
#include "loader/sink-private.h"

/* The model step's launch shape and output, as model-step.cu has them. */
#define LS_CUDA_STEP_BLOCK 256
#define LS_CUDA_STEP_OUT_WORDS 64

typedef unsigned long long ls_cuda_devptr;

/* The calls the pipeline makes, for their names in messages. */
typedef enum ls_cuda_call {
  LS_CUDA_MEM_ALLOC,
  LS_CUDA_MEMSET,
  LS_CUDA_MEM_HOST_ALLOC,
  LS_CUDA_MEM_HOST_REGISTER,
  LS_CUDA_STREAM_CREATE,
  LS_CUDA_STREAM_SYNCHRONIZE,
  LS_CUDA_STREAM_WAIT_EVENT,
  LS_CUDA_EVENT_CREATE,
  LS_CUDA_EVENT_RECORD,
  LS_CUDA_EVENT_QUERY,
  LS_CUDA_EVENT_SYNCHRONIZE,
  LS_CUDA_EVENT_ELAPSED_TIME,
  LS_CUDA_MEMCPY_HTOD_ASYNC,
} ls_cuda_call;

typedef struct ls_cuda_pipeline ls_cuda_pipeline;

/* One API's side. Calls return the API's status; open_device and
 * launch_step set err themselves (their messages are the API's own). */
typedef struct ls_cuda_ops {
  /* Finds the configured device and makes it ready: sets the base's
   * device_name, pci_bus_id, driver_version and driver_library, and the
   * pipeline's grid. Before anything is allocated. */
  int (*open_device) (ls_cuda_pipeline *p, ls_error *err);
  /* Makes the API ready for this thread's calls, before submit and drain
   * (the driver API's context); NULL where nothing is needed. */
  int (*enter) (ls_cuda_pipeline *p, ls_error *err);
  /* One model step over `bytes` of the batch at `batch` on p->compute. */
  int (*launch_step) (ls_cuda_pipeline *p, ls_cuda_devptr batch, size_t bytes, long long spin_cycles, ls_error *err);

  int (*mem_alloc) (ls_cuda_pipeline *p, ls_cuda_devptr *dev, size_t bytes);
  int (*mem_zero) (ls_cuda_pipeline *p, ls_cuda_devptr dev, size_t bytes);
  int (*mem_free) (ls_cuda_pipeline *p, ls_cuda_devptr dev);
  int (*mem_host_alloc) (ls_cuda_pipeline *p, void **host, size_t bytes);
  int (*mem_free_host) (ls_cuda_pipeline *p, void *host);
  int (*mem_host_register) (ls_cuda_pipeline *p, void *host, size_t bytes);
  int (*mem_host_unregister) (ls_cuda_pipeline *p, void *host);
  int (*memcpy_htod_async) (ls_cuda_pipeline *p, ls_cuda_devptr dst, const void *src, size_t bytes, void *stream);

  int (*stream_create) (ls_cuda_pipeline *p, void **stream); /* non-blocking */
  int (*stream_destroy) (ls_cuda_pipeline *p, void *stream);
  int (*stream_synchronize) (ls_cuda_pipeline *p, void *stream);
  int (*stream_wait_event) (ls_cuda_pipeline *p, void *stream, void *event);

  int (*event_create) (ls_cuda_pipeline *p, void **event);
  int (*event_destroy) (ls_cuda_pipeline *p, void *event);
  int (*event_record) (ls_cuda_pipeline *p, void *event, void *stream);
  int (*event_query) (ls_cuda_pipeline *p, void *event);
  int (*event_synchronize) (ls_cuda_pipeline *p, void *event);
  int (*event_elapsed_ms) (ls_cuda_pipeline *p, void *start, void *end, float *ms);

  /* For messages: a call's name ("cuMemAlloc_v2", "cudaMalloc"), a
   * status's name and text; and the LS_ERR_* code a status stands for. */
  const char *(*call_name) (ls_cuda_pipeline *p, ls_cuda_call call);
  const char *(*status_name) (ls_cuda_pipeline *p, int status);
  const char *(*status_text) (ls_cuda_pipeline *p, int status);
  int (*error_code) (int status);
  int not_ready; /* event_query's status for work not finished yet */
} ls_cuda_ops;

/* A sink's ls_cuda_ops: every field but enter and not_ready filled with the
 * static function of the field's name, which the sink defines. */
#define LS_CUDA_OPS(enter_fn, not_ready_status)                                                              \
  {                                                                                                          \
    .open_device = open_device, .enter = enter_fn, .launch_step = launch_step, .mem_alloc = mem_alloc,       \
    .mem_zero = mem_zero, .mem_free = mem_free, .mem_host_alloc = mem_host_alloc,                            \
    .mem_free_host = mem_free_host, .mem_host_register = mem_host_register,                                  \
    .mem_host_unregister = mem_host_unregister, .memcpy_htod_async = memcpy_htod_async,                      \
    .stream_create = stream_create, .stream_destroy = stream_destroy,                                        \
    .stream_synchronize = stream_synchronize, .stream_wait_event = stream_wait_event,                        \
    .event_create = event_create, .event_destroy = event_destroy, .event_record = event_record,              \
    .event_query = event_query, .event_synchronize = event_synchronize,                                      \
    .event_elapsed_ms = event_elapsed_ms, .call_name = call_name, .status_name = status_name,                \
    .status_text = status_text, .error_code = error_code, .not_ready = (not_ready_status),                   \
  }

/* One batch set: its events and the batch using it. */
typedef struct ls_cuda_batch {
  void *copy_start, *copy_end, *compute_start, *compute_end;
  int n_events;    /* created so far (release destroys these) */
  bool pending;    /* queued; its timing is not recorded yet */
  bool holds_slot; /* its arena slot is not released yet */
  uint32_t slot;
  uint64_t seq;
  double stage_ms;
} ls_cuda_batch;

/* The start of each CUDA sink's struct, as ls_sink is the pipeline's. */
struct ls_cuda_pipeline {
  ls_sink base;
  const ls_cuda_ops *ops;
  void *copy, *compute; /* the streams; NULL until created */
  ls_cuda_devptr dev[2]; /* the batch sets' device buffers */
  void *staging[2];      /* their pinned staging buffers (pin staging) */
  size_t buf_bytes;
  ls_cuda_devptr dev_out; /* the model step's output */
  void *registered;       /* the arena, pinned in place (pin arena) */
  ls_cuda_batch inflight[2];
  unsigned grid;           /* the model step's blocks */
  ls_step_calibration cal; /* the model step's clock and read time (sink-calibrate.h) */
};

/* Opens a CUDA sink of `sink_bytes` (its struct, starting with an
 * ls_cuda_pipeline): ops->open_device, then the pipeline's memory, streams
 * and events, then the calibration. On failure sink_ops->close takes back
 * what was made. */
int ls_cuda_pipeline_open (size_t sink_bytes, const ls_cuda_ops *ops, const ls_sink_ops *sink_ops,
                           const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err);

/* The sink's submit and drain (ls_sink_ops). */
int ls_cuda_pipeline_submit (ls_sink *base, const ls_batch *b, uint32_t *release, size_t *n_release, ls_error *err);
int ls_cuda_pipeline_drain (ls_sink *base, uint32_t *release, size_t *n_release, ls_error *err);

/* For the sinks' close: waits for the streams and gives back what the
 * pipeline made (errors ignored: nothing is left to report them to); then
 * frees the sink itself. */
void ls_cuda_pipeline_release (ls_cuda_pipeline *p);
void ls_cuda_pipeline_free (ls_cuda_pipeline *p);

/* "CUDA sink: <call> failed with <status name> (<status text>)", the code
 * ops->error_code gives; returns that code. */
int ls_cuda_fail (ls_cuda_pipeline *p, ls_error *err, int status, const char *call_fmt, ...) LS_PRINTF (4, 5);

#ifdef __cplusplus
}
#endif
