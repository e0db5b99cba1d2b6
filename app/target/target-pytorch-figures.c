/* The figures of a script's run: its processes' memory and CPU sampled
 * while it runs, and at the end the summary's waits, steps, copies,
 * throughput and CPU from the probe's timeline, as loader/run.c defines
 * them for its own loader. Apart from the run loop and the events, which
 * only gather what this reads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/target/target-pytorch-private.h"
#include "loader/stats.h"
#include "platform/clock.h"
#include "platform/procmem.h"

/* One sample of the script and its workers, as loader/memsampler.c takes. */
void
ls_target_pytorch_sample (pt_run *s, ls_memory_summary *m)
{
  ls_memory_point p = { 0 };
  unsigned valid = ~0u;
  gboolean any = FALSE;
  p.t_ms = (double) (ls_clock_ns () - s->t0_ns) / 1e6;
  for (size_t i = 0; i < s->n_pids; i++)
    {
      ls_procmem pm;
      ls_error err = { 0 };
      if (ls_procmem_read (s->pids[i], &pm, &err) != LS_OK)
        continue;
      any = TRUE;
      valid &= pm.valid;
      p.processes++;
      p.rss_bytes += pm.rss_bytes;
      p.pss_bytes += pm.pss_bytes;
      p.uss_bytes += pm.uss_bytes;
      p.working_set_bytes += pm.working_set_bytes;
      p.private_bytes += pm.private_bytes;
      if (i == 0)
        p.runner_pss_bytes = pm.pss_bytes;
      uint64_t user = 0, sys = 0;
      if (ls_proccpu_read (s->pids[i], &user, &sys, &err) == LS_OK)
        {
          s->pid_cpu_ns[i] = user + sys;
          p.cpu_ns += user + sys;
        }
    }
  if (!any)
    return;
  m->series = grow (m->series, &s->cap_series, m->n_series + 1, sizeof *m->series);
  m->series[m->n_series++] = p;
  m->samples++;
  m->valid |= valid;
  uint64_t *peak[] = { &m->peak.rss_bytes, &m->peak.pss_bytes, &m->peak.uss_bytes, &m->peak.working_set_bytes,
                       &m->peak.private_bytes };
  uint64_t now[] = { p.rss_bytes, p.pss_bytes, p.uss_bytes, p.working_set_bytes, p.private_bytes };
  for (size_t k = 0; k < G_N_ELEMENTS (now); k++)
    if (now[k] > *peak[k])
      *peak[k] = now[k];
  if (s->config->on_memory)
    s->config->on_memory (s->config->user, &p);
}

static void
memory_means (ls_memory_summary *m)
{
  m->peak.valid = m->mean.valid = m->valid;
  if (!m->n_series)
    return;
  double sum[5] = { 0 };
  for (size_t i = 0; i < m->n_series; i++)
    {
      sum[0] += (double) m->series[i].rss_bytes;
      sum[1] += (double) m->series[i].pss_bytes;
      sum[2] += (double) m->series[i].uss_bytes;
      sum[3] += (double) m->series[i].working_set_bytes;
      sum[4] += (double) m->series[i].private_bytes;
    }
  double n = (double) m->n_series;
  m->mean.rss_bytes = (uint64_t) (sum[0] / n);
  m->mean.pss_bytes = (uint64_t) (sum[1] / n);
  m->mean.uss_bytes = (uint64_t) (sum[2] / n);
  m->mean.working_set_bytes = (uint64_t) (sum[3] / n);
  m->mean.private_bytes = (uint64_t) (sum[4] / n);
}

/* The summary's figures from the timeline, as loader/run.c defines them:
 * the consumer's step of batch k ends when it calls next() for k+1. */
void
ls_target_pytorch_figures (pt_run *s, double wall_s)
{
  ls_run_result *r = s->r;
  size_t n = r->n_timeline;
  uint32_t w = s->config->warmup;
  r->warmup_used = n > w ? w : 0;
  r->time_to_first_batch_ms = n ? r->timeline[0].ready_ms : -1;
  r->epoch_boundary_ms = -1;
  r->gpu_util_exact = -1;
  r->gpu_util_nvml = -1;
  double *waits = malloc ((n + 1) * sizeof *waits), *steps = malloc ((n + 1) * sizeof *steps);
  double *copies = malloc ((n + 1) * sizeof *copies);
  size_t m = 0, ns = 0, nc = 0;
  double boundary = 0, step_sum = 0;
  int boundaries = 0;
  for (size_t i = 0; i < n; i++)
    {
      const ls_batch_record *b = &r->timeline[i];
      if (b->batch == 0 && b->epoch > r->timeline[0].epoch)
        {
          boundary += b->wait_ms;
          boundaries++;
        }
      if (i < r->warmup_used)
        continue;
      waits[m++] = b->wait_ms;
      r->measured_samples += b->samples;
      if (b->compute_ms >= 0)
        {
          steps[ns++] = b->compute_ms;
          step_sum += b->compute_ms;
        }
      if (isfinite (b->copy_ms))
        copies[nc++] = b->copy_ms;
    }
  if (boundaries)
    r->epoch_boundary_ms = boundary / boundaries;
  r->wait_ms = ls_dist_of (waits, m);
  r->compute_ms = ls_dist_of (steps, ns);
  r->copy_ms = ls_dist_of (copies, nc);
  s->copies_timed = nc;
  free (copies);
  s->steps_sum_ms = step_sum;
  if (m)
    {
      const ls_batch_record *last = &r->timeline[n - 1];
      double start = 0;
      if (r->warmup_used)
        {
          const ls_batch_record *wb = &r->timeline[r->warmup_used - 1];
          start = wb->ready_ms + (wb->compute_ms > 0 ? wb->compute_ms : 0);
        }
      else
        start = r->timeline[0].ready_ms - r->timeline[0].wait_ms;
      double end = last->ready_ms + (last->compute_ms > 0 ? last->compute_ms : 0);
      r->measured_s = (end - start) / 1e3;
      if (r->measured_s > 0)
        {
          r->throughput_sps = (double) r->measured_samples / r->measured_s;
          if (strcmp (r->sink_name, "cuda") == 0)
            r->gpu_util_exact = step_sum / (end - start);
        }
    }
  free (waits);
  free (steps);
  r->wall_s = wall_s;
  uint64_t cpu_ns = 0;
  for (size_t i = 0; i < s->n_pids; i++)
    cpu_ns += i == 0 && s->probe_cpu_ms >= 0 ? (uint64_t) (s->probe_cpu_ms * 1e6) : s->pid_cpu_ns[i];
  for (size_t i = 0; i < r->n_workers; i++)
    for (size_t k = 0; k < s->n_pids; k++)
      if (s->pids[k] == r->workers[i].pid)
        r->workers[i].cpu_ns = s->pid_cpu_ns[k];
  r->cpu_percent = wall_s > 0 ? (double) cpu_ns / 1e9 / wall_s * 100 : 0;
  r->cpu_ms_per_sample = r->samples ? (double) cpu_ns / 1e6 / (double) r->samples : 0;
  memory_means (&r->memory);
}
