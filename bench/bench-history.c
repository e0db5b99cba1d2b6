/* History with a team's store, measured (never a timed test), beside a
 * small store in the same run (the machine's own cost of a frame):
 *
 *   1. fresh stores of 1,000 and RUNS runs (default 100,000), recorded
 *      through the run recorder as runners record them (rate printed);
 *   2. open: the window's History page reads the store (in its thread)
 *      until the table shows every run (filtered, sorted and folded, a
 *      slice a frame); the longest frame interval meanwhile is the
 *      longest the window stood still;
 *   3. scroll: the table scrolled from top to bottom and back, one page
 *      a frame for FRAMES frames, then in jumps; the frame clock's
 *      intervals (p50, p95, max) say whether scrolling stalls. Xvfb's
 *      frame clock ticks at about 60 Hz: 16.7 ms is a frame not missed.
 *
 *   bench-history [RUNS] [FRAMES]      (under a display: xvfb-run -a) */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/store/run-recorder.h"
#include "app/store/store.h"
#include "loader/stats.h"
#include "ui/ls-history-page.h"
#include "ui/ls-window.h"

static double
now_ms (void)
{
  return (double) g_get_monotonic_time () / 1000.0;
}

static void
record_runs (const char *db, guint n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open (db, &error);
  if (!store)
    g_error ("bench-history: %s", error->message);
  gint64 machine = ls_store_this_machine (store, NULL, NULL, &error);
  if (machine <= 0)
    g_error ("bench-history: %s", error->message);
  double t0 = now_ms ();
  for (guint i = 0; i < n; i++)
    {
      ls_run_config c;
      memset (&c, 0, sizeof c);
      ls_pool_config_init (&c.pool);
      strcpy (c.pool.dataset.kind, "synthetic");
      c.pool.dataset.count = 1024;
      c.pool.num_workers = i % 9;
      c.pool.batch_size = 16u << (i % 3);
      c.pool.epochs = 1;
      ls_run_result r;
      memset (&r, 0, sizeof r);
      strcpy (r.sink_name, "sim");
      r.simulated = true;
      ls_run_recorder *rec = ls_run_recorder_begin (store, machine, 0, &c, &r, &error);
      if (!rec)
        g_error ("bench-history: %s", error->message);
      r.status = i % 50 == 49 ? LS_RUN_FAILED : LS_RUN_DONE;
      if (r.status == LS_RUN_FAILED)
        strcpy (r.error, "worker 1 (pid 4242) was killed by signal 9 holding batch 12");
      r.measured_s = 1;
      r.throughput_sps = 200 + (double) (i % 997);
      r.wait_ms = (ls_dist) { true, 2 + (double) (i % 40), 5 + (double) (i % 90), 9, 12, 3 };
      r.gpu_util_exact = (double) (i % 100) / 100.0;
      r.gpu_util_nvml = -1;
      r.time_to_first_batch_ms = 40;
      r.epoch_boundary_ms = -1;
      if (!ls_run_recorder_finish (rec, &r, "{}", &error))
        g_error ("bench-history: %s", error->message);
    }
  double s = (now_ms () - t0) / 1000.0;
  printf ("store: %u runs recorded in %.1f s (%.0f runs/s)\n", n, s, n / s);
}

static LsHistoryPage *page;
static guint expected;

static gboolean
loaded (void)
{
  return !ls_history_page_is_loading (page) && ls_history_page_count_runs (page) == expected;
}

static void
iterate_until (gboolean (*done) (void), double timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  while (!done () && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
}

/* The time since the last frame (ms; -1 at the first), kept in *last_us. */
static double
frame_interval_ms (gint64 *last_us, GdkFrameClock *clock)
{
  gint64 t = gdk_frame_clock_get_frame_time (clock);
  double ms = *last_us > 0 ? (double) (t - *last_us) / 1000.0 : -1;
  *last_us = t;
  return ms;
}

/* The scroll: one step a frame, each frame's interval kept. */
typedef struct {
  GtkAdjustment *adj;
  GArray *intervals; /* double, ms */
  gint64 last_us;
  guint frames, limit;
  gboolean done;
} scroller;

static gboolean
on_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  scroller *s = data;
  double ms = frame_interval_ms (&s->last_us, clock);
  if (ms >= 0)
    g_array_append_val (s->intervals, ms);
  double page_size = gtk_adjustment_get_page_size (s->adj), upper = gtk_adjustment_get_upper (s->adj);
  double v = gtk_adjustment_get_value (s->adj);
  guint f = s->frames++;
  if (f < s->limit / 2)
    v += page_size; /* page by page */
  else
    v = (double) ((f * 7919u) % 1000u) / 1000.0 * (upper - page_size); /* jumps anywhere */
  gtk_adjustment_set_value (s->adj, MIN (v, upper - page_size));
  s->done = s->frames >= s->limit;
  return s->done ? G_SOURCE_REMOVE : G_SOURCE_CONTINUE;
}

