/* The script run's phases and their allowances (probe-phase.h). */
#include "app/target/probe-phase.h"

#include <glib.h>

void
ls_phase_init (ls_phase *p, double timeout_s, uint64_t now_ns)
{
  p->kind = LS_PHASE_START;
  p->since_ns = now_ns;
  p->timeout_s = timeout_s > 0 ? timeout_s : 0;
  p->set_without_batch = FALSE;
}

static void
enter (ls_phase *p, ls_phase_kind kind, uint64_t now_ns)
{
  /* Forward only: a phase the run already passed never restarts a clock. */
  if (kind <= p->kind)
    return;
  p->kind = kind;
  p->since_ns = now_ns;
}

void
ls_phase_event (ls_phase *p, ls_probe_event ev, uint64_t now_ns)
{
  switch (ev)
    {
    case LS_PROBE_EV_PROBE:
      enter (p, LS_PHASE_LOADER, now_ns);
      break;
    case LS_PROBE_EV_LOADER:
      enter (p, LS_PHASE_BATCHES, now_ns);
      break;
    case LS_PROBE_EV_WORKERS:
      /* A worker set starts (a new one each epoch without persistent
       * workers): once per batch at most, the only way back. */
      if (p->kind == LS_PHASE_BATCHES && !p->set_without_batch)
        {
          p->kind = LS_PHASE_WORKERS;
          p->since_ns = now_ns;
          p->set_without_batch = TRUE;
        }
      break;
    case LS_PROBE_EV_BATCH:
      if (p->kind == LS_PHASE_WORKERS)
        p->kind = LS_PHASE_BATCHES;
      if (p->kind == LS_PHASE_BATCHES)
        {
          p->since_ns = now_ns;
          p->set_without_batch = FALSE;
        }
      break;
    case LS_PROBE_EV_FINISHED:
    case LS_PROBE_EV_ERROR:
      enter (p, LS_PHASE_ENDING, now_ns);
      break;
    case LS_PROBE_EV_WORKER_READY: /* sent after the set's first batch */
    case LS_PROBE_EV_STAGES:
    case LS_PROBE_EV_RANKS: /* the ranks' summaries, sent with the end */
      break;
    }
}

void
ls_phase_closed (ls_phase *p, uint64_t now_ns)
{
  enter (p, LS_PHASE_CLOSED, now_ns);
}

double
ls_phase_allowance (const ls_phase *p)
{
  if (p->timeout_s <= 0)
    return 0;
  if (p->kind == LS_PHASE_START || p->kind == LS_PHASE_WORKERS)
    return MAX (p->timeout_s, LS_PHASE_START_MIN_S);
  return p->timeout_s;
}

gboolean
ls_phase_expired (const ls_phase *p, uint64_t now_ns)
{
  double allowance = ls_phase_allowance (p);
  return allowance > 0 && now_ns > p->since_ns && (double) (now_ns - p->since_ns) / 1e9 > allowance;
}

void
ls_phase_message (const ls_phase *p, const char *base, uint64_t batches, char *msg, gsize size)
{
  double a = ls_phase_allowance (p);
  switch (p->kind)
    {
    case LS_PHASE_START:
      g_snprintf (msg, size,
                  /* untranslated: the run's error, kept in the store */
                  "%s: Python did not start and import torch within %g s (the start's allowance, at least "
                  "--timeout); it was stopped",
                  base, a);
      break;
    case LS_PHASE_LOADER:
      g_snprintf (msg, size,
                  /* untranslated: the run's error, kept in the store */
                  "%s did not build a torch.utils.data.DataLoader within %g s (--timeout) of the probe's "
                  "start; it was stopped",
                  base, a);
      break;
    case LS_PHASE_WORKERS:
      g_snprintf (msg, size,
                  /* untranslated: the run's error, kept in the store */
                  "%s: its DataLoader's workers did not start and deliver a first batch within %g s (a worker "
                  "set's allowance, at least --timeout) after %" G_GUINT64_FORMAT " batches; it was stopped",
                  base, a, batches);
      break;
    case LS_PHASE_BATCHES:
      g_snprintf (msg, size,
                  /* untranslated: the run's error, kept in the store */
                  "%s hung: no batch for %g s (--timeout) after %" G_GUINT64_FORMAT " batches; it was stopped",
                  base, a, batches);
      break;
    case LS_PHASE_ENDING:
      g_snprintf (msg, size,
                  /* untranslated: the run's error, kept in the store */
                  "%s reported its end but did not exit within %g s (--timeout); it was stopped", base, a);
      break;
    case LS_PHASE_CLOSED:
      g_snprintf (msg, size,
                  /* untranslated: the run's error, kept in the store */
                  "%s closed the probe's channel and did not end within %g s (--timeout); it was stopped", base,
                  a);
      break;
    }
}
