#include "loader/memsampler.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "platform/channel.h"
#include "platform/clock.h"
#include "platform/thread.h"

struct ls_memsampler {
  ls_pool *pool;
  uint32_t interval_ms;
  ls_thread *thread;
  ls_mutex *lock;
  bool stop;
  uint64_t thread_cpu_ns;
  uint64_t t0_ns;
  size_t cap_series;
  ls_memory_summary sum;  /* mean holds running sums until stop */
};

static void
add_field (uint64_t *peak, uint64_t *total, uint64_t value)
{
  if (value > *peak)
    *peak = value;
  *total += value;
}

static void
take_sample (ls_memsampler *s)
{
  ls_pid pids[LS_CHANNEL_WAIT_MAX + 1];
  size_t n = 1;
  ls_procmem tree = { 0 };

  pids[0] = ls_process_self_pid ();
  if (s->pool)
    n += ls_pool_live_pids (s->pool, pids + 1, LS_CHANNEL_WAIT_MAX);
  ls_memory_point point = { .t_ms = (double) (ls_clock_ns () - s->t0_ns) / 1e6 };
  tree.valid = ~0u;
  for (size_t i = 0; i < n; i++)
    {
      ls_procmem m;
      uint64_t user = 0, sys = 0;
      if (ls_procmem_read (pids[i], &m, NULL) != LS_OK)
        continue; /* a worker that just ended */
      if (ls_proccpu_read (pids[i], &user, &sys, NULL) == LS_OK)
        point.cpu_ns += user + sys;
      if (i == 0)
        point.runner_pss_bytes = (m.valid & LS_PROCMEM_PSS) ? m.pss_bytes : m.private_bytes;
      point.processes++;
      tree.valid &= m.valid;
      tree.rss_bytes += m.rss_bytes;
      tree.pss_bytes += m.pss_bytes;
      tree.uss_bytes += m.uss_bytes;
      tree.working_set_bytes += m.working_set_bytes;
      tree.private_bytes += m.private_bytes;
    }
  if (tree.valid == ~0u)
    return;

  point.rss_bytes = tree.rss_bytes;
  point.pss_bytes = tree.pss_bytes;
  point.uss_bytes = tree.uss_bytes;
  point.working_set_bytes = tree.working_set_bytes;
  point.private_bytes = tree.private_bytes;

  ls_mutex_lock (s->lock);
  ls_memory_summary *sum = &s->sum;
  if (sum->n_series == s->cap_series)
    {
      size_t cap = s->cap_series ? s->cap_series * 2 : 256;
      ls_memory_point *grown = realloc (sum->series, cap * sizeof *grown);
      if (grown)
        {
          sum->series = grown;
          s->cap_series = cap;
        }
    }
  if (sum->n_series < s->cap_series)
    sum->series[sum->n_series++] = point;
  sum->valid |= tree.valid;
  sum->samples++;
  add_field (&sum->peak.rss_bytes, &sum->mean.rss_bytes, tree.rss_bytes);
  add_field (&sum->peak.pss_bytes, &sum->mean.pss_bytes, tree.pss_bytes);
  add_field (&sum->peak.uss_bytes, &sum->mean.uss_bytes, tree.uss_bytes);
  add_field (&sum->peak.working_set_bytes, &sum->mean.working_set_bytes, tree.working_set_bytes);
  add_field (&sum->peak.private_bytes, &sum->mean.private_bytes, tree.private_bytes);
  ls_mutex_unlock (s->lock);
}

static void
sampler_loop (ls_memsampler *s)
{
  for (;;)
    {
      ls_mutex_lock (s->lock);
      bool stop = s->stop;
      ls_mutex_unlock (s->lock);
      if (stop)
        return;
      /* Never let the runner fork a worker in the middle of this. */
      ls_fork_guard_enter ();
      take_sample (s);
      ls_fork_guard_leave ();
      /* Sleep in short steps so stopping is quick. */
      for (uint32_t slept = 0; slept < s->interval_ms; slept += 10)
        {
          ls_sleep_ms (10);
          ls_mutex_lock (s->lock);
          stop = s->stop;
          ls_mutex_unlock (s->lock);
          if (stop)
            return;
        }
    }
}

static void
sampler_main (void *data)
{
  ls_memsampler *s = data;
  sampler_loop (s);
  s->thread_cpu_ns = ls_thread_cpu_ns ();
}

int
ls_memsampler_start (ls_pool *pool, uint32_t interval_ms, ls_memsampler **out, ls_error *err)
{
  ls_memsampler *s = calloc (1, sizeof *s);

  *out = NULL;
  if (!s || !(s->lock = ls_mutex_new ()))
    {
      free (s);
      return ls_error_set (err, LS_ERR_NOMEM, "memory sampler: out of memory");
    }
  s->pool = pool;
  s->interval_ms = interval_ms ? interval_ms : 100;
  s->t0_ns = ls_clock_ns ();
  if (ls_thread_start (&s->thread, sampler_main, s, err) != LS_OK)
    {
      ls_mutex_free (s->lock);
      free (s);
      return err ? err->code : LS_ERR_OS;
    }
  *out = s;
  return LS_OK;
}

size_t
ls_memsampler_points_since (ls_memsampler *s, size_t from, ls_memory_point *out, size_t cap)
{
  size_t n = 0;
  ls_mutex_lock (s->lock);
  for (size_t i = from; i < s->sum.n_series && n < cap; i++)
    out[n++] = s->sum.series[i];
  ls_mutex_unlock (s->lock);
  return n;
}

void
ls_memory_summary_clear (ls_memory_summary *summary)
{
  free (summary->series);
  summary->series = NULL;
  summary->n_series = 0;
}

void
ls_memsampler_stop (ls_memsampler *s, ls_memory_summary *summary)
{
  if (!s)
    {
      memset (summary, 0, sizeof *summary);
      return;
    }
  ls_mutex_lock (s->lock);
  s->stop = true;
  ls_mutex_unlock (s->lock);
  ls_thread_join (s->thread);
  uint64_t before = ls_thread_cpu_ns ();
  take_sample (s);
  s->sum.sampler_cpu_ns = s->thread_cpu_ns + (ls_thread_cpu_ns () - before);

  *summary = s->sum;
  if (summary->samples)
    {
      summary->mean.rss_bytes /= summary->samples;
      summary->mean.pss_bytes /= summary->samples;
      summary->mean.uss_bytes /= summary->samples;
      summary->mean.working_set_bytes /= summary->samples;
      summary->mean.private_bytes /= summary->samples;
    }
  summary->peak.valid = summary->mean.valid = summary->valid;
  ls_mutex_free (s->lock);
  free (s);
}
