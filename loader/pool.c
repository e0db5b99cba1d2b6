#include "loader/pool.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/protocol.h"
#include "loader/sampler.h"
#include "loader/worker.h"
#include "platform/channel.h"
#include "platform/clock.h"
#include "platform/thread.h"

_Static_assert (LS_POOL_MAX_WORKERS <= LS_CHANNEL_WAIT_MAX, "the pool waits on every worker's channel at once");

/* How long a stopping worker gets to say goodbye before it is killed. */
#define STOP_GRACE_MS 2000
/* Longest single wait, so deaths and timeouts are noticed promptly. */
#define WAIT_SLICE_MS 100
/* --timeout judges a batch's build, not a worker's start (process start,
 * imports, the arena's pages): under Wine on a busy machine one start takes
 * seconds, which a 1 s timeout must not call a hang. A start is bounded by
 * this instead. */
#define START_LIMIT_NS (120ull * 1000000000ull)

typedef enum { SLOT_FREE, SLOT_BUSY, SLOT_READY, SLOT_HELD } slot_state;

typedef struct {
  slot_state state;
  int worker;         /* building it (SLOT_BUSY); the first of them when shared */
  uint64_t builders;  /* bit i: worker i has a part of it in hand */
  uint32_t parts_left; /* tasks of it not yet done */
  uint32_t skipped;   /* replaced samples reported by its parts so far */
  uint64_t seq;       /* epoch * batches_per_epoch + batch */
  ls_batch_stages stages; /* summed over its parts so far */
  bool filled;        /* built at least once (config.prepared) */
  int owner;          /* 1 + the worker that last built it whole; 0: none */
} slot_info;

typedef struct {
  ls_process *proc;
  ls_channel *ch;
  ls_pid pid;
  uint32_t outstanding; /* tasks sent, not yet answered */
  uint64_t ready_ns;    /* when it sent READY, on its clock (ls_clock_ns: the same for all) */
  size_t info;          /* index into pool->infos */
} worker_rt;

struct ls_pool {
  ls_pool_config config;
  char worker_path[1024];
  ls_dataset *dataset;
  ls_sampler sampler;
  ls_arena arena;
  uint64_t bpe;   /* batches per epoch */
  uint64_t total; /* batches over all epochs (UINT64_MAX: unbounded) */

  slot_info *slots;
  uint32_t n_slots;

  worker_rt *workers;   /* config.num_workers entries while running */
  bool running;
  uint32_t worker_epoch; /* epoch the running set was started for */
  uint64_t set_started_ns;
  uint32_t rr;          /* next worker to try, round robin like DataLoader */

  uint64_t dispatched;  /* batches handed to workers (by seq) */
  uint32_t max_in_flight;
  uint64_t delivered;   /* batches given to the consumer */
  uint32_t deliver_epoch;
  uint64_t delivered_in_epoch;

  ls_worker inproc;     /* num_workers == 0 */

  uint64_t warmup;      /* batches (by seq) whose faults are not measured */
  uint64_t first_call_ns; /* the first ls_pool_next */
  ls_first_batch first;

  ls_mutex *lock;       /* guards workers[].pid and infos for other threads */
  ls_worker_info *infos;
  size_t n_infos, cap_infos;
};

void
ls_pool_config_init (ls_pool_config *c)
{
  memset (c, 0, sizeof *c);
  c->batch_size = 64;
  c->prefetch_factor = 2;
  c->persistent_workers = false;
  c->shuffle = true;
  c->in_order = true;
#ifdef _WIN32
  c->start = LS_START_SPAWN; /* Windows has no fork */
#else
  c->start = LS_START_FORK;
#endif
  c->epochs = 1;
  c->consumer_slots = 2;
}

static uint32_t
epoch_of (const ls_pool *p, uint64_t seq)
{
  return (uint32_t) (seq / p->bpe);
}

/* ------------------------------------------------------------ workers */

#ifndef _WIN32
typedef struct {
  ls_pool *pool;
  uint32_t index;
  ls_channel *child_end;
  ls_channel *parent_end;
} fork_ctx;

static int
forked_worker_main (void *data)
{
  fork_ctx *c = data;
  ls_pool *p = c->pool;

  /* Drop the copies of the pool's ends: the pool's death must read as EOF. */
  for (uint32_t i = 0; i < c->index; i++)
    ls_channel_close (p->workers[i].ch);
  ls_channel_close (c->parent_end);

  /* Ctrl-C reaches the whole process group: the runner decides, and stops
   * its workers itself. */
  signal (SIGINT, SIG_IGN);
  ls_worker w = { .index = c->index, .dataset = p->dataset, .arena = &p->arena, .channel = c->child_end,
                  .skip_bad_samples = p->config.skip_bad_samples };
  return ls_worker_serve (&w);
}
#endif

