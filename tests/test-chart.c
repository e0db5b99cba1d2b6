/* Charts: nice ticks and units on awkward ranges, decimation, rendering at
 * any size, exports of the requested size and format, the charts of a
 * recorded sweep and run, and the simulated-GPU mark exactly where a run
 * used the simulated sink. */
#include <cairo.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "app/chart/chart-axis.h"
#include "app/chart/chart-decimate.h"
#include "app/chart/chart-export.h"
#include "app/chart/chart-render.h"
#include "app/report/chart-store.h"
#include "test-fonts.h"
#include "test-cli-util.h"
#include "test-util.h"

static const char *tmp_dir;

/* --- ticks and units --- */

static void
axis_init (ls_chart_axis *axis, ls_chart_unit unit, ls_chart_scale scale)
{
  memset (axis, 0, sizeof *axis);
  axis->label = (char *) "value";
  axis->unit = unit;
  axis->scale = scale;
  axis->min = NAN;
  axis->max = NAN;
}

/* What every set of ticks must be: finite, ascending, inside the axis,
 * with distinct labels and no "-0". */
static void
assert_ticks_sane (const ls_chart_ticks *t)
{
  g_assert_true (isfinite (t->lo) && isfinite (t->hi));
  g_assert_cmpfloat (t->lo, <, t->hi);
  g_assert_cmpuint (t->n, >=, 1);
  g_assert_cmpuint (t->n, <=, LS_CHART_MAX_TICKS);
  for (guint i = 0; i < t->n; i++)
    {
      g_assert_true (isfinite (t->values[i]));
      g_assert_cmpfloat (t->values[i], >=, t->lo - fabs (t->lo) * 1e-9);
      g_assert_cmpfloat (t->values[i], <=, t->hi + fabs (t->hi) * 1e-9);
      if (i > 0)
        g_assert_cmpfloat (t->values[i], >, t->values[i - 1]);
      g_autofree char *label = ls_chart_tick_label (t, t->values[i]);
      g_assert_true (label[0] != '\0');
      g_assert_false (g_str_has_prefix (label, "-0") && strspn (label + 1, "0.") == strlen (label + 1));
      g_assert_null (strstr (label, "nan"));
      g_assert_null (strstr (label, "inf"));
      for (guint k = 0; k < i; k++)
        {
          g_autofree char *other = ls_chart_tick_label (t, t->values[k]);
          g_assert_cmpstr (label, !=, other);
        }
    }
}

