/* The synthetic dataset: samples whose content is a pure function of
 * (seed, index) and that cost a chosen amount of CPU, to measure the pool
 * without any I/O or decoding. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "loader/dataset-private.h"
#include "loader/prng.h"
#include "platform/clock.h"
#include "platform/process.h"

/* Largest sample the synthetic dataset makes: 8192 x 8192 x 3 bytes. */
#define SYNTHETIC_MAX_SIDE 8192u

static volatile uint64_t work_sink;

/* Ends the process as a crash would: SIGSEGV with its default action on
 * POSIX (raised, not provoked, so sanitizers leave it alone); a real access
 * violation on Windows, whose exception code the pool must report. */
static void
crash_now (void)
{
#ifdef _WIN32
  volatile int *volatile p = NULL;
  *p = 1;
#else
  signal (SIGSEGV, SIG_DFL);
  raise (SIGSEGV);
#endif
}

uint64_t
ls_synthetic_work (uint64_t seed, uint64_t units)
{
  uint64_t x = seed;
  for (uint64_t i = 0; i < units; i++)
    x = ls_mix64 (x + i);
  return x;
}

double
ls_synthetic_calibrate (void)
{
  uint64_t units = 1024;
  double best = 0;

  /* Grow until one timing lasts >= 2 ms, then keep the fastest of three. */
  for (;;)
    {
      uint64_t t0 = ls_clock_ns ();
      work_sink += ls_synthetic_work (t0, units);
      uint64_t dt = ls_clock_ns () - t0;
      if (dt >= 2000000u)
        break;
      units *= 2;
    }
  for (int i = 0; i < 3; i++)
    {
      uint64_t t0 = ls_clock_ns ();
      work_sink += ls_synthetic_work (t0, units);
      double per_us = (double) units / ((double) (ls_clock_ns () - t0) / 1000.0);
      if (per_us > best)
        best = per_us;
    }
  return best;
}

typedef struct {
  ls_dataset base;
  uint64_t work_units; /* per sample */
  ls_pid ballast_owner; /* process that allocated the ballast */
  uint8_t *ballast;
} synthetic;

static void
synthetic_close (ls_dataset *ds)
{
  synthetic *s = (synthetic *) ds;
  free (s->ballast);
  free (ds);
}

/* --alloc fault: memory a process holds while it loads, to check the
 * memory sampler sees every worker. Touched page by page, so it counts. */
static void
allocate_ballast (synthetic *s)
{
  if (!s->base.spec.alloc_mb || s->ballast_owner == ls_process_self_pid ())
    return;
  size_t bytes = (size_t) s->base.spec.alloc_mb << 20;
  s->ballast = malloc (bytes); /* a forked copy of the runner's is left alone */
  s->ballast_owner = ls_process_self_pid ();
  if (s->ballast)
    for (size_t i = 0; i < bytes; i += 4096)
      s->ballast[i] = (uint8_t) i;
}

static int
synthetic_read (ls_dataset *ds, uint64_t index, uint32_t epoch, void *out, int32_t *label, ls_error *err)
{
  synthetic *s = (synthetic *) ds;
  const ls_dataset_spec *spec = &ds->spec;
  size_t pixels = (size_t) spec->width * spec->height * 3;
  ls_rng rng = ls_rng_for (spec->seed, index, 0x5359u);

  if (index >= ds->length)
    return ls_error_set (err, LS_ERR_INVALID, "past the end of the dataset (%llu samples)",
                         (unsigned long long) ds->length);
  (void) epoch; /* synthetic samples have no random transforms */

  if (spec->crash_at && index + 1 == spec->crash_at)
    crash_now ();
  if (spec->hang_at && index + 1 == spec->hang_at)
    for (;;)
      ls_sleep_ms (1000);
  if (spec->fail_every && index % spec->fail_every == spec->fail_every - 1)
    return ls_error_set (err, LS_ERR_INVALID, "injected failure (--fail-every %llu)",
                         (unsigned long long) spec->fail_every);

  allocate_ballast (s);
  uint64_t t0 = ls_clock_ns ();
  if (s->work_units)
    work_sink += ls_synthetic_work (index, s->work_units);
  uint64_t t1 = ls_clock_ns ();

  if (spec->output == LS_OUTPUT_U8_HWC)
    {
      uint8_t *px = out;
      size_t i = 0;
      for (; i + 8 <= pixels; i += 8)
        {
          uint64_t v = ls_rng_next (&rng);
          memcpy (px + i, &v, 8);
        }
      for (uint64_t v = ls_rng_next (&rng); i < pixels; i++, v >>= 8)
        px[i] = (uint8_t) v;
    }
  else
    {
      float *px = out;
      for (size_t i = 0; i < pixels; i += 8)
        {
          uint64_t v = ls_rng_next (&rng);
          for (size_t k = 0; k < 8 && i + k < pixels; k++, v >>= 8)
            px[i + k] = (float) (v & 0xff) * (1.0f / 255.0f);
        }
    }
  *label = (int32_t) (ls_mix64 (spec->seed ^ index) % 1000u);
  ds->stages.transform += t1 - t0;
  ds->stages.write += ls_clock_ns () - t1;
  return LS_OK;
}

static const ls_dataset_ops synthetic_ops = { synthetic_close, synthetic_read };

int
ls_synthetic_open (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err)
{
  synthetic *s;

  *out = NULL;
  if (spec->count == 0)
    return ls_error_set (err, LS_ERR_INVALID, "synthetic dataset: --count must be at least 1");
  if (spec->width == 0 || spec->height == 0 || spec->width > SYNTHETIC_MAX_SIDE || spec->height > SYNTHETIC_MAX_SIDE)
    return ls_error_set (err, LS_ERR_INVALID, "synthetic dataset: --size %ux%u is out of range (1x1 to %ux%u)",
                         spec->width, spec->height, SYNTHETIC_MAX_SIDE, SYNTHETIC_MAX_SIDE);
  if (spec->sample_cost_us > 0 && spec->work_per_us <= 0)
    return ls_error_set (err, LS_ERR_INVALID, "synthetic dataset: a sample cost needs a calibration (work_per_us)");
  s = calloc (1, sizeof *s);
  if (!s)
    return ls_error_set (err, LS_ERR_NOMEM, "synthetic dataset: out of memory");
  s->base.ops = &synthetic_ops;
  s->base.spec = *spec;
  s->base.length = spec->count;
  s->base.sample_bytes = (size_t) spec->width * spec->height * 3 * (spec->output == LS_OUTPUT_U8_HWC ? 1 : 4);
  s->work_units = (uint64_t) (spec->sample_cost_us * spec->work_per_us + 0.5);
  *out = &s->base;
  return LS_OK;
}