static int
spawn_worker (ls_pool *p, uint32_t index, ls_channel *child_end, ls_process **proc, ls_error *err)
{
  char idx[16], ch[32], arena[32], bytes[32], parent[32], spec[2048];
  ls_handle inherit[2] = { ls_channel_handle (child_end), ls_shm_handle (p->arena.shm) };

  snprintf (idx, sizeof idx, "%" PRIu32, index);
  snprintf (ch, sizeof ch, "%" PRIdPTR, inherit[0]);
  snprintf (arena, sizeof arena, "%" PRIdPTR, inherit[1]);
  snprintf (bytes, sizeof bytes, "%zu", ls_arena_bytes (&p->arena));
  snprintf (parent, sizeof parent, "%lu", (unsigned long) ls_process_self_pid ());
  if (ls_dataset_spec_format (ls_dataset_get_spec (p->dataset), spec, sizeof spec) < 0)
    return ls_error_set (err, LS_ERR_INVALID, "dataset description too long for a worker's command line");
  const char *argv[] = { p->worker_path, "--index", idx, "--channel", ch, "--arena", arena, "--arena-bytes", bytes,
                         "--parent", parent, "--on-error", p->config.skip_bad_samples ? "skip" : "fail",
                         "--dataset", spec, NULL };
  ls_spawn_options opts = { .path = p->worker_path, .argv = argv, .inherit = inherit, .n_inherit = 2 };
  return ls_process_spawn (&opts, proc, err);
}

static int
add_info (ls_pool *p, uint32_t index, ls_pid pid, size_t *at)
{
  if (p->n_infos == p->cap_infos)
    {
      size_t cap = p->cap_infos ? p->cap_infos * 2 : 16;
      ls_worker_info *grown = realloc (p->infos, cap * sizeof *grown);
      if (!grown)
        return LS_ERR_NOMEM;
      p->infos = grown;
      p->cap_infos = cap;
    }
  p->infos[p->n_infos] = (ls_worker_info){ .index = index, .epoch = p->worker_epoch, .pid = pid, .startup_ms = -1 };
  *at = p->n_infos++;
  return LS_OK;
}

static void kill_workers (ls_pool *p);

static int
start_workers (ls_pool *p, uint32_t epoch, ls_error *err)
{
  uint32_t n = p->config.num_workers;

  p->worker_epoch = epoch;
  p->set_started_ns = ls_clock_ns ();
  p->rr = 0;
  memset (p->workers, 0, n * sizeof *p->workers);
  for (uint32_t i = 0; i < n; i++)
    {
      ls_channel *parent_end = NULL, *child_end = NULL;
      ls_process *proc = NULL;
      int rc = ls_channel_pair (&parent_end, &child_end, err);
      if (rc == LS_OK)
        {
          if (p->config.start == LS_START_FORK)
            {
#ifdef _WIN32
              rc = ls_error_set (err, LS_ERR_UNSUPPORTED, "start method fork is not available on Windows; use spawn");
#else
              fork_ctx ctx = { p, i, child_end, parent_end };
              rc = ls_process_fork (forked_worker_main, &ctx, &proc, err);
#endif
            }
          else
            rc = spawn_worker (p, i, child_end, &proc, err);
          ls_channel_close (child_end);
        }
      if (rc != LS_OK)
        {
          ls_error_prefix (err, "starting worker %u", i);
          ls_channel_close (parent_end);
          p->running = true;
          kill_workers (p);
          return rc;
        }
      ls_mutex_lock (p->lock);
      p->workers[i].proc = proc;
      p->workers[i].ch = parent_end;
      p->workers[i].pid = ls_process_pid (proc);
      rc = add_info (p, i, p->workers[i].pid, &p->workers[i].info);
      ls_mutex_unlock (p->lock);
      if (rc != LS_OK)
        {
          p->running = true;
          kill_workers (p);
          return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
        }
    }
  p->running = true;
  return LS_OK;
}

