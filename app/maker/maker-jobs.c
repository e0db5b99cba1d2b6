/* The parallel part: images are synthesized and encoded on a thread pool,
 * a window of a few per thread ahead of the writer, and handed to the
 * writer in index order by the thread that called ls_make_dataset, which
 * also reports progress and watches for an interrupt. Every image is a
 * pure function of (seed, index, size), so the output does not depend on
 * the thread count. */
#include "app/maker/maker-writer.h"

#include <string.h>

typedef struct {
  const ls_maker_plan *plan;
  const ls_maker_writer_ops *ops;
  GMutex lock;
  GCond done;
} runner;

static void
make_one (gpointer data, gpointer user_data)
{
  ls_maker_job *j = data;
  runner *m = user_data;
  const ls_maker_plan *plan = m->plan;
  int w = plan->width, h = plan->height;
  uint8_t *pixels;

  if (!w)
    ls_make_image_size (plan->seed, j->index, &w, &h);
  pixels = g_malloc ((size_t) w * (size_t) h * 3);
  ls_make_image (plan->seed, j->index, plan->classes, w, h, pixels);
  m->ops->encode (j, pixels, w, h, plan->quality);

  g_mutex_lock (&m->lock);
  j->ready = TRUE;
  g_cond_broadcast (&m->done);
  g_mutex_unlock (&m->lock);
}

/* One per core (or o->threads), at most as many as fit in about 2 GB: a
 * thread holds about 40 bytes a pixel while it works. */
static int
thread_count (const ls_make_options *o, const ls_maker_plan *plan)
{
  int threads = o->threads > 0 ? o->threads : (int) MIN (g_get_num_processors (), 64u);
  double pixels = plan->width ? (double) plan->width * plan->height : 640 * 1.08 * 480 * 1.08;
  int fit = (int) MAX (1.0, 2e9 / (pixels * 40.0));
  return MIN (threads, fit);
}

gboolean
ls_maker_run_jobs (const ls_make_options *o, const ls_maker_plan *plan, const ls_maker_writer_ops *ops,
                   ls_maker_writer *writer, const char *partial, uint64_t *bytes, GError **error)
{
  runner m = { .plan = plan, .ops = ops };
  int threads = thread_count (o, plan);
  int window = threads * 2 + 2;
  uint64_t submitted = 0, done = 0;
  gboolean ok = TRUE;
  GThreadPool *pool;
  ls_maker_job *jobs;

  *bytes = 0;
  g_mutex_init (&m.lock);
  g_cond_init (&m.done);
  pool = g_thread_pool_new (make_one, &m, threads, TRUE, error);
  if (!pool)
    {
      g_mutex_clear (&m.lock);
      g_cond_clear (&m.done);
      return FALSE;
    }
  jobs = g_new0 (ls_maker_job, window);

  while (ok && done < plan->count)
    {
      while (submitted < plan->count && submitted - done < (uint64_t) window)
        {
          ls_maker_job *j = &jobs[submitted % (uint64_t) window];
          memset (j, 0, sizeof *j);
          j->index = submitted++;
          g_thread_pool_push (pool, j, NULL);
        }
      ls_maker_job *j = &jobs[done % (uint64_t) window];
      g_mutex_lock (&m.lock);
      while (!j->ready)
        g_cond_wait (&m.done, &m.lock);
      g_mutex_unlock (&m.lock);

      if (j->error)
        ok = ls_maker_failed (error, "%s", j->error);
      else
        {
          *bytes += j->len;
          ok = ops->add (writer, j, error);
        }
      g_clear_pointer (&j->data, g_free);
      g_clear_pointer (&j->error, g_free);
      done++;
      if (ok && o->progress)
        o->progress (done, plan->count, *bytes, o->progress_data);
      if (ok && o->interrupt && *o->interrupt)
        {
          g_set_error (error, LS_MAKE_ERROR, LS_MAKE_ERROR_INTERRUPTED,
                       /* untranslated: app/maker does not link app/core's catalogue (it depends on GLib, platform/ and the image libraries only) */
                       "interrupted after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " images; %s removed", done,
                       plan->count, partial);
          ok = FALSE;
        }
    }

  /* Queued images are dropped; running ones finish before the pool goes. */
  g_thread_pool_free (pool, TRUE, TRUE);
  for (int i = 0; i < window; i++)
    {
      g_free (jobs[i].data);
      g_free (jobs[i].error);
    }
  g_free (jobs);
  g_mutex_clear (&m.lock);
  g_cond_clear (&m.done);
  return ok;
}
