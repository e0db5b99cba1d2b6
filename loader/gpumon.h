/* The GPU's own view of a run: samples nvmlDeviceGetUtilizationRates and
 * nvmlDeviceGetMemoryInfo for one device in a background thread and keeps
 * the whole series.
 *
 * NVML is loaded at run time (libnvidia-ml.so.1, then libnvidia-ml.so;
 * nvml.dll on Windows; or the path in $LOADSCOPE_NVML_LIBRARY, which is then
 * the only one tried), so it is never a build dependency. A machine without
 * it has no NVML series: ls_gpumon_start() says LS_ERR_UNSUPPORTED with
 * "NVML unavailable: <reason>", which is not an error for the run. */
#pragma once

#include <stdint.h>

#include "platform/error.h"

typedef struct ls_gpumon ls_gpumon;

/* Valid bits of a sample, and of a summary (a bit set there means at least
 * one sample carries it). Absent is not zero. */
enum {
  LS_GPUMON_UTIL = 1u << 0, /* gpu_util_percent and mem_util_percent were read */
  LS_GPUMON_MEM = 1u << 1,  /* mem_used_bytes (and the summary's total) were read */
};

typedef struct ls_gpumon_sample {
  double t_ms;               /* since ls_gpumon_start() (the summary's start_ns) */
  unsigned valid;            /* LS_GPUMON_* bits */
  uint32_t gpu_util_percent; /* % of NVML's last sample period in which a kernel ran */
  uint32_t mem_util_percent; /* % of it in which device memory was read or written */
  uint64_t mem_used_bytes;
} ls_gpumon_sample;

#define LS_GPUMON_NAME_MAX 96   /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define LS_GPUMON_DRIVER_MAX 80 /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE */
#define LS_GPUMON_BUS_ID_MAX 32 /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
#define LS_GPUMON_NOTE_MAX 256

typedef struct ls_gpumon_summary {
  unsigned valid;               /* LS_GPUMON_* bits; 0: no NVML series */
  uint64_t samples;             /* entries in series */
  double mean_gpu_util;         /* 0..1, over the samples with LS_GPUMON_UTIL */
  double mean_mem_util;         /* 0..1, likewise */
  uint64_t peak_mem_used_bytes; /* over the samples with LS_GPUMON_MEM */
  uint64_t mean_mem_used_bytes;
  uint64_t mem_total_bytes;
  unsigned device_index;         /* NVML's index of the device sampled (not CUDA's); UINT_MAX: not known */
  char pci_bus_id[LS_GPUMON_BUS_ID_MAX]; /* the bus id it was matched by; "" when chosen by index */
  char note[LS_GPUMON_NOTE_MAX];  /* why it was chosen by index although a bus id was given; else "" */
  char device_name[LS_GPUMON_NAME_MAX];     /* "" when NVML would not say */
  char driver_version[LS_GPUMON_DRIVER_MAX]; /* likewise */
  uint64_t start_ns;            /* ls_clock_ns() at t_ms = 0 */
  ls_gpumon_sample *series;     /* in time order; owned, see ls_gpumon_summary_clear() */
} ls_gpumon_summary;

/* Loads NVML, opens device device_index and starts sampling it every
 * interval_ms (0: 100 ms), the first sample at once. Returns LS_OK with *out
 * set, or (*out = NULL):
 *   LS_ERR_UNSUPPORTED  no NVML series: no library, a missing symbol, a
 *                       failing nvmlInit, no such device; err->message is
 *                       "NVML unavailable: <reason>";
 *   LS_ERR_NOMEM, LS_ERR_OS  the monitor itself could not be set up. */
int ls_gpumon_start (unsigned device_index, uint32_t interval_ms, ls_gpumon **out, ls_error *err);

/* The same for the device whose PCI bus id is pci_bus_id ("0000:3b:00.0",
 * as cudaDeviceGetPCIBusId gives it): CUDA and NVML number devices
 * differently (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER), the bus id is the
 * same in both. Where NVML cannot find it (no such entry point, no such
 * device), device_index is used instead and the summary's note says why;
 * pci_bus_id NULL or "" is ls_gpumon_start(). */
int ls_gpumon_start_device (const char *pci_bus_id, unsigned device_index, uint32_t interval_ms, ls_gpumon **out,
                            ls_error *err);

/* Takes one last sample, stops the thread, shuts NVML down and fills
 * *summary, which then owns the series. m may be NULL (a run without a
 * monitor): the summary is all zero, valid = 0. */
void ls_gpumon_stop (ls_gpumon *m, ls_gpumon_summary *summary);

/* Mean GPU utilization (0..1) of the samples with LS_GPUMON_UTIL and
 * from_ms <= t_ms <= to_ms (the measured window after warm-up); < 0 when no
 * sample falls in it. */
double ls_gpumon_mean_util (const ls_gpumon_summary *s, double from_ms, double to_ms);

/* Frees the series and zeroes the summary. Accepts NULL and a zeroed summary. */
void ls_gpumon_summary_clear (ls_gpumon_summary *s);