static void
finish_worker (ls_pool *p, worker_rt *w, bool force)
{
  ls_exit_status st = { 0 };

  if (!w->proc)
    return;
  if (force)
    ls_process_kill (w->proc, NULL);
  if (ls_process_wait (w->proc, force ? -1 : 1000, &st, NULL) != LS_OK)
    {
      ls_process_kill (w->proc, NULL);
      ls_process_wait (w->proc, -1, &st, NULL);
    }
  ls_mutex_lock (p->lock);
  p->infos[w->info].exit = st;
  ls_process_free (w->proc);
  ls_channel_close (w->ch);
  w->proc = NULL;
  w->ch = NULL;
  w->pid = 0;
  w->outstanding = 0;
  ls_mutex_unlock (p->lock);
}

/* After an error: no goodbyes. */
static void
kill_workers (ls_pool *p)
{
  if (!p->running)
    return;
  for (uint32_t i = 0; i < p->config.num_workers; i++)
    if (p->workers[i].proc)
      ls_process_kill (p->workers[i].proc, NULL);
  for (uint32_t i = 0; i < p->config.num_workers; i++)
    finish_worker (p, &p->workers[i], true);
  p->running = false;
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].state == SLOT_BUSY)
      p->slots[s].state = SLOT_FREE;
}

/* STOP to every worker, wait for each one's goodbye (it finishes the task
 * in hand first), then reap. Stragglers are killed. */
static void
stop_workers (ls_pool *p)
{
  uint32_t n = p->config.num_workers;
  ls_msg stop = { .type = LS_MSG_STOP };

  if (!p->running)
    return;
  for (uint32_t i = 0; i < n; i++)
    if (p->workers[i].ch)
      ls_channel_send (p->workers[i].ch, &stop, ls_msg_size (&stop), NULL);
  uint64_t deadline = ls_clock_ns () + (uint64_t) STOP_GRACE_MS * 1000000u;
  for (uint32_t i = 0; i < n; i++)
    {
      worker_rt *w = &p->workers[i];
      while (w->ch)
        {
          uint64_t now = ls_clock_ns ();
          int64_t left = now >= deadline ? 0 : (int64_t) ((deadline - now) / 1000000u);
          ls_msg m;
          int r = ls_channel_recv (w->ch, &m, sizeof m, left, NULL);
          if (r > 0 && m.type == LS_MSG_BYE)
            {
              ls_worker_info *info = &p->infos[w->info];
              info->cpu_ns = m.cpu_ns;
              info->wall_ns = m.wall_ns;
              info->idle_ns = m.idle_ns;
              info->busy_ns = m.busy_ns;
              info->stages = (ls_stage_ns){ m.stage_ns[0], m.stage_ns[1], m.stage_ns[2], m.stage_ns[3] };
              break;
            }
          if (r > 0)
            continue; /* a late DONE for a batch nobody will take */
          break;      /* closed or out of time */
        }
      finish_worker (p, w, false);
    }
  p->running = false;
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].state == SLOT_BUSY || p->slots[s].state == SLOT_READY)
      p->slots[s].state = SLOT_FREE;
}

/* ------------------------------------------------------------ dispatch */

/* A free slot for worker i: one it built last (warm in its cache and TLB),
 * else one nobody owns, else any; -1 when none is free. */
static int
free_slot (const ls_pool *p, uint32_t i)
{
  int unowned = -1, any = -1;
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].state == SLOT_FREE)
      {
        if (p->slots[s].owner == (int) i + 1)
          return (int) s;
        if (unowned < 0 && p->slots[s].owner == 0)
          unowned = (int) s;
        if (any < 0)
          any = (int) s;
      }
  return unowned >= 0 ? unowned : any;
}

/* Writes batch `seq`'s sample indices into a slot's header. */
static void
prepare_slot (ls_pool *p, uint32_t slot, uint64_t seq)
{
  ls_slot_meta *meta = ls_arena_meta (&p->arena, slot);
  meta->epoch = epoch_of (p, seq);
  meta->batch = seq % p->bpe;
  meta->count = ls_sampler_batch (&p->sampler, meta->epoch, meta->batch, ls_arena_indices (&p->arena, slot));
  meta->skipped = 0;
  p->slots[slot].seq = seq;
  p->slots[slot].builders = 0;
  p->slots[slot].parts_left = 0;
  p->slots[slot].skipped = 0;
  memset (&p->slots[slot].stages, 0, sizeof p->slots[slot].stages);
}

static uint32_t
in_flight (const ls_pool *p)
{
  uint32_t n = 0;
  for (uint32_t s = 0; s < p->n_slots; s++)
    n += p->slots[s].state == SLOT_BUSY || p->slots[s].state == SLOT_READY;
  return n;
}

/* Sends one task (the whole slot, or samples [first, end) of it when end
 * > 0) to worker i. */
