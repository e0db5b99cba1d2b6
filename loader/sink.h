/* Sinks: the consumer side of a run. A sink takes each batch where the
 * workers left it (an arena slot), moves it to the device and runs the
 * model step, and says when the slot may be reused and how long the copy
 * and the compute took.
 *
 *   none  hands every batch straight back (measures the loader alone);
 *   cuda  real host-to-device copies and a model-step kernel, timed with
 *         CUDA events, through the CUDA driver loaded at run time
 *         (sink-cuda-driver.c; Linux and Windows);
 *   sim   the same timeline without a GPU: copy time modelled from bytes and
 *         a bandwidth per pin mode, compute as a fixed busy time. Everything
 *         it produces is labelled simulated.
 *
 * The pipeline, the same in cuda and sim: a batch's copy starts when its
 * turn comes on the copy engine (blocking copies also wait for the previous
 * model step, as a copy on the compute stream would); its model step starts
 * when its copy is done and the previous step has finished. The consumer is
 * held back only by the step before the one it just queued, as a training
 * loop that reads its loss each step is. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loader/arena.h"
#include "loader/pool.h"
#include "platform/error.h"

typedef enum {
  LS_SINK_NONE = 0,
  LS_SINK_SIM = 1,
  LS_SINK_CUDA = 2,
  LS_SINK_AUTO = 3, /* cuda when a device answers, else sim */
} ls_sink_kind;

typedef enum {
  LS_PIN_OFF = 0,     /* pageable: copy straight from the arena */
  LS_PIN_STAGING = 1, /* PyTorch's pin_memory: copy into pinned staging memory, then to the device */
  LS_PIN_ARENA = 2,   /* the shared arena itself is pinned (cuMemHostRegister): no extra copy */
} ls_pin_mode;

/* Modelled host-to-device bandwidths of the sim sink, GB/s (PCIe 4.0 x16
 * class: pageable memory goes through the driver's bounce buffers). */
#define LS_SIM_BANDWIDTH_PAGEABLE 6.0
#define LS_SIM_BANDWIDTH_PINNED 24.0

typedef struct ls_sink_config {
  ls_sink_kind kind;
  ls_pin_mode pin;
  bool non_blocking;
  double model_ms;             /* device busy time per batch */
  double sim_bandwidth_gbps[3]; /* per pin mode; 0 = the defaults above */
  int device;                  /* CUDA device index */
} ls_sink_config;

void ls_sink_config_init (ls_sink_config *config);

/* Timings of one batch, known once its model step has finished. */
typedef struct ls_sink_timing {
  uint64_t seq;        /* order of submission, from 0 */
  double copy_ms;      /* host-to-device transfer */
  double compute_ms;   /* model step */
  double stage_ms;     /* host copy into pinned staging memory (staging mode) */
} ls_sink_timing;

/* The slots a sink can hold at once: the consumer's share of the arena. */
#define LS_SINK_MAX_HELD 2

/* Opaque; implementations see it in sink-private.h. */
typedef struct ls_sink ls_sink;

/* Opens the sink the config asks for. With LS_SINK_AUTO, a CUDA start that
 * fails falls back to sim, and `note` (if not NULL) says why in words. An
 * explicit cuda that cannot start is an error naming the CUDA error. The
 * arena is registered (pinned) here in LS_PIN_ARENA mode. */
int ls_sink_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, char *note, size_t note_len,
                  ls_error *err);

/* Queues a batch. On return, `release` holds the slots (n_release of them)
 * whose data the sink no longer needs, this batch's own or earlier ones. */
int ls_sink_submit (ls_sink *sink, const ls_batch *batch, uint32_t *release, size_t *n_release, ls_error *err);

/* Waits for everything queued; returns the remaining slots to release. */
int ls_sink_drain (ls_sink *sink, uint32_t *release, size_t *n_release, ls_error *err);

/* Moves the timings of finished batches (in submission order) into out. */
size_t ls_sink_take_timings (ls_sink *sink, ls_sink_timing *out, size_t cap);

const char *ls_sink_name (const ls_sink *sink); /* "none", "sim" or "cuda" */
bool ls_sink_simulated (const ls_sink *sink);
ls_sink_kind ls_sink_kind_of (const ls_sink *sink);

/* Bytes the host copied itself (staging: every batch once more), and the
 * device's name ("NVIDIA H200", "simulated", "none"). */
uint64_t ls_sink_host_bytes_copied (const ls_sink *sink);
const char *ls_sink_device_name (const ls_sink *sink);

/* The CUDA device's PCI bus id ("0000:3b:00.0"), by which the GPU monitor
 * finds the same device in NVML; "" for the other sinks. */
const char *ls_sink_pci_bus_id (const ls_sink *sink);

/* The CUDA driver that answered: its version as cuDriverGetVersion gives
 * it (13000 = 13.0) and the library it was loaded from ("libcuda.so.1",
 * "nvcuda.dll"); 0 and "" for the other sinks. */
int ls_sink_cuda_driver_version (const ls_sink *sink);
const char *ls_sink_cuda_driver_library (const ls_sink *sink);

void ls_sink_close (ls_sink *sink);

const char *ls_pin_mode_name (ls_pin_mode pin);
