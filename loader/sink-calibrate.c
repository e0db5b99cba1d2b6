#include "loader/sink-calibrate.h"

#include "loader/stats.h"

#define CAL_REPEAT 5

int
ls_sink_calibrate (ls_step_timer time_step, void *sink, size_t buf_bytes, double model_ms,
                   ls_step_calibration *out, ls_error *err)
{
  double v[CAL_REPEAT], ms = 0, base_ms, rough;
  long long n;
  int rc;

  /* The first launch loads the module; a few more bring the clocks up. */
  for (int i = 0; i < 2; i++)
    if ((rc = time_step (sink, 0, 1000000, &ms, err)) != LS_OK)
      return rc;
  if (!(ms > 0))
    return ls_error_set (err, LS_ERR_OS, "CUDA sink: calibration failed: a 1e6-cycle spin took %g ms", ms);
  rough = 1e6 / ms;
  if ((rc = time_step (sink, 0, (long long) (rough * 30), &ms, err)) != LS_OK)
    return rc;

  for (int i = 0; i < CAL_REPEAT; i++)
    if ((rc = time_step (sink, 0, 0, &v[i], err)) != LS_OK)
      return rc;
  base_ms = ls_median (v, CAL_REPEAT);

  n = (long long) (rough * 10); /* about 10 ms */
  for (int i = 0; i < CAL_REPEAT; i++)
    {
      if ((rc = time_step (sink, 0, n, &ms, err)) != LS_OK)
        return rc;
      v[i] = ms > base_ms ? (double) n / (ms - base_ms) : (double) n / ms;
    }
  out->cycles_per_ms = ls_median (v, CAL_REPEAT);
  if (!(out->cycles_per_ms > 0))
    return ls_error_set (err, LS_ERR_OS, "CUDA sink: calibration failed (%g cycles per ms)", out->cycles_per_ms);

  for (int i = 0; i < CAL_REPEAT; i++)
    if ((rc = time_step (sink, buf_bytes, 0, &v[i], err)) != LS_OK)
      return rc;
  out->read_ms = ls_median (v, CAL_REPEAT);

  out->spin_cycles = model_ms > out->read_ms ? (long long) ((model_ms - out->read_ms) * out->cycles_per_ms) : 0;
  return LS_OK;
}
