/* What the sinks share and the rest of the loader does not see: the ops
 * table every sink fills, the struct they all start with, and their open
 * functions. For sink.c, sink-none.c, sink-sim.c, sink-cuda-driver.c,
 * sink-cuda-pipeline.c, sink-cuda.cu and the tests. */
#pragma once

#include "loader/sink.h"

typedef struct ls_sink_ops {
  int (*submit) (ls_sink *s, const ls_batch *b, uint32_t *release, size_t *n_release, ls_error *err);
  int (*drain) (ls_sink *s, uint32_t *release, size_t *n_release, ls_error *err);
  void (*close) (ls_sink *s);
} ls_sink_ops;

struct ls_sink {
  const ls_sink_ops *ops;
  ls_sink_kind kind;
  ls_sink_config config;
  char device_name[128];
  char pci_bus_id[32]; /* cuda only; "" otherwise */
  int driver_version;        /* cuda only: cuDriverGetVersion (13000 = 13.0); 0 otherwise */
  char driver_library[300];  /* cuda only: the driver library that answered */
  uint64_t host_bytes_copied;
  ls_sink_timing *timings; /* finished, not yet taken */
  size_t n_timings, cap_timings;
  uint64_t next_seq;
};

/* For implementations: records a finished batch's timing. */
void ls_sink_add_timing (ls_sink *sink, const ls_sink_timing *timing);

int ls_sink_none_open (const ls_sink_config *config, ls_sink **out, ls_error *err);
int ls_sink_sim_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err);

/* The cuda sink: sink.c's picks the driver API's (sink-cuda-driver.c), or
 * with LOADSCOPE_CUDA_API=runtime in a -Dcudart_sink=true build the
 * runtime API's (sink-cuda.cu, kept until the device check has compared
 * the two once); without CUDA (-Dcuda=disabled) it says this build has none. */
int ls_sink_cuda_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err);
int ls_sink_cuda_driver_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err);
int ls_sink_cuda_runtime_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err);