static bool
send_task (ls_pool *p, uint32_t i, uint32_t slot, uint32_t first, uint32_t end, ls_error *err)
{
  ls_msg task = { .type = LS_MSG_TASK, .slot = slot, .value = first, .end = end };
  if (ls_channel_send (p->workers[i].ch, &task, ls_msg_size (&task), err) != LS_OK)
    {
      /* Its death shows up on the next wait with the real reason. */
      ls_error_clear (err);
      return false;
    }
  p->workers[i].outstanding++;
  p->slots[slot].builders |= (uint64_t) 1 << i;
  p->slots[slot].parts_left++;
  return true;
}

/* When nothing is being built (a new set of workers has just started: the
 * first batch, or the first of an epoch with new workers), the next batch
 * is shared out in parts, one per worker, so that it is ready after about
 * 1/N of a batch's build time instead of a whole one while the other
 * workers start on batches that are not wanted yet. Returns false when the
 * batch was not split (fewer than two workers or samples). */
static bool
dispatch_split (ls_pool *p, uint32_t slot, ls_error *err)
{
  uint32_t n = p->config.num_workers;
  uint32_t count = ls_arena_meta (&p->arena, slot)->count;
  uint32_t parts = n < count ? n : count;

  if (parts < 2)
    return false;
  for (uint32_t k = 0; k < parts; k++)
    {
      uint32_t i = (p->rr + k) % n;
      uint32_t first = (uint32_t) ((uint64_t) count * k / parts);
      uint32_t end = (uint32_t) ((uint64_t) count * (k + 1) / parts);
      if (k == 0)
        p->slots[slot].worker = (int) i;
      send_task (p, i, slot, first, end, err);
    }
  return true;
}

/* Keeps prefetch_factor batches in flight per worker, as far as free slots
 * allow. Persistent workers get the next epoch's batches before this one
 * ends; new-each-epoch workers only this epoch's. */
static int
dispatch_more (ls_pool *p, ls_error *err)
{
  uint32_t n = p->config.num_workers;
  uint32_t cap = n * p->config.prefetch_factor;

  while (p->running && p->dispatched < p->total && in_flight (p) < cap)
    {
      bool idle = in_flight (p) == 0 && !p->config.whole_first_batch;
      if (!p->config.persistent_workers && epoch_of (p, p->dispatched) != p->worker_epoch)
        break;
      int chosen = -1;
      for (uint32_t k = 0; k < n && chosen < 0; k++)
        {
          uint32_t i = (p->rr + k) % n;
          if (p->workers[i].outstanding < p->config.prefetch_factor)
            chosen = (int) i;
        }
      if (chosen < 0)
        break;
      int slot = free_slot (p, (uint32_t) chosen);
      if (slot < 0)
        break;
      prepare_slot (p, (uint32_t) slot, p->dispatched);
      p->rr = (uint32_t) chosen;
      if (!(idle && dispatch_split (p, (uint32_t) slot, err)))
        {
          if (!send_task (p, (uint32_t) chosen, (uint32_t) slot, 0, 0, err))
            break;
          p->slots[slot].worker = chosen;
          p->slots[slot].owner = chosen + 1;
        }
      if (p->slots[slot].parts_left == 0)
        break; /* no worker took any part of it: their deaths show on the next wait */
      p->slots[slot].state = SLOT_BUSY;
      p->dispatched++;
      p->rr = ((uint32_t) chosen + 1) % n;
      uint32_t now_in_flight = in_flight (p);
      if (now_in_flight > p->max_in_flight)
        p->max_in_flight = now_in_flight;
    }
  return LS_OK;
}

/* ------------------------------------------------------------ delivery */

static int
deliverable_slot (const ls_pool *p)
{
  uint64_t next_seq = (uint64_t) p->deliver_epoch * p->bpe + p->delivered_in_epoch;
  int best = -1;

  for (uint32_t s = 0; s < p->n_slots; s++)
    {
      if (p->slots[s].state != SLOT_READY)
        continue;
      uint64_t seq = p->slots[s].seq;
      if (p->config.in_order ? seq == next_seq
                             : (epoch_of (p, seq) == p->deliver_epoch && (best < 0 || seq < p->slots[best].seq)))
        {
          best = (int) s;
          if (p->config.in_order)
            break;
        }
    }
  return best;
}

