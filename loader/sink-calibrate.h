/* The model step's calibration, shared by both CUDA sinks (the driver API's
 * and the runtime API's): how many SM clock cycles make a millisecond and how
 * long a step takes to read a full batch, so that read + spin = model_ms. */
#pragma once

#include <stddef.h>

#include "platform/error.h"

/* Times one model step on the device: reads `bytes` of the batch buffer,
 * then spins `spin_cycles` SM cycles; *ms is the step's time (CUDA events).
 * Returns LS_OK or an error code with err set. */
typedef int (*ls_step_timer) (void *sink, size_t bytes, long long spin_cycles, double *ms, ls_error *err);

typedef struct ls_step_calibration {
  double cycles_per_ms;
  double read_ms;        /* the step's time without a spin, on a full batch */
  long long spin_cycles; /* the spin that makes a step last model_ms */
} ls_step_calibration;

/* Runs the calibration with time_step on `sink`, whose full batch is
 * buf_bytes; fills *out. */
int ls_sink_calibrate (ls_step_timer time_step, void *sink, size_t buf_bytes, double model_ms,
                       ls_step_calibration *out, ls_error *err);
