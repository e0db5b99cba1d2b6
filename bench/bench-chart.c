/* Chart render time: a chart of 100,000 points (a batch-wait timeline of a
 * long run: a line with a p50..p95 band, plus a second line) drawn into a
 * 1280 x 800 image surface, everything included (layout, text, axes).
 * Goal: one frame, <= 16 ms. Also the same chart with 1,000 points, to
 * show the cost that does not depend on the points.
 *
 *   bench-chart [POINTS] [RENDERS]    (default: 100000, 50) */
#include <cairo.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/chart/chart-render.h"
#include "app/chart/chart.h"

#define WIDTH 1280
#define HEIGHT 800
#define GOAL_MS 16.0

static ls_chart *
make_chart (guint points)
{
  ls_chart *chart = ls_chart_new ("Batch wait over the run");
  ls_chart_set_subtitle (chart, "bench-chart: synthetic timeline");
  ls_chart_axis_set (&chart->x, "time since the loader started", LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  ls_chart_axis_set (&chart->y, "time per batch", LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  chart->y.include_zero = TRUE;
  ls_chart_series *wait = ls_chart_add_series (chart, "wait for the batch", LS_CHART_LINE, 0, LS_CHART_Y);
  ls_chart_series *copy = ls_chart_add_series (chart, "host-to-device copy", LS_CHART_LINE, 2, LS_CHART_Y);
  copy->dash = LS_CHART_DASHED;
  GRand *rand = g_rand_new_with_seed (42);
  for (guint i = 0; i < points; i++)
    {
      double t = i * 12.5, w = 2 + 3 * sin (i * 0.001) + g_rand_double (rand) * 4;
      if (g_rand_int_range (rand, 0, 1000) == 0)
        w += 40; /* a stall now and then */
      ls_chart_series_add_band (wait, t, w, w * 0.8, w * 1.4);
      ls_chart_series_add (copy, t, 0.4 + g_rand_double (rand) * 0.1);
    }
  g_rand_free (rand);
  ls_chart_add_rule (chart, LS_CHART_Y, 4, "wait p50 4.00 ms");
  ls_chart_add_rule (chart, LS_CHART_Y, 8, "wait p95 8.00 ms");
  ls_chart_add_note (chart, "Each point is one batch, at the time it was ready.");
  chart->simulated = TRUE;
  return chart;
}

/* Median ms per render over `renders` renders (after one warm-up). */
static double
time_renders (ls_chart *chart, cairo_t *cr, int renders)
{
  g_autofree double *ms = g_new (double, renders);
  ls_chart_render (chart, cr, 0, 0, WIDTH, HEIGHT, FALSE); /* fonts loaded, caches warm */
  for (int i = 0; i < renders; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      ls_chart_render (chart, cr, 0, 0, WIDTH, HEIGHT, i % 2);
      cairo_surface_flush (cairo_get_target (cr));
      ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
    }
  for (int i = 1; i < renders; i++)
    for (int k = i; k > 0 && ms[k] < ms[k - 1]; k--)
      {
        double swap = ms[k];
        ms[k] = ms[k - 1];
        ms[k - 1] = swap;
      }
  return ms[renders / 2];
}

int
main (int argc, char **argv)
{
  guint points = argc > 1 ? (guint) strtoul (argv[1], NULL, 10) : 100000;
  int renders = argc > 2 ? atoi (argv[2]) : 50;
  if (points == 0 || renders <= 0)
    {
      fprintf (stderr, "usage: bench-chart [POINTS] [RENDERS]\n");
      return 2;
    }
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);

  ls_chart *big = make_chart (points);
  ls_chart *small = make_chart (1000);
  double big_ms = time_renders (big, cr, renders);
  double small_ms = time_renders (small, cr, renders);

  printf ("chart render, %dx%d image, median of %d renders:\n", WIDTH, HEIGHT, renders);
  printf ("  %7u points x 2 series (+ band): %7.2f ms per render, %.2f x the %.0f ms goal%s\n", points, big_ms,
          big_ms / GOAL_MS, GOAL_MS, big_ms <= GOAL_MS ? "" : "  (over)");
  printf ("  %7u points x 2 series (+ band): %7.2f ms per render (mostly layout, text and axes)\n", 1000u,
          small_ms);

  ls_chart_free (big);
  ls_chart_free (small);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return big_ms <= GOAL_MS ? 0 : 1;
}