static void
hand_out (ls_pool *p, uint32_t slot, ls_batch *b)
{
  const ls_slot_meta *meta = ls_arena_meta (&p->arena, slot);

  p->slots[slot].state = SLOT_HELD;
  b->slot = slot;
  b->epoch = meta->epoch;
  b->batch = meta->batch;
  b->count = meta->count;
  b->skipped = meta->skipped;
  b->data = ls_arena_data (&p->arena, slot);
  b->bytes = (size_t) meta->count * p->arena.sample_bytes;
  b->labels = ls_arena_labels (&p->arena, slot);
  b->indices = ls_arena_indices (&p->arena, slot);
  b->stages = p->slots[slot].stages;
  if (p->delivered == 0)
    {
      /* The rest of its wait is the hand-off (DONE sent → here). */
      double total = (double) (ls_clock_ns () - p->first_call_ns) / 1e6;
      double parts = p->first.worker_start_ms + p->first.populate_ms + p->first.in_flight_ms + p->first.build_ms;
      p->first.handoff_ms = total > parts ? total - parts : 0;
      p->first.valid = true;
    }
  p->delivered++;
  if (++p->delivered_in_epoch == p->bpe)
    {
      p->deliver_epoch++;
      p->delivered_in_epoch = 0;
    }
}

static int
worker_died (ls_pool *p, uint32_t i, ls_error *err)
{
  worker_rt *w = &p->workers[i];
  ls_exit_status st = { 0 };
  char how[128];
  char building[96] = "";

  /* The channel closes as the process ends; give the kernel a moment to
   * make the exit status available. */
  if (ls_process_wait (w->proc, 1000, &st, NULL) != LS_OK)
    snprintf (how, sizeof how, "closed its channel but is still running");
  else
    ls_exit_status_describe (&st, how, sizeof how);
  /* A worker takes its tasks in order: it was building its oldest one. */
  int oldest = -1;
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].state == SLOT_BUSY && (p->slots[s].builders >> i & 1u)
        && (oldest < 0 || p->slots[s].seq < p->slots[oldest].seq))
      oldest = (int) s;
  if (oldest >= 0)
    snprintf (building, sizeof building, " while building batch %" PRIu64 " of epoch %" PRIu32,
              p->slots[oldest].seq % p->bpe, epoch_of (p, p->slots[oldest].seq));
  return ls_error_set (err, LS_ERR_CLOSED, "worker %" PRIu32 " (pid %lu) %s%s", i, (unsigned long) w->pid, how,
                       building);
}

static void
add_task_stages (ls_batch_stages *to, const ls_msg *m, int worker)
{
  /* The worker's own times, where they are plausible (not ahead of ours):
   * the DONE may wait in the channel while the runner is in a step. */
  uint64_t now = ls_clock_ns ();
  uint64_t start = m->task_ns != 0 && m->task_ns + m->busy_ns <= now ? m->task_ns : now > m->busy_ns ? now - m->busy_ns : 0;
  uint64_t done = start + m->busy_ns;
  if (to->done_ns == 0 || start < to->start_ns)
    to->start_ns = start;
  if (done > to->done_ns)
    to->done_ns = done;
  to->worker = worker;
  to->read_ns += m->stage_ns[0];
  to->decode_ns += m->stage_ns[1];
  to->transform_ns += m->stage_ns[2];
  to->write_ns += m->stage_ns[3];
  to->idle_ns += m->idle_ns;
  to->busy_ns += m->busy_ns;
}

static void
count_faults (ls_pool *p, const worker_rt *w, const slot_info *slot, const ls_msg *m)
{
  ls_worker_info *info = &p->infos[w->info];
  info->task_faults += m->faults;
  if (slot->seq >= p->warmup)
    {
      info->measured_faults += m->faults;
      info->measured_bytes += m->written * p->arena.sample_bytes;
    }
  /* The run's first batch's last part: on one clock, its parts follow one another. */
  if (slot->seq == 0 && slot->parts_left == 1)
    p->first = (ls_first_batch){ .worker_start_ms
                                 = ((double) w->ready_ns - (double) p->set_started_ns) / 1e6 - info->populate_ms,
                                 .populate_ms = info->populate_ms,
                                 .in_flight_ms = (double) m->idle_ns / 1e6,
                                 .build_ms = (double) m->busy_ns / 1e6 };
}