static scroller *current;

static gboolean
scrolled (void)
{
  return current->done;
}

/* Frame intervals while something else goes on (the open). */
typedef struct {
  gint64 last_us;
  double longest;
} watcher;

static gboolean
on_watch_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  watcher *w = data;
  double ms = frame_interval_ms (&w->last_us, clock); /* once: MAX evaluates twice */
  w->longest = MAX (w->longest, ms);
  return G_SOURCE_CONTINUE;
}

static GtkWidget *
find_scrolled (GtkWidget *w)
{
  if (GTK_IS_SCROLLED_WINDOW (w))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_scrolled (c);
      if (found)
        return found;
    }
  return NULL;
}

/* One store: its open, then its scroll, on one line each. */
static void
measure (const char *db, guint n, guint frames)
{
  expected = n;
  GtkWidget *window = adw_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1024, 700);
  page = g_object_new (LS_TYPE_HISTORY_PAGE, NULL);
  adw_window_set_content (ADW_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);

  watcher w = { 0, 0 };
  guint watch = gtk_widget_add_tick_callback (window, on_watch_tick, &w, NULL);
  double t0 = now_ms ();
  ls_history_page_set_db (page, db);
  iterate_until (loaded, 600);
  double t_loaded = now_ms () - t0;
  gtk_widget_remove_tick_callback (window, watch);
  if (!loaded ())
    g_error ("bench-history: the table did not fill (%u of %u runs)", ls_history_page_count_runs (page), n);
  printf ("%7u runs  open: shown in %.0f ms, longest frame meanwhile %.0f ms\n", n, t_loaded, w.longest);

  GtkWidget *sw = find_scrolled (GTK_WIDGET (page));
  if (!sw)
    g_error ("bench-history: no scrolled table");
  scroller s = { gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (sw)),
                 g_array_new (FALSE, FALSE, sizeof (double)), 0, 0, frames, FALSE };
  current = &s;
  gtk_widget_add_tick_callback (sw, on_tick, &s, NULL);
  iterate_until (scrolled, 600);
  g_array_sort (s.intervals, ls_cmp_double);
  guint k = s.intervals->len;
  if (k > 0)
    printf ("%7u runs  scroll: %u frames, frame interval p50 %.1f ms, p95 %.1f ms, max %.1f ms\n", n, k,
            g_array_index (s.intervals, double, k / 2), g_array_index (s.intervals, double, k * 95 / 100),
            g_array_index (s.intervals, double, k - 1));
  g_array_unref (s.intervals);
  gtk_window_destroy (GTK_WINDOW (window));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
}

static void
remove_store (const char *db)
{
  g_autofree char *wal = g_strconcat (db, "-wal", NULL);
  g_autofree char *shm = g_strconcat (db, "-shm", NULL);
  g_unlink (db);
  g_unlink (wal);
  g_unlink (shm);
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) strtoul (argv[1], NULL, 10) : 100000;
  guint frames = argc > 2 ? (guint) strtoul (argv[2], NULL, 10) : 600;
  const guint small = 1000;
  g_autofree char *dir = g_dir_make_tmp ("bench-history-XXXXXX", NULL);
  g_autofree char *small_db = g_build_filename (dir, "small.sqlite", NULL);
  g_autofree char *db = g_build_filename (dir, "runs.sqlite", NULL);
  record_runs (small_db, small);
  record_runs (db, n);

  gtk_init ();
  adw_init ();
  g_type_class_unref (g_type_class_ref (LS_TYPE_WINDOW)); /* the templates' resource */
  measure (small_db, small, frames);
  measure (db, n, frames);
  remove_store (small_db);
  remove_store (db);
  g_rmdir (dir);
  return 0;
}
