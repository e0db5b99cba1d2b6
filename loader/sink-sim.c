/* The sim sink: the cuda sink's timeline without a GPU. The device is two
 * engines (copy, compute) whose busy periods are computed, not run: a copy
 * takes bytes / bandwidth for the pin mode, a model step model_ms. The
 * consumer waits in real time exactly where it would wait on a GPU, so the
 * run's wall clock, throughput and waits are real; only the device is not.
 * Host work that a GPU run does on the CPU (the staging memcpy) is done for
 * real. Everything this sink produces is labelled simulated. */
#include <stdlib.h>
#include <string.h>

#include "loader/sink-private.h"
#include "loader/sink-sim.h"
#include "platform/clock.h"

typedef struct {
  uint32_t slot;
  uint64_t copy_end_ns; /* the host may reuse the slot after this */
} held_slot;

typedef struct {
  ls_sink base;
  double bytes_per_ns;
  uint64_t copy_free_ns;    /* copy engine idle from */
  uint64_t compute_free_ns; /* compute engine idle from */
  uint64_t prev_compute_end_ns;
  held_slot held[LS_SINK_MAX_HELD + 1];
  size_t n_held;
  uint8_t *staging;
  size_t staging_bytes;
  ls_sim_clock clock;
} sim_sink;

static uint64_t
real_now (void *user)
{
  (void) user;
  return ls_clock_ns ();
}

/* Sleeps until t_ns, spinning only the last 100 us: a spinning consumer
 * would take a core from the workers it is waiting for. */
static void
real_wait_until (void *user, uint64_t t_ns)
{
  (void) user;
  for (;;)
    {
      uint64_t now = ls_clock_ns ();
      if (now >= t_ns)
        return;
      uint64_t left_us = (t_ns - now) / 1000u;
      if (left_us > 150)
        ls_sleep_us ((uint32_t) (left_us - 100));
    }
}

static uint64_t
now_ns (const sim_sink *s)
{
  return s->clock.now_ns (s->clock.user);
}

static void
wait_until (const sim_sink *s, uint64_t t_ns)
{
  s->clock.wait_until_ns (s->clock.user, t_ns);
}

static void
release_copied (sim_sink *s, uint32_t *release, size_t *n_release, bool all)
{
  uint64_t now = now_ns (s);
  size_t kept = 0;
  for (size_t i = 0; i < s->n_held; i++)
    if (all || s->held[i].copy_end_ns <= now)
      release[(*n_release)++] = s->held[i].slot;
    else
      s->held[kept++] = s->held[i];
  s->n_held = kept;
}

static int
sim_submit (ls_sink *base, const ls_batch *b, uint32_t *release, size_t *n_release, ls_error *err)
{
  sim_sink *s = (sim_sink *) base;
  ls_sink_timing t = { .seq = base->next_seq++ };
  bool slot_free = false;

  if (base->config.pin == LS_PIN_STAGING)
    {
      /* PyTorch's pin_memory: the batch is copied into pinned memory first. */
      if (b->bytes > s->staging_bytes)
        {
          free (s->staging);
          s->staging = malloc (b->bytes);
          s->staging_bytes = s->staging ? b->bytes : 0;
          if (!s->staging)
            return ls_error_set (err, LS_ERR_NOMEM, "sim sink: no memory for a %zu-byte staging buffer", b->bytes);
        }
      uint64_t t0 = now_ns (s);
      memcpy (s->staging, b->data, b->bytes);
      t.stage_ms = (double) (now_ns (s) - t0) / 1e6;
      base->host_bytes_copied += b->bytes;
      release[(*n_release)++] = b->slot;
      slot_free = true;
    }

  uint64_t now = now_ns (s);
  uint64_t copy_ns = (uint64_t) ((double) b->bytes / s->bytes_per_ns);
  uint64_t model_ns = (uint64_t) (base->config.model_ms * 1e6);
  uint64_t copy_start, copy_end, compute_start;

  if (base->config.non_blocking)
    {
      copy_start = now > s->copy_free_ns ? now : s->copy_free_ns;
      copy_end = copy_start + copy_ns;
      s->copy_free_ns = copy_end;
      compute_start = copy_end > s->compute_free_ns ? copy_end : s->compute_free_ns;
    }
  else
    {
      /* A blocking copy is ordered after the previous step, and the host
       * waits for it. */
      copy_start = now > s->compute_free_ns ? now : s->compute_free_ns;
      copy_end = copy_start + copy_ns;
      s->copy_free_ns = copy_end;
      wait_until (s, copy_end);
      compute_start = copy_end;
    }
  uint64_t compute_end = compute_start + model_ns;
  s->compute_free_ns = compute_end;
  t.copy_ms = (double) copy_ns / 1e6;
  t.compute_ms = (double) model_ns / 1e6;

  if (!slot_free)
    {
      s->held[s->n_held].slot = b->slot;
      s->held[s->n_held].copy_end_ns = copy_end;
      s->n_held++;
    }

  /* The host waits for the step before this one, as a loop reading its
   * loss every step does. */
  wait_until (s, s->prev_compute_end_ns);
  s->prev_compute_end_ns = compute_end;
  if (s->n_held >= LS_SINK_MAX_HELD)
    wait_until (s, s->held[0].copy_end_ns);
  release_copied (s, release, n_release, false);
  ls_sink_add_timing (base, &t);
  return LS_OK;
}

static int
sim_drain (ls_sink *base, uint32_t *release, size_t *n_release, ls_error *err)
{
  sim_sink *s = (sim_sink *) base;
  (void) err;
  wait_until (s, s->compute_free_ns > s->copy_free_ns ? s->compute_free_ns : s->copy_free_ns);
  release_copied (s, release, n_release, true);
  return LS_OK;
}

static void
sim_close (ls_sink *base)
{
  sim_sink *s = (sim_sink *) base;
  free (s->staging);
  free (s);
}

static const ls_sink_ops sim_ops = { sim_submit, sim_drain, sim_close };

int
ls_sink_sim_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err)
{
  return ls_sink_sim_open_clocked (config, arena, NULL, out, err);
}

int
ls_sink_sim_open_clocked (const ls_sink_config *config, const ls_arena *arena, const ls_sim_clock *clock,
                          ls_sink **out, ls_error *err)
{
  sim_sink *s;
  double gbps;

  (void) arena;
  *out = NULL;
  gbps = config->sim_bandwidth_gbps[config->pin];
  if (gbps == 0)
    gbps = config->pin == LS_PIN_OFF ? LS_SIM_BANDWIDTH_PAGEABLE : LS_SIM_BANDWIDTH_PINNED;
  if (!(gbps > 0) || gbps > 10000)
    return ls_error_set (err, LS_ERR_INVALID, "sim sink: bandwidth %g GB/s is out of range", gbps);
  s = calloc (1, sizeof *s);
  if (!s)
    return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
  s->base.ops = &sim_ops;
  s->base.kind = LS_SINK_SIM;
  s->base.config = *config;
  strcpy (s->base.device_name, "simulated");
  s->bytes_per_ns = gbps; /* 1 GB/s is 1 byte per ns */
  if (clock)
    s->clock = *clock;
  else
    s->clock = (ls_sim_clock){ real_now, real_wait_until, NULL };
  *out = &s->base;
  return LS_OK;
}