/* Reads every message waiting on worker i's channel. */
static int
drain_worker (ls_pool *p, uint32_t i, bool *progress, ls_error *err)
{
  worker_rt *w = &p->workers[i];
  ls_msg m;

  for (;;)
    {
      int r = ls_channel_recv (w->ch, &m, sizeof m, 0, NULL);
      if (r == LS_ERR_TIMEOUT)
        return LS_OK;
      if (r == LS_ERR_CLOSED)
        return worker_died (p, i, err);
      if (r < 0)
        return ls_error_set (err, LS_ERR_OS, "reading from worker %" PRIu32 ": channel error", i);
      switch (m.type)
        {
        case LS_MSG_READY:
          p->infos[w->info].startup_ms = (double) (ls_clock_ns () - p->set_started_ns) / 1e6;
          p->infos[w->info].populate_ms = (double) m.populate_ns / 1e6;
          w->ready_ns = m.ready_ns;
          break;
        case LS_MSG_DONE:
          if (m.slot >= p->n_slots || p->slots[m.slot].state != SLOT_BUSY || !(p->slots[m.slot].builders >> i & 1u)
              || p->slots[m.slot].parts_left == 0)
            return ls_error_set (err, LS_ERR_INVALID, "worker %" PRIu32 " reported slot %" PRIu32 " it was not given", i,
                                 m.slot);
          w->outstanding--;
          count_faults (p, w, &p->slots[m.slot], &m);
          p->slots[m.slot].builders &= ~((uint64_t) 1 << i);
          p->slots[m.slot].skipped += m.skipped;
          add_task_stages (&p->slots[m.slot].stages, &m, p->slots[m.slot].worker);
          if (--p->slots[m.slot].parts_left == 0)
            {
              ls_arena_meta (&p->arena, m.slot)->skipped = p->slots[m.slot].skipped;
              p->slots[m.slot].state = SLOT_READY;
              *progress = true;
            }
          break;
        case LS_MSG_FAILED:
          m.text[sizeof m.text - 1] = '\0';
          if (m.slot == UINT32_MAX)
            return ls_error_set (err, LS_ERR_INVALID, "worker %" PRIu32 " (pid %lu) could not start: %s", i,
                                 (unsigned long) w->pid, m.text);
          return ls_error_set (err, LS_ERR_INVALID, "%s", m.text);
        default:
          break;
        }
    }
}

static int
timeout_error (ls_pool *p, ls_error *err)
{
  uint64_t want = (uint64_t) p->deliver_epoch * p->bpe + p->delivered_in_epoch;

  /* In order, the batch waited for; as completed, the oldest one in work. */
  int oldest = -1;
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].state == SLOT_BUSY && (oldest < 0 || p->slots[s].seq < p->slots[oldest].seq))
      oldest = (int) s;
  for (int s = oldest; s >= 0; s = -1)
    if (!p->config.in_order || p->slots[s].seq == want)
      {
        const worker_rt *w = &p->workers[p->slots[s].worker];
        return ls_error_set (err, LS_ERR_TIMEOUT,
                             "timed out after %.1f s waiting for batch %" PRIu64 " of epoch %" PRIu32
                             ", which worker %d (pid %lu) was building",
                             p->config.timeout_s, p->slots[s].seq % p->bpe, epoch_of (p, p->slots[s].seq),
                             p->slots[s].worker, (unsigned long) w->pid);
      }
  return ls_error_set (err, LS_ERR_TIMEOUT, "timed out after %.1f s waiting for batch %" PRIu64 " of epoch %" PRIu32,
                       p->config.timeout_s, want % p->bpe, p->deliver_epoch);
}

/* The first worker of the running set that has not said READY yet, or -1. */
static int
first_starting_worker (const ls_pool *p)
{
  for (uint32_t i = 0; i < p->config.num_workers; i++)
    if (p->workers[i].ready_ns == 0)
      return (int) i;
  return -1;
}