static void
test_nice_step (void)
{
  g_assert_cmpfloat_with_epsilon (ls_chart_nice_step (0.7), 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (ls_chart_nice_step (1), 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (ls_chart_nice_step (1.3), 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (ls_chart_nice_step (3), 5, 1e-12);
  g_assert_cmpfloat_with_epsilon (ls_chart_nice_step (7), 10, 1e-12);
  g_assert_cmpfloat_with_epsilon (ls_chart_nice_step (0.03), 0.05, 1e-15);
  g_assert_cmpfloat_with_epsilon (ls_chart_nice_step (2e-12), 2e-12, 1e-24);
  g_assert_cmpfloat_with_epsilon (ls_chart_nice_step (4.2e15), 5e15, 1);
  g_assert_cmpfloat (ls_chart_nice_step (0), ==, 1);
  g_assert_cmpfloat (ls_chart_nice_step (NAN), ==, 1);
}

static void
test_ticks_ordinary (void)
{
  ls_chart_axis axis;
  ls_chart_ticks t;
  axis_init (&axis, LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  axis.integer = TRUE;
  ls_chart_axis_ticks (&axis, 0, 4, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpuint (t.n, ==, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpfloat (t.values[i], ==, i);
  g_autofree char *label = ls_chart_tick_label (&t, 3);
  g_assert_cmpstr (label, ==, "3");

  /* 0.13 .. 0.87: steps of 0.1 or 0.2, the ends enclose the data. */
  axis.integer = FALSE;
  ls_chart_axis_ticks (&axis, 0.13, 0.87, 6, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.lo, <=, 0.13);
  g_assert_cmpfloat (t.hi, >=, 0.87);
  g_assert_true (fabs (t.step - 0.1) < 1e-12 || fabs (t.step - 0.2) < 1e-12);
  g_autofree char *decimal = ls_chart_tick_label (&t, t.values[1]);
  g_assert_nonnull (strchr (decimal, '.'));

  /* Integer axes never step below 1. */
  axis.integer = TRUE;
  ls_chart_axis_ticks (&axis, 0, 2, 10, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.step, >=, 1);
}

static void
test_ticks_tiny (void)
{
  ls_chart_axis axis;
  ls_chart_ticks t;
  axis_init (&axis, LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  ls_chart_axis_ticks (&axis, 1e-9, 3e-9, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.lo, <=, 1e-9);
  g_assert_cmpfloat (t.hi, >=, 3e-9);
  g_assert_true (t.exponent);
  g_autofree char *label = ls_chart_tick_label (&t, t.values[1]);
  g_assert_nonnull (strstr (label, "10⁻"));

  /* A tiny range around a large value: all digits, still distinct. */
  ls_chart_axis_ticks (&axis, 1000, 1000.001, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.hi - t.lo, <, 0.01);

  /* Milliseconds below one are shown in microseconds. */
  axis_init (&axis, LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  ls_chart_axis_ticks (&axis, 0, 0.06, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpstr (t.unit.symbol, ==, "µs");
  g_autofree char *us = ls_chart_tick_label (&t, t.values[t.n - 1]);
  g_assert_cmpstr (us, ==, "60");
}

static void
test_ticks_huge (void)
{
  ls_chart_axis axis;
  ls_chart_ticks t;
  axis_init (&axis, LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  ls_chart_axis_ticks (&axis, 0, 1e15, 6, &t);
  assert_ticks_sane (&t);
  g_assert_true (t.exponent);
  g_autofree char *label = ls_chart_tick_label (&t, t.values[t.n - 1]);
  g_assert_nonnull (strstr (label, "10¹⁵"));

  /* The whole range of doubles: no overflow to infinity. */
  ls_chart_axis_ticks (&axis, -1.7e308, 1.7e308, 6, &t);
  assert_ticks_sane (&t);
  ls_chart_axis_ticks (&axis, -INFINITY, INFINITY, 6, &t);
  assert_ticks_sane (&t);

  /* Gigabytes in GB, with grouping of large plain numbers. */
  axis_init (&axis, LS_CHART_UNIT_BYTES, LS_CHART_LINEAR);
  ls_chart_axis_ticks (&axis, 0, 12.4e9, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpstr (t.unit.symbol, ==, "GB");
  axis_init (&axis, LS_CHART_UNIT_SPS, LS_CHART_LINEAR);
  ls_chart_axis_ticks (&axis, 0, 62346, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpstr (t.unit.symbol, ==, "img/s");
  g_autofree char *grouped = ls_chart_tick_label (&t, 20000);
  g_assert_cmpstr (grouped, ==, "20\u2009000");
}

static void
test_ticks_negative (void)
{
  ls_chart_axis axis;
  ls_chart_ticks t;
  axis_init (&axis, LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  ls_chart_axis_ticks (&axis, -37, -2, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.lo, <=, -37);
  g_assert_cmpfloat (t.hi, >=, -2);
  g_assert_cmpfloat (t.hi, <=, 0);
  g_autofree char *label = ls_chart_tick_label (&t, t.values[0]);
  g_assert_true (label[0] == '-');

  /* Across zero: zero is a tick and reads "0". */
  ls_chart_axis_ticks (&axis, -0.3, 0.7, 5, &t);
  assert_ticks_sane (&t);
  gboolean zero = FALSE;
  for (guint i = 0; i < t.n; i++)
    if (t.values[i] == 0)
      {
        g_autofree char *z = ls_chart_tick_label (&t, 0);
        g_assert_cmpstr (z, ==, "0.0");
        zero = TRUE;
      }
  g_assert_true (zero);

  /* include_zero reaches up to 0 from below. */
  axis.include_zero = TRUE;
  ls_chart_axis_ticks (&axis, -37, -2, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.hi, ==, 0);
}

static void
test_ticks_single_and_equal (void)
{
  ls_chart_axis axis;
  ls_chart_ticks t;
  axis_init (&axis, LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  double values[] = { 5, 0, -3, 62346.5, 1e-300, 1e300 };
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      ls_chart_axis_ticks (&axis, values[i], values[i], 5, &t);
      assert_ticks_sane (&t);
      g_assert_cmpfloat (t.lo, <, values[i]);
      g_assert_cmpfloat (t.hi, >, values[i]);
    }
  axis.integer = TRUE;
  axis.pad = TRUE;
  ls_chart_axis_ticks (&axis, 2, 2, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.lo, <, 2);
  g_assert_cmpfloat (t.hi, >, 2);

  /* A chart whose series all have one value. */
  g_autoptr (ls_chart) chart = ls_chart_new ("equal");
  ls_chart_series *s = ls_chart_add_series (chart, "s", LS_CHART_LINE, 0, LS_CHART_Y);
  for (int i = 0; i < 10; i++)
    ls_chart_series_add (s, i, 7.5);
  double lo, hi;
  g_assert_true (ls_chart_data_range (chart, LS_CHART_Y, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 7.5);
  g_assert_cmpfloat (hi, ==, 7.5);
  ls_chart_axis_ticks (&chart->y, lo, hi, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (ls_chart_ticks_norm (&t, 7.5), >, 0);
  g_assert_cmpfloat (ls_chart_ticks_norm (&t, 7.5), <, 1);
}

static void
test_ticks_empty (void)
{
  ls_chart_axis axis;
  ls_chart_ticks t;
  axis_init (&axis, LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  ls_chart_axis_ticks (&axis, NAN, NAN, 5, &t);
  assert_ticks_sane (&t);

  g_autoptr (ls_chart) chart = ls_chart_new ("empty");
  ls_chart_add_series (chart, "nothing", LS_CHART_LINE, 0, LS_CHART_Y);
  double lo, hi;
  g_assert_false (ls_chart_data_range (chart, LS_CHART_Y, &lo, &hi));
  g_assert_false (ls_chart_data_range (chart, LS_CHART_X, &lo, &hi));
  g_assert_cmpuint (ls_chart_n_points (chart), ==, 0);

  /* Fixed ends (a per-cent axis) without data. */
  axis_init (&axis, LS_CHART_UNIT_FRACTION, LS_CHART_LINEAR);
  axis.min = 0;
  axis.max = 1;
  ls_chart_axis_ticks (&axis, NAN, NAN, 6, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.lo, ==, 0);
  g_assert_cmpfloat (t.hi, ==, 1);
  g_assert_cmpstr (t.unit.symbol, ==, "%");
  g_autofree char *top = ls_chart_tick_label (&t, 1);
  g_assert_cmpstr (top, ==, "100");
}

static void
test_ticks_log (void)
{
  ls_chart_axis axis;
  ls_chart_ticks t;
  axis_init (&axis, LS_CHART_UNIT_COUNT, LS_CHART_LOG);
  ls_chart_axis_ticks (&axis, 0.3, 4000, 8, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.lo, <=, 0.3);
  g_assert_cmpfloat (t.hi, >=, 4000);
  for (guint i = 0; i < t.n; i++)
    {
      double m = t.values[i] / pow (10, floor (log10 (t.values[i]) + 1e-9));
      g_assert_true (fabs (m - 1) < 1e-9 || fabs (m - 2) < 1e-9 || fabs (m - 5) < 1e-9);
    }
  g_assert_cmpfloat (ls_chart_ticks_norm (&t, t.lo), ==, 0);
  g_assert_cmpfloat_with_epsilon (ls_chart_ticks_norm (&t, t.hi), 1, 1e-12);
  g_assert_cmpfloat (ls_chart_ticks_norm (&t, 10), <, ls_chart_ticks_norm (&t, 100));
  g_assert_true (isnan (ls_chart_ticks_norm (&t, 0)));
  g_assert_true (isnan (ls_chart_ticks_norm (&t, -5)));

  /* Many decades: fewer ticks than the target allows, every k-th decade. */
  ls_chart_axis_ticks (&axis, 1e-6, 1e12, 6, &t);
  assert_ticks_sane (&t);
  g_assert_cmpuint (t.n, <=, 8);

  /* Nothing positive, one value, negative input: a sane decade. */
  ls_chart_axis_ticks (&axis, -5, -1, 5, &t);
  assert_ticks_sane (&t);
  ls_chart_axis_ticks (&axis, NAN, NAN, 5, &t);
  assert_ticks_sane (&t);
  ls_chart_axis_ticks (&axis, 42, 42, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpfloat (t.lo, <=, 42);
  g_assert_cmpfloat (t.hi, >=, 42);

  /* Only positive data counts on a log axis. */
  g_autoptr (ls_chart) chart = ls_chart_new ("log");
  ls_chart_axis_set (&chart->y, "wait", LS_CHART_UNIT_MS, LS_CHART_LOG);
  ls_chart_series *s = ls_chart_add_series (chart, "s", LS_CHART_LINE, 0, LS_CHART_Y);
  ls_chart_series_add (s, 0, 0);
  ls_chart_series_add (s, 1, 0.5);
  ls_chart_series_add (s, 2, 20);
  double lo, hi;
  g_assert_true (ls_chart_data_range (chart, LS_CHART_Y, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 0.5);
  g_assert_cmpfloat (hi, ==, 20);
}

static void
test_units (void)
{
  struct {
    ls_chart_unit unit;
    double value;
    const char *text;
  } cases[] = {
    { LS_CHART_UNIT_MS, 0.0415, "41.5 µs" },
    { LS_CHART_UNIT_MS, 7.17, "7.17 ms" },
    { LS_CHART_UNIT_MS, 29.8, "29.8 ms" },
    { LS_CHART_UNIT_MS, 12500, "12.5 s" },
    { LS_CHART_UNIT_BYTES, 6030336, "6.03 MB" },
    { LS_CHART_UNIT_BYTES, 2.5e9, "2.50 GB" },
    { LS_CHART_UNIT_BYTES, 512, "512 bytes" },
    { LS_CHART_UNIT_FRACTION, 0.855, "85.5 %" },
    { LS_CHART_UNIT_SPS, 62346.3, "62\u2009346 img/s" },
    { LS_CHART_UNIT_COUNT, 3, "3.00" },
    { LS_CHART_UNIT_COUNT, 0, "0" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = ls_chart_format_value (cases[i].unit, cases[i].value);
      g_assert_cmpstr (text, ==, cases[i].text);
    }

  ls_chart_axis axis;
  ls_chart_ticks t;
  axis_init (&axis, LS_CHART_UNIT_BYTES, LS_CHART_LINEAR);
  axis.label = (char *) "peak PSS";
  ls_chart_axis_ticks (&axis, 0, 26e6, 5, &t);
  g_autofree char *title = ls_chart_axis_title (&axis, &t);
  g_assert_cmpstr (title, ==, "peak PSS (MB)");
  axis_init (&axis, LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  axis.label = (char *) "workers";
  ls_chart_axis_ticks (&axis, 0, 4, 5, &t);
  g_autofree char *plain = ls_chart_axis_title (&axis, &t);
  g_assert_cmpstr (plain, ==, "workers");
}

static void
test_categories (void)
{
  g_autoptr (ls_chart) chart = ls_chart_new ("c");
  ls_chart_axis_set (&chart->x, "", LS_CHART_UNIT_CATEGORY, LS_CHART_LINEAR);
  ls_chart_axis_add_category (&chart->x, "Linux fork");
  ls_chart_axis_add_category (&chart->x, "Windows spawn");
  ls_chart_ticks t;
  ls_chart_axis_ticks (&chart->x, 0, 1, 5, &t);
  assert_ticks_sane (&t);
  g_assert_cmpuint (t.n, ==, 2);
  g_autofree char *second = ls_chart_tick_label (&t, 1);
  g_assert_cmpstr (second, ==, "Windows spawn");
}

/* --- decimation --- */

static void
test_decimate (void)
{
  const guint n = 100000;
  g_autofree ls_chart_xy *in = g_new (ls_chart_xy, n);
  g_autofree ls_chart_xy *out = g_new (ls_chart_xy, n);
  for (guint i = 0; i < n; i++)
    in[i] = (ls_chart_xy){ i * 1000.0 / n, sin (i * 0.37) * 100 + (i == 54321 ? 1000 : 0) };
  guint m = ls_chart_decimate_line (in, n, out);
  g_assert_cmpuint (m, <=, 4 * 1000);
  g_assert_cmpuint (m, >=, 1000);
  /* The extremes of every column survive: the spike too. */
  double top = -INFINITY;
  for (guint i = 0; i < m; i++)
    top = MAX (top, out[i].y);
  g_assert_cmpfloat (top, >=, 900);
  g_assert_cmpfloat (out[0].x, ==, in[0].x);
  g_assert_cmpfloat (out[m - 1].y, ==, in[n - 1].y);
  for (guint i = 1; i < m; i++)
    g_assert_cmpfloat (out[i].x, >=, out[i - 1].x);

  /* Few points pass unchanged; a NAN stays a break. */
  ls_chart_xy few[] = { { 0, 1 }, { 10, 2 }, { NAN, NAN }, { 20, 3 } };
  ls_chart_xy few_out[4];
  g_assert_cmpuint (ls_chart_decimate_line (few, 4, few_out), ==, 4);
  g_assert_true (isnan (few_out[2].x));

  g_autofree ls_chart_span *spans = g_new (ls_chart_span, n);
  g_autofree ls_chart_span *cols = g_new (ls_chart_span, n);
  for (guint i = 0; i < n; i++)
    spans[i] = (ls_chart_span){ i * 500.0 / n, -(double) (i % 7), (double) (i % 11) };
  guint c = ls_chart_decimate_spans (spans, n, cols);
  g_assert_cmpuint (c, ==, 500);
  for (guint i = 0; i < c; i++)
    {
      g_assert_cmpfloat (cols[i].lo, ==, -6);
      g_assert_cmpfloat (cols[i].hi, ==, 10);
    }
}

/* --- rendering --- */

static ls_chart *
sample_chart (gboolean simulated, guint points)
{
  ls_chart *chart = ls_chart_new ("Sample chart with a title long enough to be cut short in small images");
  ls_chart_set_subtitle (chart, "a subtitle");
  ls_chart_axis_set (&chart->x, "workers", LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  ls_chart_axis_set (&chart->y, "batch wait", LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  ls_chart_axis_set (&chart->y2, "throughput", LS_CHART_UNIT_SPS, LS_CHART_LINEAR);
  chart->y.include_zero = TRUE;
  ls_chart_series *a = ls_chart_add_series (chart, "pin off", LS_CHART_LINE, 0, LS_CHART_Y);
  ls_chart_series *b = ls_chart_add_series (chart, "pin staging", LS_CHART_SCATTER, 1, LS_CHART_Y);
  ls_chart_series *c = ls_chart_add_series (chart, "throughput", LS_CHART_LINE, 2, LS_CHART_Y2);
  ls_chart_series *d = ls_chart_add_series (chart, "bars", LS_CHART_BARS, 3, LS_CHART_Y);
  c->dash = LS_CHART_DASHED;
  d->value_labels = TRUE;
  for (guint i = 0; i < points; i++)
    {
      double x = i;
      ls_chart_series_add_band (a, x, 10 + sin (x), 9 + sin (x), 12 + sin (x));
      ls_chart_series_add (b, x, 5 + cos (x));
      ls_chart_series_add (c, x, 1000 + 10 * x);
      if (i < 4)
        ls_chart_series_add_band (d, x, 3, 2, 4);
    }
  ls_chart_add_rule (chart, LS_CHART_Y, 8, "p95 8 ms");
  ls_chart_add_note (chart, "A note that explains the chart.");
  chart->simulated = simulated;
  return chart;
}

static void
test_render_any_size (void)
{
  static const int sizes[][2] = { { 1, 1 }, { 7, 300 }, { 300, 7 }, { 40, 30 }, { 160, 100 }, { 640, 400 },
                                  { 1280, 800 }, { 3000, 240 }, { 240, 2400 } };
  ls_chart *charts[] = { sample_chart (TRUE, 12), sample_chart (FALSE, 0), ls_chart_new ("") };
  for (guint k = 0; k < G_N_ELEMENTS (charts); k++)
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
      for (int dark = 0; dark < 2; dark++)
        {
          cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, sizes[i][0], sizes[i][1]);
          cairo_t *cr = cairo_create (surface);
          ls_chart_render (charts[k], cr, 0, 0, sizes[i][0], sizes[i][1], dark);
          g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
          ls_chart_layout layout;
          ls_chart_layout_compute (charts[k], cr, sizes[i][0], sizes[i][1], &layout);
          if (layout.has_plot)
            {
              g_assert_cmpfloat (layout.plot_x, >=, 0);
              g_assert_cmpfloat (layout.plot_y, >=, 0);
              g_assert_cmpfloat (layout.plot_x + layout.plot_w, <=, sizes[i][0]);
              g_assert_cmpfloat (layout.plot_y + layout.plot_h, <=, sizes[i][1]);
            }
          cairo_destroy (cr);
          cairo_surface_destroy (surface);
        }
  for (guint k = 0; k < G_N_ELEMENTS (charts); k++)
    ls_chart_free (charts[k]);

  /* Large enough: the plot is there, between the title and the notes. */
  g_autoptr (ls_chart) chart = sample_chart (TRUE, 12);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1280, 800);
  cairo_t *cr = cairo_create (surface);
  ls_chart_layout layout;
  ls_chart_layout_compute (chart, cr, 1280, 800, &layout);
  g_assert_true (layout.has_plot);
  g_assert_true (layout.has_y2);
  g_assert_cmpfloat (layout.plot_w, >, 800);
  g_assert_cmpfloat (layout.plot_h, >, 400);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* On screen text keeps a floor: at the smallest window's chart size the
 * smallest text is still min_text_px, where a free chart shrinks it; the
 * plot stays inside and still has room (fewer ticks instead). */
static void
test_render_min_text (void)
{
  g_autoptr (ls_chart) chart = sample_chart (TRUE, 12);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 420, 300);
  cairo_t *cr = cairo_create (surface);
  ls_chart_layout free_layout, floor_layout;
  ls_chart_layout_compute (chart, cr, 420, 300, &free_layout);
  g_assert_cmpfloat (free_layout.font_px * 0.75, <, 11);
  chart->min_text_px = 11;
  chart->simulated_note_elsewhere = TRUE;
  ls_chart_layout_compute (chart, cr, 420, 300, &floor_layout);
  g_assert_cmpfloat (floor_layout.font_px * 0.75, >=, 11 - 1e-9);
  g_assert_true (floor_layout.has_plot);
  g_assert_cmpfloat (floor_layout.plot_x + floor_layout.plot_w, <=, 420);
  g_assert_cmpfloat (floor_layout.plot_y + floor_layout.plot_h, <=, 300);
  g_assert_cmpuint (floor_layout.x.n, <=, free_layout.x.n);
  ls_chart_render (chart, cr, 0, 0, 420, 300, FALSE);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* Text must come out as glyphs: a chart with only a title has dark pixels
 * where the title is, on a light background. */
static void
test_render_draws_text (void)
{
  g_autoptr (ls_chart) chart = ls_chart_new ("Text renders");
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 250);
  cairo_t *cr = cairo_create (surface);
  ls_chart_render (chart, cr, 0, 0, 400, 250, FALSE);
  cairo_surface_flush (surface);
  const unsigned char *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  guint dark = 0;
  for (int y = 0; y < 30; y++)
    for (int x = 0; x < 200; x++)
      dark += data[y * stride + x * 4 + 1] < 128;
  g_assert_cmpuint (dark, >, 40);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* --- exports --- */

static guint32
be32 (const guint8 *p)
{
  return (guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3];
}

static void
assert_png_size (const char *path, guint32 width, guint32 height)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >, 33);
  g_assert_true (memcmp (data, "\x89PNG\r\n\x1a\n", 8) == 0);
  g_assert_true (memcmp (data + 12, "IHDR", 4) == 0);
  g_assert_cmpuint (be32 ((const guint8 *) data + 16), ==, width);
  g_assert_cmpuint (be32 ((const guint8 *) data + 20), ==, height);
}

static char *
read_text (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  /* PDF streams hold NULs: search the text up to each one too. */
  for (gsize i = 0; i < len; i++)
    if (data[i] == '\0')
      data[i] = ' ';
  return g_steal_pointer (&data);
}

static void
assert_svg_size (const char *path, int width, int height)
{
  g_autofree char *text = read_text (path);
  g_autofree char *w = g_strdup_printf (" width=\"%dpx\"", width);
  g_autofree char *h = g_strdup_printf (" height=\"%dpx\"", height);
  g_assert_true (g_str_has_prefix (text, "<?xml"));
  const char *svg = strstr (text, "<svg");
  g_assert_nonnull (svg);
  const char *end = strchr (svg, '>');
  g_autofree char *tag = g_strndup (svg, (gsize) (end - svg));
  g_assert_nonnull (strstr (tag, w));
  g_assert_nonnull (strstr (tag, h));
}

static void
assert_pdf_size (const char *path, double width, double height)
{
  g_autofree char *text = read_text (path);
  g_assert_true (g_str_has_prefix (text, "%PDF-"));
  const char *box = strstr (text, "/MediaBox");
  g_assert_nonnull (box);
  box = strchr (box, '[');
  g_assert_nonnull (box);
  char *end = NULL;
  double v[4];
  const char *p = box + 1;
  for (int i = 0; i < 4; i++)
    {
      v[i] = g_ascii_strtod (p, &end);
      g_assert_true (end != p);
      p = end;
    }
  g_assert_cmpfloat (v[0], ==, 0);
  g_assert_cmpfloat (v[1], ==, 0);
  g_assert_cmpfloat (v[2], ==, width);
  g_assert_cmpfloat (v[3], ==, height);
  g_assert_nonnull (strstr (text, "%%EOF"));
}

static void
test_export_formats (void)
{
  g_autoptr (GError) error = NULL;
  ls_chart *charts[] = { sample_chart (FALSE, 20), sample_chart (TRUE, 5), sample_chart (FALSE, 1) };
  g_autofree char *png = ls_test_tmp_path ("one.png");
  g_autofree char *page = ls_test_tmp_path ("page.png");
  g_autofree char *svg = ls_test_tmp_path ("one.svg");
  g_autofree char *pdf = ls_test_tmp_path ("one.pdf");
  g_autofree char *small = ls_test_tmp_path ("small.png");

  g_assert_true (ls_chart_export (charts, 1, png, "png", 1280, 800, FALSE, &error));
  g_assert_no_error (error);
  assert_png_size (png, 1280, 800);
  g_assert_true (ls_chart_export (charts, 3, page, "png", 0, 0, TRUE, &error));
  int dw, dh;
  ls_chart_page_default_size (3, &dw, &dh);
  assert_png_size (page, (guint32) dw, (guint32) dh);
  g_assert_true (ls_chart_export (charts, 1, small, "png", 33, 17, FALSE, &error));
  assert_png_size (small, 33, 17);
  g_assert_true (ls_chart_export (charts, 3, svg, "svg", 900, 1200, FALSE, &error));
  g_assert_no_error (error);
  assert_svg_size (svg, 900, 1200);
  g_assert_true (ls_chart_export (charts, 2, pdf, "pdf", 842, 595, TRUE, &error));
  g_assert_no_error (error);
  assert_pdf_size (pdf, 842, 595);

  /* SVG and PDF carry the charts' text. */
  g_autofree char *svg_text = read_text (svg);
  g_assert_nonnull (strstr (svg_text, "<title>Sample chart"));
  g_assert_nonnull (strstr (svg_text, "A note that explains the chart."));

  for (guint i = 0; i < G_N_ELEMENTS (charts); i++)
    ls_chart_free (charts[i]);
}

static void
test_export_errors (void)
{
  g_autoptr (ls_chart) chart = sample_chart (FALSE, 3);
  g_autoptr (GError) error = NULL;
  g_autofree char *gif = ls_test_tmp_path ("chart.gif");
  g_autofree char *nowhere = g_build_filename (tmp_dir, "no-such-folder", "chart.png", NULL);
  g_autofree char *big = ls_test_tmp_path ("big.png");

  g_assert_false (ls_chart_export (&chart, 1, gif, "gif", 100, 100, FALSE, &error));
  g_assert_error (error, LS_CHART_ERROR, LS_CHART_ERROR_FORMAT);
  g_assert_false (g_file_test (gif, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  g_assert_false (ls_chart_export (&chart, 1, nowhere, "png", 100, 100, FALSE, &error));
  g_assert_error (error, LS_CHART_ERROR, LS_CHART_ERROR_WRITE);
  g_assert_nonnull (strstr (error->message, "no-such-folder"));
  g_clear_error (&error);

  g_assert_false (ls_chart_export (&chart, 1, big, "png", LS_CHART_MAX_SIZE + 1, 100, FALSE, &error));
  g_assert_error (error, LS_CHART_ERROR, LS_CHART_ERROR_SIZE);
  g_assert_false (g_file_test (big, G_FILE_TEST_EXISTS));
}

/* The badge is drawn in the top-right corner, and only on simulated charts. */
static void
test_simulated_mark_drawn (void)
{
  g_autoptr (ls_chart) real = sample_chart (FALSE, 6);
  g_autoptr (ls_chart) sim = sample_chart (TRUE, 6);
  g_autoptr (GError) error = NULL;
  g_autofree char *real_svg = ls_test_tmp_path ("real.svg");
  g_autofree char *sim_svg = ls_test_tmp_path ("sim.svg");
  g_autofree char *real_pdf = ls_test_tmp_path ("real.pdf");
  g_autofree char *sim_pdf = ls_test_tmp_path ("sim.pdf");
  cairo_surface_t *surfaces[2];
  ls_chart *charts[2] = { real, sim };

  for (int i = 0; i < 2; i++)
    {
      surfaces[i] = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 800, 500);
      cairo_t *cr = cairo_create (surfaces[i]);
      ls_chart_render (charts[i], cr, 0, 0, 800, 500, FALSE);
      cairo_destroy (cr);
      cairo_surface_flush (surfaces[i]);
    }
  /* The badge's corner: yellow only when simulated. */
  const guint32 *a = (const guint32 *) cairo_image_surface_get_data (surfaces[0]);
  const guint32 *b = (const guint32 *) cairo_image_surface_get_data (surfaces[1]);
  int stride = cairo_image_surface_get_stride (surfaces[0]) / 4;
  guint differ = 0, yellow_real = 0, yellow_sim = 0;
  for (int y = 0; y < 40; y++)
    for (int x = 650; x < 800; x++)
      {
        guint32 pa = a[y * stride + x], pb = b[y * stride + x];
        differ += pa != pb;
        gboolean ya = (pa >> 16 & 0xff) > 200 && (pa >> 8 & 0xff) > 150 && (pa & 0xff) < 80;
        gboolean yb = (pb >> 16 & 0xff) > 200 && (pb >> 8 & 0xff) > 150 && (pb & 0xff) < 80;
        yellow_real += ya;
        yellow_sim += yb;
      }
  g_assert_cmpuint (differ, >, 500);
  g_assert_cmpuint (yellow_real, ==, 0);
  g_assert_cmpuint (yellow_sim, >, 500);
  cairo_surface_destroy (surfaces[0]);
  cairo_surface_destroy (surfaces[1]);

  g_assert_true (ls_chart_export (&real, 1, real_svg, "svg", 800, 500, FALSE, &error));
  g_assert_true (ls_chart_export (&sim, 1, sim_svg, "svg", 800, 500, FALSE, &error));
  g_autofree char *real_text = read_text (real_svg);
  g_autofree char *sim_text = read_text (sim_svg);
  g_assert_null (strstr (real_text, "SIMULATED"));
  g_assert_nonnull (strstr (sim_text, "SIMULATED GPU"));
  g_autofree char *describe = ls_chart_describe (sim);
  g_assert_nonnull (strstr (describe, LS_CHART_SIMULATED_NOTE));
}

/* --- charts of recorded runs --- */

static void
run_ok (GSubprocess *proc)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_assert_nonnull (proc);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  if (!g_subprocess_get_if_exited (proc) || g_subprocess_get_exit_status (proc) != 0)
    g_error ("loadscope failed:\n%s\n%s", out, err);
}

/* One store with three sweeps, recorded once: 1 sim sink, 2 none sink,
 * 3 sim sink with --repeat 2 and both start methods. */
static const char *
recorded_store (void)
{
  static char *path;
  if (path)
    return path;
  g_autoptr (GError) error = NULL;
  path = ls_test_tmp_path ("sweeps.sqlite");
  run_ok (ls_test_cli_start (&error, "sweep", "--dataset", "synthetic", "--count", "640", "--size", "16x16", "--workers",
                     "0,1,2", "--pin", "off,staging", "--batches", "8", "--sink", "sim", "--model-ms", "1", "--db",
                     path, "--quiet", NULL));
  run_ok (ls_test_cli_start (&error, "sweep", "--dataset", "synthetic", "--count", "640", "--size", "16x16", "--workers",
                     "0,1,2", "--pin", "off,staging", "--batches", "8", "--sink", "none", "--db", path, "--quiet",
                     NULL));
  run_ok (ls_test_cli_start (&error, "sweep", "--dataset", "synthetic", "--count", "640", "--size", "16x16", "--workers",
                     "0,2", "--pin", "off", "--start", "fork,spawn", "--repeat", "2", "--batches", "8", "--sink",
                     "sim", "--model-ms", "1", "--db", path, "--quiet", NULL));
  return path;
}

static ls_store *
open_recorded (void)
{
  g_autoptr (GError) error = NULL;
  ls_store *store = ls_store_open (recorded_store (), &error);
  g_assert_no_error (error);
  return store;
}

static guint
series_with_suffix (const ls_chart *chart, const char *suffix, guint *points)
{
  guint n = 0;
  if (points)
    *points = 0;
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (g_str_has_suffix (s->label, suffix) && s->points->len > 0)
        {
          n++;
          if (points)
            *points += s->points->len;
        }
    }
  return n;
}

static void
test_sweep_series_per_pin (void)
{
  g_autoptr (ls_store) store = open_recorded ();
  g_autoptr (GError) error = NULL;

  for (guint k = 0; ls_chart_sweep_names[k]; k++)
    {
      g_autoptr (ls_chart) chart = ls_chart_sweep (store, 1, ls_chart_sweep_names[k], &error);
      g_assert_no_error (error);
      g_assert_true (chart->simulated);
      if (strcmp (ls_chart_sweep_names[k], "stages") == 0)
        continue; /* configurations on the x axis, stages in the legend: test_sweep_stages */
      /* The legend names the two pin modes first. */
      g_autoptr (GArray) legend = ls_chart_legend_entries (chart);
      g_assert_cmpuint (legend->len, >=, 2);
      g_assert_cmpstr (g_array_index (legend, ls_chart_legend_entry, 0).label, ==, "pin off");
      g_assert_cmpstr (g_array_index (legend, ls_chart_legend_entry, 1).label, ==, "pin staging");
      g_assert_false (ls_chart_n_points (chart) == 0);
    }

  guint points;
  g_autoptr (ls_chart) util = ls_chart_sweep (store, 1, "utilization", &error);
  g_assert_cmpuint (series_with_suffix (util, "GPU busy (exact)", &points), ==, 2);
  g_assert_cmpuint (points, ==, 6);
  g_assert_cmpuint (series_with_suffix (util, "throughput", &points), ==, 2);
  g_assert_true (ls_chart_has_y2 (util));
  g_assert_cmpuint (series_with_suffix (util, "GPU busy (NVML)", NULL), ==, 0);
  g_autoptr (ls_chart) wait = ls_chart_sweep (store, 1, "wait", &error);
  g_assert_cmpuint (series_with_suffix (wait, "p50", NULL), ==, 2);
  g_assert_cmpuint (series_with_suffix (wait, "p95", NULL), ==, 2);
  g_assert_cmpuint (series_with_suffix (wait, "p99", NULL), ==, 2);
  g_autoptr (ls_chart) memory = ls_chart_sweep (store, 1, "memory", &error);
  g_assert_cmpuint (series_with_suffix (memory, "memory", &points), ==, 2);
  g_assert_cmpuint (points, ==, 6);
  g_assert_cmpint (memory->y.unit, ==, LS_CHART_UNIT_BYTES);
  g_assert_cmpstr (memory->y.label, ==, "peak PSS");
  const ls_chart_series *first = memory->series->pdata[0];
  g_assert_cmpstr (first->label, ==, "pin off, memory");
  for (guint i = 0; i < first->points->len; i++)
    {
      const ls_chart_point *p = &g_array_index (first->points, ls_chart_point, i);
      g_assert_cmpfloat (p->x, ==, i);
      g_assert_cmpfloat (p->y, >, 1e6);
      g_assert_false (isfinite (p->lo)); /* no repeats, no band */
    }
}

/* One stacked bar per configuration: a category per (series, workers),
 * each stage a stacked series with a point per category, the stack's
 * top the sum of its stages. */
static void
test_sweep_stages (void)
{
  g_autoptr (ls_store) store = open_recorded ();
  g_autoptr (GError) error = NULL;
  static const struct {
    gint64 sweep;
    guint configurations;
  } cases[] = { { 1, 6 }, { 2, 3 } /* sink none: no pin */, { 3, 4 } };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (ls_chart) chart = ls_chart_sweep (store, cases[c].sweep, "stages", &error);
      g_assert_no_error (error);
      g_assert_cmpint (chart->x.unit, ==, LS_CHART_UNIT_CATEGORY);
      g_assert_cmpuint (chart->x.categories->len, ==, cases[c].configurations);
      guint stacked = 0;
      double top = 0, write_sum = 0;
      for (guint i = 0; i < chart->series->len; i++)
        {
          const ls_chart_series *s = chart->series->pdata[i];
          if (!s->stacked)
            continue;
          g_assert_cmpint (s->kind, ==, LS_CHART_BARS);
          g_assert_cmpuint (s->points->len, ==, cases[c].configurations);
          stacked++;
          const ls_chart_point *p = &g_array_index (s->points, ls_chart_point, 0);
          g_assert_cmpfloat (p->y, >=, 0);
          g_assert_cmpfloat (ls_chart_stack_base (chart, i, p->x), ==, top);
          top += p->y;
          if (strcmp (s->label, "write") == 0)
            for (guint k = 0; k < s->points->len; k++)
              write_sum += g_array_index (s->points, ls_chart_point, k).y;
        }
      g_assert_cmpuint (stacked, ==, 5); /* read, decode, transform, write, idle */
      g_assert_cmpfloat (write_sum, >, 0); /* synthetic samples are generated into the arena */
      double lo, hi;
      g_assert_true (ls_chart_data_range (chart, LS_CHART_Y, &lo, &hi));
      g_assert_cmpfloat (hi, >=, top);
      g_autofree char *png = ls_test_tmp_path ("stages.png");
      ls_chart *one[] = { chart };
      g_assert_true (ls_chart_export (one, 1, png, "png", 800, 500, FALSE, &error));
      g_assert_no_error (error);
    }
}

static void
test_sweep_repeats_and_start_methods (void)
{
  g_autoptr (ls_store) store = open_recorded ();
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_chart) memory = ls_chart_sweep (store, 3, "memory", &error);
  g_assert_no_error (error);
  /* One pin mode, two start methods: a series per start method. */
  guint points;
  g_assert_cmpuint (series_with_suffix (memory, "memory", &points), ==, 2);
  g_assert_cmpuint (points, ==, 4);
  g_assert_cmpstr (((ls_chart_series *) memory->series->pdata[0])->label, ==, "pin off, fork, memory");
  g_assert_cmpstr (((ls_chart_series *) memory->series->pdata[1])->label, ==, "pin off, spawn, memory");
  for (guint i = 0; i < 2; i++)
    {
      const ls_chart_series *s = memory->series->pdata[i];
      g_assert_true (ls_chart_series_has_band (s));
      for (guint k = 0; k < s->points->len; k++)
        {
          const ls_chart_point *p = &g_array_index (s->points, ls_chart_point, k);
          if (isfinite (p->lo))
            {
              g_assert_cmpfloat (p->lo, <=, p->y);
              g_assert_cmpfloat (p->y, <=, p->hi);
            }
        }
    }
  gboolean noted = FALSE;
  for (guint i = 0; i < memory->notes->len; i++)
    noted |= strstr (memory->notes->pdata[i], "mean of the repeated runs") != NULL;
  g_assert_true (noted);
}

static void
test_sweep_simulated_mark (void)
{
  g_autoptr (ls_store) store = open_recorded ();
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_chart) sim = ls_chart_sweep (store, 1, "memory", &error);
  g_autoptr (ls_chart) none = ls_chart_sweep (store, 2, "memory", &error);
  g_assert_no_error (error);
  g_assert_true (sim->simulated);
  g_assert_false (none->simulated);

  g_autofree char *sim_svg = ls_test_tmp_path ("sweep-sim.svg");
  g_autofree char *none_svg = ls_test_tmp_path ("sweep-none.svg");
  g_autofree char *sim_png = ls_test_tmp_path ("sweep-sim.png");
  g_autofree char *none_png = ls_test_tmp_path ("sweep-none.png");
  g_assert_true (ls_chart_export (&sim, 1, sim_svg, "svg", 800, 500, FALSE, &error));
  g_assert_true (ls_chart_export (&none, 1, none_svg, "svg", 800, 500, FALSE, &error));
  g_assert_true (ls_chart_export (&sim, 1, sim_png, "png", 800, 500, FALSE, &error));
  g_assert_true (ls_chart_export (&none, 1, none_png, "png", 800, 500, FALSE, &error));
  g_assert_no_error (error);
  g_autofree char *sim_text = read_text (sim_svg);
  g_autofree char *none_text = read_text (none_svg);
  g_assert_nonnull (strstr (sim_text, "SIMULATED GPU"));
  g_assert_null (strstr (none_text, "SIMULATED"));

  /* The PNG without the mark, redrawn with it, differs. */
  none->simulated = TRUE;
  g_autofree char *marked_png = ls_test_tmp_path ("sweep-none-marked.png");
  g_assert_true (ls_chart_export (&none, 1, marked_png, "png", 800, 500, FALSE, &error));
  g_autofree char *a = NULL, *b = NULL;
  gsize la, lb;
  g_assert_true (g_file_get_contents (none_png, &a, &la, NULL));
  g_assert_true (g_file_get_contents (marked_png, &b, &lb, NULL));
  g_assert_true (la != lb || memcmp (a, b, la) != 0);

  /* No utilization without a consumer: throughput alone, on the left.
   * Without a device pin does not apply (the runs record none), so the
   * two pin modes are one configuration run twice. */
  g_autoptr (ls_chart) util = ls_chart_sweep (store, 2, "utilization", &error);
  g_assert_no_error (error);
  g_assert_false (util->simulated);
  g_assert_false (ls_chart_has_y2 (util));
  g_assert_cmpuint (series_with_suffix (util, "GPU busy (exact)", NULL), ==, 0);
  g_assert_cmpuint (series_with_suffix (util, "throughput", NULL), ==, 1);
  const ls_chart_series *throughput = util->series->pdata[util->series->len - 1];
  g_assert_cmpstr (throughput->label, ==, "pin n/a (no device), throughput");
  g_assert_true (ls_chart_series_has_band (throughput));
}

static void
test_sweep_errors (void)
{
  g_autoptr (ls_store) store = open_recorded ();
  g_autoptr (GError) error = NULL;
  g_assert_null (ls_chart_sweep (store, 999, "wait", &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (ls_chart_sweep (store, 1, "latency", &error));
  g_assert_error (error, LS_CHART_ERROR, LS_CHART_ERROR_UNKNOWN);
  g_clear_error (&error);
  g_assert_null (ls_chart_run_timeline (store, 999, &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (ls_chart_run_memory (store, 999, &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND);
}

static void
test_run_charts (void)
{
  g_autoptr (ls_store) store = open_recorded ();
  g_autoptr (GError) error = NULL;
  /* Run 3: workers 1, pin off, sim sink, 8 batches. */
  g_autoptr (ls_chart) timeline = ls_chart_run_timeline (store, 3, &error);
  g_assert_no_error (error);
  g_assert_true (timeline->simulated);
  g_assert_cmpuint (((ls_chart_series *) timeline->series->pdata[0])->points->len
                        + ((ls_chart_series *) timeline->series->pdata[1])->points->len,
                    ==, 8);
  g_assert_cmpuint (timeline->rules->len, ==, 2);
  g_autoptr (ls_chart) memory = ls_chart_run_memory (store, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (((ls_chart_series *) memory->series->pdata[0])->points->len, >=, 1);
  g_assert_cmpint (memory->y.unit, ==, LS_CHART_UNIT_BYTES);
  /* One stacked bar per batch: 8 batches, five stages each. */
  g_autoptr (ls_chart) stages = ls_chart_run_stages (store, 3, &error);
  g_assert_no_error (error);
  guint stacked = 0;
  for (guint i = 0; i < stages->series->len; i++)
    {
      const ls_chart_series *s = stages->series->pdata[i];
      if (s->stacked)
        {
          stacked++;
          g_assert_cmpuint (s->points->len, ==, 8);
        }
    }
  g_assert_cmpuint (stacked, ==, 5);

  /* A none-sink run has no mark. */
  g_autoptr (ls_chart) none = ls_chart_run_timeline (store, 9, &error);
  g_assert_no_error (error);
  g_assert_false (none->simulated);

  g_autofree char *path = ls_test_tmp_path ("run.pdf");
  ls_chart *both[] = { timeline, memory };
  g_assert_true (ls_chart_export (both, 2, path, "pdf", 0, 0, FALSE, &error));
  g_assert_no_error (error);
}

static void
test_start_cost (void)
{
  g_autoptr (ls_store) store = open_recorded ();
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_chart) chart = ls_chart_start_cost (store, &error);
  g_assert_no_error (error);
  g_assert_false (chart->simulated);
  g_assert_cmpint (chart->x.unit, ==, LS_CHART_UNIT_CATEGORY);
  /* Sweep 3 ran both start methods on Linux. */
  g_assert_cmpuint (chart->x.categories->len, ==, 2);
  g_assert_cmpstr (chart->x.categories->pdata[0], ==, "Linux fork");
  g_assert_cmpstr (chart->x.categories->pdata[1], ==, "Linux spawn");
  const ls_chart_series *bars = chart->series->pdata[0];
  g_assert_cmpuint (bars->points->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const ls_chart_point *p = &g_array_index (bars->points, ls_chart_point, i);
      g_assert_cmpfloat (p->y, >, 0);
      g_assert_cmpfloat (p->hi, >=, p->y);
    }

  /* An empty store: a chart that says so. */
  g_autofree char *empty_path = ls_test_tmp_path ("empty.sqlite");
  g_autoptr (ls_store) empty = ls_store_open (empty_path, &error);
  g_assert_no_error (error);
  g_autoptr (ls_chart) nothing = ls_chart_start_cost (empty, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ls_chart_n_points (nothing), ==, 0);
  g_autofree char *png = ls_test_tmp_path ("empty.png");
  g_assert_true (ls_chart_export (&nothing, 1, png, "png", 640, 400, FALSE, &error));
  assert_png_size (png, 640, 400);
}

/* --- the command line --- */

/* Exit status 0, or the test fails showing what the command said. */
static void
assert_cli_ok (const ls_test_cli *r)
{
  if (r->status != 0)
    g_error ("loadscope exited with %d\nstdout:\n%s\nstderr:\n%s", r->status, r->out, r->err);
}

static void
test_cli_export_charts (void)
{
  const char *db = recorded_store ();
  g_autofree char *page = ls_test_tmp_path ("cli-page.png");
  g_autofree char *wait = ls_test_tmp_path ("cli-wait.svg");
  g_autofree char *none = ls_test_tmp_path ("cli-none.svg");
  g_autofree char *run = ls_test_tmp_path ("cli-run.pdf");
  g_autofree char *cost = ls_test_tmp_path ("cli-cost.png");
  ls_test_cli r;

  /* A sweep's four charts on one page, the default size. */
  r = ls_test_loadscope ("export", "--db", db, "--sweep", "1", "--format", "png", "-o", page, NULL);
  assert_cli_ok (&r);
  g_assert_nonnull (strstr (r.out, "4 charts (utilization, wait, memory, stages) of sweep 1"));
  g_assert_nonnull (strstr (r.out, "SIMULATED GPU"));
  ls_test_cli_clear (&r);
  int dw, dh;
  ls_chart_page_default_size (4, &dw, &dh);
  assert_png_size (page, (guint32) dw, (guint32) dh);

  /* One chart at a size; the sim sweep carries the mark, the none one not. */
  r = ls_test_loadscope ("export", "--db", db, "--sweep", "1", "--chart", "wait", "--format", "svg", "--width", "640",
               "--height", "400", "-o", wait, NULL);
  assert_cli_ok (&r);
  ls_test_cli_clear (&r);
  assert_svg_size (wait, 640, 400);
  g_autofree char *wait_text = read_text (wait);
  g_assert_nonnull (strstr (wait_text, "SIMULATED GPU"));
  g_assert_nonnull (strstr (wait_text, "Batch wait vs workers"));
  r = ls_test_loadscope ("export", "--db", db, "--sweep", "2", "--chart", "memory", "--format", "svg", "-o", none, NULL);
  assert_cli_ok (&r);
  g_assert_null (strstr (r.out, "SIMULATED"));
  ls_test_cli_clear (&r);
  g_autofree char *none_text = read_text (none);
  g_assert_null (strstr (none_text, "SIMULATED"));

  /* A run's charts as PDF; the start cost of the whole store, dark. */
  r = ls_test_loadscope ("export", "--db", db, "--run", "3", "--format", "pdf", "-o", run, NULL);
  assert_cli_ok (&r);
  ls_test_cli_clear (&r);
  ls_chart_page_default_size (3, &dw, &dh); /* timeline, memory, stages */
  assert_pdf_size (run, dw, dh);
  r = ls_test_loadscope ("export", "--db", db, "--all", "--chart", "start-cost", "--format", "png", "--dark", "--width", "900",
               "--height", "500", "-o", cost, NULL);
  assert_cli_ok (&r);
  ls_test_cli_clear (&r);
  assert_png_size (cost, 900, 500);

  /* Bad requests: exit status 2, a reason, and no file. */
  g_autofree char *bad = ls_test_tmp_path ("bad.png");
  struct {
    const char *args[8];
    const char *message;
  } cases[] = {
    { { "--sweep", "1", "--chart", "timeline", NULL }, "not a chart of a sweep" },
    { { "--run", "3", "--chart", "utilization", NULL }, "not a chart of a run" },
    { { "--sweep", "999", NULL }, "no sweep" },
    { { "--run", "999", NULL }, "no run" },
    { { "--sweep", "1", "--width", "-5", NULL }, "positive" },
    { { "--sweep", "1", "--width", "100000", NULL }, "go up to" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char **a = cases[i].args;
      r = ls_test_loadscope ("export", "--db", db, "--format", "png", "-o", bad, a[0], a[1], a[2], a[3], NULL);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].message));
      ls_test_cli_clear (&r);
      g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
    }
  r = ls_test_loadscope ("export", "--db", db, "--sweep", "1", "--format", "csv", "--dark", "-o", bad, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "are for charts"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("export", "--db", db, "--sweep", "1", "--format", "png", "-o", page, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "already exists"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("export", "--db", db, "--sweep", "1", "--format", "png", "--force", "-o", page, NULL);
  assert_cli_ok (&r);
  ls_test_cli_clear (&r);
}

static void
test_cli_demo_writes_charts (void)
{
  g_autofree char *db = ls_test_tmp_path ("demo.sqlite");
  g_autofree char *dir = ls_test_tmp_path ("demo-charts");
  ls_test_cli r = ls_test_loadscope ("demo", "--dataset", "synthetic", "--db", db, "--charts-dir", dir, NULL);
  if (r.status != 0)
    g_error ("demo failed:\n%s\n%s", r.out, r.err);
  const char *names[] = { "utilization", "wait", "memory" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *file = g_strdup_printf ("sweep-1-%s.png", names[i]);
      g_autofree char *path = g_build_filename (dir, file, NULL);
      g_assert_nonnull (strstr (r.out, path));
      assert_png_size (path, 1280, 800);
    }
  ls_test_remove_tree (dir);
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = ls_test_tmp_dir_make ("loadscope-chart-XXXXXX");
  g_assert_nonnull (tmp_dir);
  g_setenv ("XDG_DATA_HOME", tmp_dir, TRUE);

  g_test_add_func ("/app/chart/ticks/nice-step", test_nice_step);
  g_test_add_func ("/app/chart/ticks/ordinary", test_ticks_ordinary);
  g_test_add_func ("/app/chart/ticks/tiny", test_ticks_tiny);
  g_test_add_func ("/app/chart/ticks/huge", test_ticks_huge);
  g_test_add_func ("/app/chart/ticks/negative", test_ticks_negative);
  g_test_add_func ("/app/chart/ticks/single-point-and-equal-values", test_ticks_single_and_equal);
  g_test_add_func ("/app/chart/ticks/empty", test_ticks_empty);
  g_test_add_func ("/app/chart/ticks/log", test_ticks_log);
  g_test_add_func ("/app/chart/units", test_units);
  g_test_add_func ("/app/chart/categories", test_categories);
  g_test_add_func ("/app/chart/decimate", test_decimate);
  g_test_add_func ("/app/chart/render/any-size", test_render_any_size);
  g_test_add_func ("/app/chart/render/min-text", test_render_min_text);
  g_test_add_func ("/app/chart/render/draws-text", test_render_draws_text);
  g_test_add_func ("/app/chart/export/formats-and-sizes", test_export_formats);
  g_test_add_func ("/app/chart/export/errors", test_export_errors);
  g_test_add_func ("/app/chart/simulated/mark-drawn-only-when-simulated", test_simulated_mark_drawn);
  g_test_add_func ("/app/chart/sweep/series-per-pin-mode", test_sweep_series_per_pin);
  g_test_add_func ("/app/chart/sweep/stages", test_sweep_stages);
  g_test_add_func ("/app/chart/sweep/repeats-and-start-methods", test_sweep_repeats_and_start_methods);
  g_test_add_func ("/app/chart/sweep/simulated-mark-follows-the-sink", test_sweep_simulated_mark);
  g_test_add_func ("/app/chart/sweep/errors", test_sweep_errors);
  g_test_add_func ("/app/chart/run/timeline-and-memory", test_run_charts);
  g_test_add_func ("/app/chart/start-cost", test_start_cost);
  g_test_add_func ("/app/chart/cli/export", test_cli_export_charts);
  g_test_add_func ("/app/chart/cli/demo-writes-charts", test_cli_demo_writes_charts);

  int rc = ls_test_run_checked_shm_only ();
  ls_test_release_fonts ();
  ls_test_tmp_dir_remove ();
  return rc;
}
