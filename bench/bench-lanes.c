/* Lanes render time: a run's timeline of N batches (4 workers and the
 * training loop; each build as its four stages, each batch's wait and
 * step: 6 spans a batch) drawn into a 1280 x 800 image, everything
 * included, whole and zoomed to a sixteenth. The window draws it again
 * whenever the pointer moves to another span, so the goal is one frame,
 * <= 16 ms.
 *
 *   bench-lanes [BATCHES] [RENDERS]    (default: 10000, 30) */
#include <cairo.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/chart/chart-lanes.h"
#include "app/chart/chart-render.h"

#define WIDTH 1280
#define HEIGHT 800
#define GOAL_MS 16.0
#define WORKERS 4

static ls_chart *
make_chart (guint batches)
{
  ls_chart *chart = ls_chart_new ("Timeline: who built each batch, and when");
  ls_chart_set_subtitle (chart, "bench-lanes: synthetic run");
  ls_chart_lanes *lanes = ls_chart_set_lanes (chart);
  for (int w = 0; w < WORKERS; w++)
    {
      char label[16];
      g_snprintf (label, sizeof label, "worker %d", w);
      ls_chart_lanes_add_lane (lanes, label);
    }
  guint loop = ls_chart_lanes_add_lane (lanes, "training loop");
  GRand *rand = g_rand_new_with_seed (7);
  double worker_free[WORKERS] = { 0 }, loop_t = 0;
  for (guint b = 0; b < batches; b++)
    {
      guint w = b % WORKERS;
      double t = worker_free[w];
      ls_lane_span s = { .lane = w, .seq = b, .epoch = b / 1000, .batch = b % 1000 };
      for (int k = 0; k < 4; k++)
        {
          s.kind = LS_SPAN_READ + k;
          s.start_ms = t;
          s.end_ms = t += 1 + g_rand_double (rand) * 3;
          ls_chart_lanes_add_span (lanes, &s);
        }
      worker_free[w] = t + 0.5;
      ls_lane_span wait = { .lane = loop, .kind = LS_SPAN_WAIT, .seq = b, .start_ms = loop_t,
                            .end_ms = MAX (loop_t, t) + 0.1 };
      ls_chart_lanes_add_span (lanes, &wait);
      ls_lane_span step = { .lane = loop, .kind = LS_SPAN_STEP, .seq = b, .start_ms = wait.end_ms,
                            .end_ms = wait.end_ms + 2 };
      ls_chart_lanes_add_span (lanes, &step);
      loop_t = step.end_ms;
      if (b % 1000 == 0 && b > 0)
        {
          ls_lane_mark m = { wait.start_ms, b / 1000 };
          g_array_append_val (lanes->epochs, m);
        }
    }
  g_rand_free (rand);
  for (int k = LS_SPAN_READ; k <= LS_SPAN_STEP; k++)
    if (k <= LS_SPAN_WRITE || k >= LS_SPAN_WAIT)
      ls_chart_add_legend (chart, ls_span_kind_label (k), ls_span_kind_color (k), LS_CHART_BARS, LS_CHART_SOLID,
                           FALSE, FALSE);
  return chart;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The median time of `renders` renders, in ms. */
static double
render_ms (ls_chart *chart, int renders)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  double *ms = g_new (double, renders);
  ls_chart_render (chart, cr, 0, 0, WIDTH, HEIGHT, FALSE); /* fonts loaded once, outside the timing */
  for (int i = 0; i < renders; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      ls_chart_render (chart, cr, 0, 0, WIDTH, HEIGHT, FALSE);
      cairo_surface_flush (surface);
      ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
    }
  qsort (ms, renders, sizeof *ms, compare_doubles);
  double median = ms[renders / 2];
  g_free (ms);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return median;
}

int
main (int argc, char **argv)
{
  guint batches = argc > 1 ? (guint) atoi (argv[1]) : 10000;
  int renders = argc > 2 ? atoi (argv[2]) : 30;
  if (batches == 0 || renders <= 0)
    {
      fprintf (stderr, "usage: bench-lanes [BATCHES] [RENDERS]\n");
      return 2;
    }
  ls_chart *chart = make_chart (batches);
  double whole = render_ms (chart, renders);
  chart->lanes->view_lo = 0;
  chart->lanes->view_hi = chart->lanes->t_end / 16;
  double zoomed = render_ms (chart, renders);
  printf ("lanes render, %dx%d image, %u batches (%u spans), median of %d renders:\n", WIDTH, HEIGHT, batches,
          chart->lanes->spans->len, renders);
  printf ("  whole run:      %7.2f ms per render, %.2f x the %.0f ms goal\n", whole, whole / GOAL_MS, GOAL_MS);
  printf ("  zoomed to 1/16: %7.2f ms per render, %.2f x the %.0f ms goal\n", zoomed, zoomed / GOAL_MS, GOAL_MS);
  ls_chart_free (chart);
  return 0;
}