static int
next_from_workers (ls_pool *p, ls_batch *b, ls_error *err)
{
  uint32_t n = p->config.num_workers;
  uint64_t t0 = ls_clock_ns ();
  uint64_t limit_ns = (uint64_t) (p->config.timeout_s * 1e9);
  ls_channel *chs[LS_CHANNEL_WAIT_MAX];
  unsigned char ready[LS_CHANNEL_WAIT_MAX];

  if (!p->config.persistent_workers && p->running && p->worker_epoch != p->deliver_epoch)
    stop_workers (p);
  if (!p->running && start_workers (p, p->deliver_epoch, err) != LS_OK)
    return err ? err->code : LS_ERR_EXEC;
  if (dispatch_more (p, err) != LS_OK)
    return err->code;

  for (;;)
    {
      int slot = deliverable_slot (p);
      if (slot >= 0)
        {
          hand_out (p, (uint32_t) slot, b);
          return LS_OK;
        }
      if (in_flight (p) == 0)
        return ls_error_set (err, LS_ERR_INVALID,
                             "no batch can be prepared: the consumer holds every free slot (release batches)");

      int64_t slice = WAIT_SLICE_MS;
      int starting = limit_ns ? first_starting_worker (p) : -1;
      if (starting >= 0)
        {
          /* The timeout's clock runs from the last worker's ready message. */
          t0 = ls_clock_ns ();
          if (t0 - p->set_started_ns >= START_LIMIT_NS)
            return ls_error_set (err, LS_ERR_TIMEOUT, "worker %d (pid %lu) did not start within %llu s", starting,
                                 (unsigned long) p->workers[starting].pid, START_LIMIT_NS / 1000000000ull);
        }
      else if (limit_ns)
        {
          uint64_t waited = ls_clock_ns () - t0;
          if (waited >= limit_ns)
            return timeout_error (p, err);
          if ((int64_t) ((limit_ns - waited) / 1000000u) + 1 < slice)
            slice = (int64_t) ((limit_ns - waited) / 1000000u) + 1;
        }
      for (uint32_t i = 0; i < n; i++)
        chs[i] = p->workers[i].ch;
      int r = ls_channel_wait (chs, n, slice, ready, err);
      if (r < 0)
        return r;
      bool progress = false;
      for (uint32_t i = 0; i < n; i++)
        if (ready[i] && drain_worker (p, i, &progress, err) != LS_OK)
          return err ? err->code : LS_ERR_INVALID;
      if (progress)
        dispatch_more (p, err);
    }
}

static int
next_in_process (ls_pool *p, ls_batch *b, ls_error *err)
{
  int slot = free_slot (p, 0);
  uint64_t failed = 0;

  if (slot < 0)
    return ls_error_set (err, LS_ERR_INVALID, "the consumer holds every slot (release batches)");
  if (p->config.prepared && p->slots[slot].filled)
    {
      /* Already built: only the header says which batch it now is. */
      ls_slot_meta *meta = ls_arena_meta (&p->arena, (uint32_t) slot);
      meta->epoch = epoch_of (p, p->delivered);
      meta->batch = p->delivered % p->bpe;
      memset (&p->slots[slot].stages, 0, sizeof p->slots[slot].stages);
      hand_out (p, (uint32_t) slot, b);
      return LS_OK;
    }
  prepare_slot (p, (uint32_t) slot, p->delivered);
  uint64_t t0 = ls_clock_ns ();
  int rc = ls_worker_fill_slot (&p->inproc, (uint32_t) slot, &failed, err);
  ls_stage_ns st = { 0 };
  ls_dataset_take_stages (p->dataset, &st);
  if (rc != LS_OK)
    return err ? err->code : LS_ERR_INVALID;
  /* The runner builds it when asked: it never waits for a task. */
  uint64_t t1 = ls_clock_ns ();
  p->slots[slot].stages = (ls_batch_stages){ st.read, st.decode, st.transform, st.write, 0, t1 - t0, t0, t1, -1 };
  if (p->delivered == 0)
    p->first = (ls_first_batch){ .build_ms = (double) p->slots[slot].stages.busy_ns / 1e6 };
  p->slots[slot].filled = true;
  hand_out (p, (uint32_t) slot, b);
  return LS_OK;
}

int
ls_pool_next (ls_pool *p, ls_batch *b, ls_error *err)
{
  int rc;

  if (p->delivered == 0 && p->first_call_ns == 0)
    p->first_call_ns = ls_clock_ns ();
  if (p->delivered >= p->total)
    {
      stop_workers (p);
      return LS_POOL_END;
    }
  rc = p->config.num_workers == 0 ? next_in_process (p, b, err) : next_from_workers (p, b, err);
  if (rc != LS_OK)
    kill_workers (p);
  return rc;
}

void
ls_pool_release (ls_pool *p, const ls_batch *b)
{
  if (b->slot < p->n_slots && p->slots[b->slot].state == SLOT_HELD)
    {
      p->slots[b->slot].state = SLOT_FREE;
      if (p->running)
        dispatch_more (p, NULL);
    }
}

/* ------------------------------------------------------------ life */

void
ls_pool_stop (ls_pool *p)
{
  stop_workers (p);
}

