#include "loader/worker.h"

#include <string.h>

#include "loader/protocol.h"
#include "platform/clock.h"
#include "platform/procmem.h"
#include "platform/process.h"

/* How many following samples to try in place of one that fails. */
#define SKIP_ATTEMPTS 16

int
ls_worker_fill_range (const ls_worker *w, uint32_t slot, uint32_t first, uint32_t end, uint32_t *skipped,
                      uint64_t *failed_index, ls_error *err)
{
  const ls_arena *a = w->arena;
  const ls_slot_meta *meta = ls_arena_meta (a, slot);
  const uint64_t *indices = ls_arena_indices (a, slot);
  int32_t *labels = ls_arena_labels (a, slot);
  uint8_t *data = ls_arena_data (a, slot);
  uint64_t length = ls_dataset_length (w->dataset);
  uint32_t count = meta->count < a->batch_size ? meta->count : a->batch_size;

  *skipped = 0;
  if (end > count)
    end = count;
  for (uint32_t i = first; i < end; i++)
    {
      uint8_t *out = data + (size_t) i * a->sample_bytes;
      uint64_t index = indices[i];
      if (ls_dataset_read (w->dataset, index, meta->epoch, out, &labels[i], err) == LS_OK)
        continue;
      if (!w->skip_bad_samples)
        {
          *failed_index = index;
          ls_error_prefix (err, "sample %llu", (unsigned long long) index);
          return err ? err->code : LS_ERR_INVALID;
        }
      /* Replace it with the next sample that reads, deterministically, so
       * the batch is the same whichever worker builds it. */
      int replaced = 0;
      for (uint64_t k = 1; k <= SKIP_ATTEMPTS && !replaced; k++)
        replaced = ls_dataset_read (w->dataset, (index + k) % length, meta->epoch, out, &labels[i], NULL) == LS_OK;
      if (!replaced)
        {
          *failed_index = index;
          ls_error_prefix (err, "sample %llu, and the %d after it", (unsigned long long) index, SKIP_ATTEMPTS);
          return err ? err->code : LS_ERR_INVALID;
        }
      (*skipped)++;
    }
  return LS_OK;
}

int
ls_worker_fill_slot (const ls_worker *w, uint32_t slot, uint64_t *failed_index, ls_error *err)
{
  ls_slot_meta *meta = ls_arena_meta (w->arena, slot);
  uint32_t skipped = 0;
  int rc = ls_worker_fill_range (w, slot, 0, meta->count, &skipped, failed_index, err);
  meta->skipped = skipped;
  return rc;
}

static int
send_msg (ls_worker *w, const ls_msg *m)
{
  return ls_channel_send (w->channel, m, ls_msg_size (m), NULL);
}

static void
add_stages (uint64_t *to, const ls_stage_ns *s)
{
  to[0] += s->read;
  to[1] += s->decode;
  to[2] += s->transform;
  to[3] += s->write;
}

static uint64_t
faults_now (void)
{
  uint64_t n = 0;
  ls_procfaults_self (&n, NULL);
  return n;
}

/* From READY to STOP. */
static int
serve_tasks (ls_worker *w, const ls_msg *ready)
{
  ls_msg total = { .type = LS_MSG_BYE };
  uint64_t tasks = 0;

  if (send_msg (w, ready) != LS_OK)
    return 0; /* the pool is gone already */
  /* Every moment from READY to STOP is either idle (in recv) or busy (a
   * task's arrival to its DONE sent): the two add up to the wall time. */
  uint64_t t_ready = ls_clock_ns ();
  uint64_t t_free = t_ready;
  for (;;)
    {
      ls_msg in;
      int n = ls_channel_recv (w->channel, &in, sizeof in, -1, NULL);
      uint64_t t_task = ls_clock_ns ();
      if (n < 0)
        return 0; /* closed: the pool went away */
      if (in.type == LS_MSG_STOP)
        {
          uint64_t user = 0, sys = 0;
          ls_proccpu_read (ls_process_self_pid (), &user, &sys, NULL);
          total.cpu_ns = user + sys;
          total.idle_ns += t_task - t_free;
          total.wall_ns = t_task - t_ready;
          send_msg (w, &total);
          return 0;
        }
      if (in.type != LS_MSG_TASK || in.slot >= w->arena->slot_count)
        return 3; /* a protocol error: nothing sensible to do but stop */

      /* Before the second task the rest of the arena is mapped: that time
       * is this task's (busy), its faults are not. */
      if (tasks++ == 1)
        ls_arena_populate_slots (w->arena, 1, UINT32_MAX, NULL);
      ls_error err = { 0 };
      uint64_t faults0 = faults_now ();
      uint64_t failed = 0;
      uint32_t skipped = 0;
      ls_msg out = { .type = LS_MSG_DONE, .slot = in.slot };
      /* The pool counts the skipped samples of every part into the slot's
       * header itself: parts of one slot are written at the same time. */
      uint32_t first = in.end ? (uint32_t) in.value : 0;
      uint32_t end = in.end ? in.end : UINT32_MAX;
      if (ls_worker_fill_range (w, in.slot, first, end, &skipped, &failed, &err) != LS_OK)
        {
          out.type = LS_MSG_FAILED;
          out.value = failed;
          memcpy (out.text, err.message, sizeof out.text);
        }
      else
        {
          uint32_t count = ls_arena_meta (w->arena, in.slot)->count;
          out.skipped = skipped;
          out.written = (end < count ? end : count) - (first < count ? first : count);
        }
      out.faults = faults_now () - faults0;
      ls_stage_ns st = { 0 };
      ls_dataset_take_stages (w->dataset, &st);
      add_stages (out.stage_ns, &st);
      add_stages (total.stage_ns, &st);
      out.idle_ns = t_task - t_free;
      total.idle_ns += out.idle_ns;
      /* Sending DONE counts as idle, in the next task's wait. */
      t_free = ls_clock_ns ();
      out.busy_ns = t_free - t_task;
      out.task_ns = t_task; /* the runner draws the build from here (one clock for the machine) */
      total.busy_ns += out.busy_ns;
      if (send_msg (w, &out) != LS_OK)
        return 0;
    }
}

int
ls_worker_serve (ls_worker *w)
{
  ls_msg m = { .type = LS_MSG_READY, .value = (uint64_t) ls_process_self_pid () };

  /* A forked or spawned worker shares the arena's pages but not their
   * page-table entries: it maps them all before its second task, so no
   * batch pays a fault per page. Slot 0 (where the run's first batch goes)
   * before it says it is ready, the workers at once; the rest after its
   * first task, before the second. Not on a thread during the first task: a
   * forked worker is the child of a threaded runner (its memory sampler),
   * where starting a thread can wait forever on a lock that another thread
   * held at the fork (seen under AddressSanitizer: its allocator's). Failing
   * costs speed only. */
  uint64_t t_populate = ls_clock_ns ();
  ls_arena_populate_slots (w->arena, 0, 1, NULL);
  m.populate_ns = ls_clock_ns () - t_populate;
  m.ready_ns = ls_clock_ns ();
  return serve_tasks (w, &m);
}