int
ls_pool_create (const ls_pool_config *config, ls_pool **out, ls_error *err)
{
  ls_pool *p;
  int rc;

  *out = NULL;
  if (config->num_workers > LS_POOL_MAX_WORKERS)
    return ls_error_set (err, LS_ERR_INVALID, "--workers %u is more than the %d this build supports",
                         config->num_workers, LS_POOL_MAX_WORKERS);
  if (config->prefetch_factor == 0)
    return ls_error_set (err, LS_ERR_INVALID, "--prefetch must be at least 1");
  if (config->timeout_s < 0)
    return ls_error_set (err, LS_ERR_INVALID, "--timeout must not be negative");
  if (config->prepared && config->num_workers > 0)
    return ls_error_set (err, LS_ERR_INVALID, "a prepared pool runs without workers");
  if (config->num_workers > 0 && config->start == LS_START_SPAWN && !config->worker_path)
    return ls_error_set (err, LS_ERR_INVALID, "start method spawn needs the loadscope-worker executable's path");

  p = calloc (1, sizeof *p);
  if (!p)
    return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
  p->config = *config;
  if (p->config.consumer_slots == 0)
    p->config.consumer_slots = 2;
  if (config->worker_path)
    snprintf (p->worker_path, sizeof p->worker_path, "%s", config->worker_path);
  p->config.worker_path = p->worker_path;
  p->lock = ls_mutex_new ();

  rc = ls_dataset_open (&config->dataset, &p->dataset, err);
  if (rc == LS_OK)
    rc = ls_sampler_init (&p->sampler, ls_dataset_length (p->dataset), config->batch_size, config->shuffle,
                          config->drop_last, config->seed, err);
  if (rc == LS_OK)
    {
      p->bpe = ls_sampler_batches_per_epoch (&p->sampler);
      p->total = config->epochs ? p->bpe * config->epochs : UINT64_MAX;
      p->n_slots = (config->num_workers ? config->num_workers * config->prefetch_factor : 0) + p->config.consumer_slots;
      p->slots = calloc (p->n_slots, sizeof *p->slots);
      p->workers = calloc (config->num_workers ? config->num_workers : 1, sizeof *p->workers);
      if (!p->slots || !p->workers || !p->lock)
        rc = ls_error_set (err, LS_ERR_NOMEM, "out of memory");
    }
  if (rc == LS_OK)
    {
      /* Without workers nobody else maps the arena: private memory, whose
       * first touch (the first batches' slots) costs fewer page faults. */
      size_t sample_bytes = ls_dataset_sample_bytes (p->dataset);
      rc = config->num_workers == 0 ? ls_arena_create_local (&p->arena, p->n_slots, config->batch_size, sample_bytes, err)
           : config->start == LS_START_FORK
               ? ls_arena_create_forked (&p->arena, p->n_slots, config->batch_size, sample_bytes, err)
               : ls_arena_create (&p->arena, p->n_slots, config->batch_size, sample_bytes, err);
    }
  if (rc != LS_OK)
    {
      ls_pool_free (p);
      return rc;
    }
  p->inproc = (ls_worker){ .dataset = p->dataset, .arena = &p->arena, .skip_bad_samples = config->skip_bad_samples };
  *out = p;
  return LS_OK;
}

void
ls_pool_free (ls_pool *p)
{
  if (!p)
    return;
  if (p->workers)
    stop_workers (p);
  if (p->arena.shm)
    ls_arena_close (&p->arena);
  ls_sampler_clear (&p->sampler);
  ls_dataset_close (p->dataset);
  ls_mutex_free (p->lock);
  free (p->slots);
  free (p->workers);
  free (p->infos);
  free (p);
}

const ls_arena *
ls_pool_arena (const ls_pool *p)
{
  return &p->arena;
}

const ls_dataset *
ls_pool_dataset (const ls_pool *p)
{
  return p->dataset;
}

uint64_t
ls_pool_batches_per_epoch (const ls_pool *p)
{
  return p->bpe;
}

const ls_worker_info *
ls_pool_workers (const ls_pool *p, size_t *count)
{
  *count = p->n_infos;
  return p->infos;
}

ls_pool_counters
ls_pool_get_counters (const ls_pool *p)
{
  ls_pool_counters c = { p->config.num_workers ? p->dispatched : p->delivered, p->delivered, p->max_in_flight };
  return c;
}

void
ls_pool_set_warmup (ls_pool *p, uint64_t warmup)
{
  p->warmup = warmup;
}

ls_first_batch
ls_pool_first_batch (const ls_pool *p)
{
  return p->first;
}

size_t
ls_pool_live_pids (ls_pool *p, ls_pid *pids, size_t cap)
{
  size_t n = 0;
  ls_mutex_lock (p->lock);
  for (uint32_t i = 0; i < p->config.num_workers && n < cap; i++)
    if (p->workers[i].pid)
      pids[n++] = p->workers[i].pid;
  ls_mutex_unlock (p->lock);
  return n;
}
