/* The plot's layers: grid and reference lines, bands, bars, lines and
 * scatter, each decimated to what the pixel columns can show. */
#include "app/chart/chart-paint.h"

#include <math.h>

#include "app/chart/chart-decimate.h"

/* The largest coverage mask drawn by hand (device pixels a side). */
#define LS_CHART_MASK_MAX 16384

static void
draw_grid (const ls_chart *chart, ls_painter *p, const ls_chart_layout *l)
{
  cairo_t *cr = p->cr;
  cairo_set_line_width (cr, 1);
  cairo_set_dash (cr, NULL, 0, 0);
  ls_painter_color (cr, p->theme->grid, 1);
  for (guint i = 0; i < l->y.n; i++)
    {
      double y = ls_chart_snap (ls_chart_px_y (l, &l->y, l->y.values[i]));
      cairo_move_to (cr, l->plot_x, y);
      cairo_line_to (cr, l->plot_x + l->plot_w, y);
    }
  if (!l->x.categories)
    for (guint i = 0; i < l->x.n; i++)
      {
        double x = ls_chart_snap (ls_chart_px_x (l, l->x.values[i]));
        cairo_move_to (cr, x, l->plot_y);
        cairo_line_to (cr, x, l->plot_y + l->plot_h);
      }
  cairo_stroke (cr);

  for (guint i = 0; i < chart->rules->len; i++)
    {
      const ls_chart_rule *r = &g_array_index (chart->rules, ls_chart_rule, i);
      double d[] = { 4, 3 };
      if (r->axis == LS_CHART_X)
        {
          /* A mark in time (an epoch's start): a vertical line. */
          double x = l->x.categories ? NAN : ls_chart_px_x (l, r->value);
          if (!isfinite (x) || x < l->plot_x - 0.5 || x > l->plot_x + l->plot_w + 0.5)
            continue;
          x = ls_chart_snap (x);
          ls_painter_color (cr, p->theme->muted, 0.9);
          cairo_set_dash (cr, d, 2, 0);
          cairo_move_to (cr, x, l->plot_y);
          cairo_line_to (cr, x, l->plot_y + l->plot_h);
          cairo_stroke (cr);
          cairo_set_dash (cr, NULL, 0, 0);
          continue;
        }
      const ls_chart_ticks *t = ls_chart_y_ticks (l, r->axis);
      double y = ls_chart_px_y (l, t, r->value);
      if (!isfinite (y) || y < l->plot_y - 0.5 || y > l->plot_y + l->plot_h + 0.5)
        continue;
      y = ls_chart_snap (y);
      ls_painter_color (cr, p->theme->muted, 0.9);
      cairo_set_dash (cr, d, 2, 0);
      cairo_move_to (cr, l->plot_x, y);
      cairo_line_to (cr, l->plot_x + l->plot_w, y);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
}

/* Dense columns of ink (spans a pixel or two apart) written straight into
 * an 8-bit coverage mask and painted through it in the current source.
 * Noisy data makes thousands of edges cross every scanline, and cairo's
 * rasterizer then takes tens of milliseconds for what is a few thousand
 * pixels. Only where the result is pixels anyway (not SVG or PDF) and the
 * transformation is a scale and a shift. FALSE: not done. */
static gboolean
fill_spans_mask (cairo_t *cr, const ls_chart_span *cols, guint m, double grow)
{
  cairo_matrix_t ctm;
  cairo_get_matrix (cr, &ctm);
  switch (cairo_surface_get_type (cairo_get_target (cr)))
    {
    case CAIRO_SURFACE_TYPE_PDF:
    case CAIRO_SURFACE_TYPE_PS:
    case CAIRO_SURFACE_TYPE_SVG:
    case CAIRO_SURFACE_TYPE_SCRIPT:
      return FALSE;
    default:
      break;
    }
  if (ctm.xy != 0 || ctm.yx != 0 || !(ctm.xx > 0) || !(ctm.yy > 0))
    return FALSE;

  /* The mask covers the clip (the plot) in device pixels. */
  double cx0, cy0, cx1, cy1;
  cairo_clip_extents (cr, &cx0, &cy0, &cx1, &cy1);
  cairo_user_to_device (cr, &cx0, &cy0);
  cairo_user_to_device (cr, &cx1, &cy1);
  int ox = (int) floor (cx0), oy = (int) floor (cy0);
  int w = (int) ceil (cx1) - ox, h = (int) ceil (cy1) - oy;
  if (w <= 0 || h <= 0 || w > LS_CHART_MASK_MAX || h > LS_CHART_MASK_MAX)
    return FALSE;
  cairo_surface_t *mask = cairo_image_surface_create (CAIRO_FORMAT_A8, w, h);
  if (cairo_surface_status (mask) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (mask);
      return FALSE;
    }
  cairo_surface_flush (mask);
  unsigned char *data = cairo_image_surface_get_data (mask);
  int stride = cairo_image_surface_get_stride (mask);

  for (guint i = 0; i < m; i++)
    {
      if (!isfinite (cols[i].x))
        continue;
      /* The column reaches to the next one, so no pixel column is skipped. */
      double ux1 = cols[i].x + 1;
      if (i + 1 < m && isfinite (cols[i + 1].x) && cols[i + 1].x > ux1)
        ux1 = MIN (cols[i + 1].x, cols[i].x + 3);
      double x0 = cols[i].x, y0 = cols[i].lo - grow, x1 = ux1, y1 = cols[i].hi + grow;
      cairo_user_to_device (cr, &x0, &y0);
      cairo_user_to_device (cr, &x1, &y1);
      int px0 = MAX ((int) floor (x0) - ox, 0), px1 = MIN ((int) floor (x1) - ox, w);
      if (px1 <= px0)
        px1 = MIN (px0 + 1, w);
      double top = y0 - oy, bottom = y1 - oy;
      int r0 = MAX ((int) floor (top), 0), r1 = MIN ((int) ceil (bottom), h);
      for (int r = r0; r < r1; r++)
        {
          double cover = MIN (bottom, r + 1.0) - MAX (top, (double) r);
          unsigned char a = (unsigned char) CLAMP (cover * 255 + 0.5, 0, 255);
          unsigned char *row = data + (size_t) r * stride;
          for (int c = px0; c < px1; c++)
            if (row[c] < a)
              row[c] = a;
        }
    }
  cairo_surface_mark_dirty (mask);
  cairo_save (cr);
  cairo_identity_matrix (cr);
  cairo_mask_surface (cr, mask, ox, oy);
  cairo_restore (cr);
  cairo_surface_destroy (mask);
  return TRUE;
}

/* Spans (pixel columns, NAN breaks) as ribbons, each grown by `grow`:
 * dense ones through a mask where possible, else one polygon per unbroken
 * stretch, along the top and back along the bottom; or (connected FALSE)
 * one box per span. */
static void
fill_spans (cairo_t *cr, const ls_chart_span *cols, guint m, double grow, gboolean connected)
{
  guint start = 0, valid = 0;
  double x_min = INFINITY, x_max = -INFINITY;
  cairo_new_path (cr);
  for (guint i = 0; i < m; i++)
    if (isfinite (cols[i].x))
      {
        valid++;
        x_min = MIN (x_min, cols[i].x);
        x_max = MAX (x_max, cols[i].x);
      }
  if (valid > 2 && (x_max - x_min) / (valid - 1) < 2.0 && fill_spans_mask (cr, cols, m, grow))
    return;
  if (!connected)
    {
      for (guint i = 0; i < m; i++)
        if (isfinite (cols[i].x))
          cairo_rectangle (cr, cols[i].x - grow, cols[i].lo - grow, 2 * grow, cols[i].hi - cols[i].lo + 2 * grow);
      cairo_fill (cr);
      return;
    }
  while (start < m)
    {
      if (!isfinite (cols[start].x))
        {
          start++;
          continue;
        }
      guint end = start;
      while (end < m && isfinite (cols[end].x))
        end++;
      if (end - start == 1)
        {
          double half = MAX (grow, 1.5);
          cairo_rectangle (cr, cols[start].x - half, cols[start].lo - grow, 2 * half,
                           cols[start].hi - cols[start].lo + 2 * grow);
        }
      else
        {
          cairo_move_to (cr, cols[start].x - grow, cols[start].lo - grow);
          for (guint i = start; i < end; i++)
            cairo_line_to (cr, cols[i].x, cols[i].lo - grow);
          cairo_line_to (cr, cols[end - 1].x + grow, cols[end - 1].lo - grow);
          cairo_line_to (cr, cols[end - 1].x + grow, cols[end - 1].hi + grow);
          for (guint i = end; i-- > start;)
            cairo_line_to (cr, cols[i].x, cols[i].hi + grow);
          cairo_line_to (cr, cols[start].x - grow, cols[start].hi + grow);
          cairo_close_path (cr);
        }
      start = end;
    }
  cairo_fill (cr);
}

/* alpha: fainter when many bands overlap. */
static void
draw_band (ls_painter *p, const ls_chart_layout *l, const ls_chart_series *s, double alpha)
{
  const ls_chart_ticks *t = ls_chart_y_ticks (l, s->y_axis);
  guint n = s->points->len;
  g_autofree ls_chart_span *spans = g_new (ls_chart_span, n);
  g_autofree ls_chart_span *cols = g_new (ls_chart_span, n);
  for (guint i = 0; i < n; i++)
    {
      const ls_chart_point *pt = &g_array_index (s->points, ls_chart_point, i);
      /* The band's ends on the axis (lo 0 on a log scale: the bottom). */
      double lo = ls_chart_px_y (l, t, pt->lo), hi = ls_chart_px_y (l, t, pt->hi);
      spans[i] = (ls_chart_span){ ls_chart_px_x (l, pt->x), MIN (lo, hi), MAX (lo, hi) };
    }
  guint m = ls_chart_decimate_spans (spans, n, cols);
  cairo_t *cr = p->cr;
  ls_painter_color (cr, ls_chart_theme_color (p->theme, s->color), alpha);
  if (s->kind != LS_CHART_LINE)
    {
      /* Whiskers (scatter; bars draw their own). */
      cairo_set_line_width (cr, ls_chart_line_width (p->f));
      ls_painter_color (cr, ls_chart_theme_color (p->theme, s->color), 0.7);
      for (guint i = 0; i < m; i++)
        if (isfinite (cols[i].x))
          {
            cairo_move_to (cr, cols[i].x, cols[i].lo);
            cairo_line_to (cr, cols[i].x, cols[i].hi);
          }
      cairo_stroke (cr);
      return;
    }
  fill_spans (cr, cols, m, 0, TRUE);
}

static gboolean
markers_fit (const ls_chart_layout *l, guint n, double r)
{
  return n > 0 && n * r * 3.0 <= l->plot_w;
}

static void
draw_line (ls_painter *p, const ls_chart_layout *l, const ls_chart_series *s)
{
  const ls_chart_ticks *t = ls_chart_y_ticks (l, s->y_axis);
  guint n = s->points->len;
  g_autofree ls_chart_xy *pts = g_new (ls_chart_xy, n);
  g_autofree ls_chart_xy *out = g_new (ls_chart_xy, n);
  for (guint i = 0; i < n; i++)
    {
      const ls_chart_point *pt = &g_array_index (s->points, ls_chart_point, i);
      pts[i] = (ls_chart_xy){ ls_chart_px_x (l, pt->x), ls_chart_px_y (l, t, pt->y) };
    }
  cairo_t *cr = p->cr;
  double lw = ls_chart_line_width (p->f);
  ls_painter_color (cr, ls_chart_theme_color (p->theme, s->color), 1);

  /* Points a pixel or two apart: the line's ink as a filled ribbon.
   * (Cairo's stroker slows down sharply on long zig-zag polylines.) */
  guint valid = 0;
  double x_min = INFINITY, x_max = -INFINITY;
  for (guint i = 0; i < n; i++)
    if (isfinite (pts[i].x) && isfinite (pts[i].y))
      {
        valid++;
        x_min = MIN (x_min, pts[i].x);
        x_max = MAX (x_max, pts[i].x);
      }
  if (valid > 2 && (x_max - x_min) / (valid - 1) < 2.0)
    {
      g_autofree ls_chart_span *ribbon = g_new (ls_chart_span, n);
      guint m = ls_chart_line_ribbon (pts, n, ribbon);
      fill_spans (cr, ribbon, m, lw / 2, TRUE);
      if (s->dash != LS_CHART_SOLID)
        {
          /* Dashes cannot show at this density; a lighter ribbon tells it apart. */
          ls_painter_color (cr, p->theme->background, 0.35);
          fill_spans (cr, ribbon, m, lw / 2, TRUE);
        }
      return;
    }

  /* Otherwise stroked, in short pieces for the same reason; the dash
   * pattern runs on across the pieces. */
  guint m = ls_chart_decimate_line (pts, n, out);
  cairo_set_line_width (cr, lw);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  ls_chart_set_dash (cr, s->dash, lw);
  if (s->dash == LS_CHART_SOLID)
    cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  double dashes[2], dash_offset = 0;
  int n_dashes = cairo_get_dash_count (cr);
  cairo_get_dash (cr, dashes, NULL);
  guint segments = 0;
  gboolean pen_down = FALSE;
  cairo_new_path (cr);
  for (guint i = 0; i < m; i++)
    {
      if (!isfinite (out[i].x))
        {
          pen_down = FALSE;
          continue;
        }
      if (!pen_down)
        {
          cairo_move_to (cr, out[i].x, out[i].y);
          pen_down = TRUE;
          continue;
        }
      cairo_line_to (cr, out[i].x, out[i].y);
      dash_offset += hypot (out[i].x - out[i - 1].x, out[i].y - out[i - 1].y);
      if (++segments % 32 == 0)
        {
          cairo_stroke (cr);
          if (n_dashes > 0)
            cairo_set_dash (cr, dashes, n_dashes, dash_offset);
          cairo_move_to (cr, out[i].x, out[i].y);
        }
    }
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);

  double r = MAX (2, p->f * 0.26);
  if (s->markers && markers_fit (l, n, r))
    for (guint i = 0; i < n; i++)
      if (isfinite (pts[i].x) && isfinite (pts[i].y))
        ls_painter_marker (p, pts[i].x, pts[i].y, r, s->color, s->dash != LS_CHART_SOLID);
}

static void
draw_scatter (ls_painter *p, const ls_chart_layout *l, const ls_chart_series *s)
{
  const ls_chart_ticks *t = ls_chart_y_ticks (l, s->y_axis);
  guint n = s->points->len;
  double r = MAX (2, p->f * 0.26);
  g_autofree ls_chart_span *spans = g_new (ls_chart_span, n);
  g_autofree ls_chart_span *cols = g_new (ls_chart_span, n);
  for (guint i = 0; i < n; i++)
    {
      const ls_chart_point *pt = &g_array_index (s->points, ls_chart_point, i);
      double y = ls_chart_px_y (l, t, pt->y);
      spans[i] = (ls_chart_span){ ls_chart_px_x (l, pt->x), y, y };
    }
  if (markers_fit (l, n, r))
    {
      for (guint i = 0; i < n; i++)
        if (isfinite (spans[i].x) && isfinite (spans[i].lo))
          ls_painter_marker (p, spans[i].x, spans[i].lo, r, s->color, s->dash != LS_CHART_SOLID);
      return;
    }
  /* Dense: per pixel column, a bar from the lowest to the highest point. */
  guint m = ls_chart_decimate_spans (spans, n, cols);
  ls_painter_color (p->cr, ls_chart_theme_color (p->theme, s->color), 0.9);
  fill_spans (p->cr, cols, m, 0.75, FALSE);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Bars of all bar series side by side around each x; the stacked ones
 * share one place, each on top of the earlier ones. */
static void
draw_bars (const ls_chart *chart, ls_painter *p, const ls_chart_layout *l)
{
  guint n_bar = 0, n_x = 0;
  gboolean any_stacked = FALSE;
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (s->kind == LS_CHART_BARS)
        {
          if (!s->stacked || !any_stacked)
            n_bar++;
          any_stacked |= s->stacked;
          n_x += s->points->len;
        }
    }
  if (n_bar == 0 || n_x == 0)
    return;

  /* The narrowest distance between neighbouring x values sets the width. */
  g_autofree double *xs = g_new (double, n_x);
  guint k = 0;
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (s->kind == LS_CHART_BARS)
        for (guint j = 0; j < s->points->len; j++)
          xs[k++] = ls_chart_px_x (l, g_array_index (s->points, ls_chart_point, j).x);
    }
  qsort (xs, n_x, sizeof (double), compare_doubles);
  double spacing = l->plot_w * 0.5;
  if (l->x.categories)
    spacing = l->plot_w / (l->x.hi - l->x.lo);
  for (guint i = 1; i < n_x; i++)
    if (xs[i] - xs[i - 1] > 0.5)
      spacing = MIN (spacing, xs[i] - xs[i - 1]);
  double per_bar = any_stacked ? 14 : 7;
  double group_w = MIN (spacing * 0.7, per_bar * p->f * n_bar), bar_w = MAX (1, group_w / n_bar);

  /* Dots over the bars (a stage chart's wait p50) sit on their middle. */
  gboolean dots = FALSE;
  for (guint i = 0; i < chart->series->len; i++)
    dots |= ((const ls_chart_series *) chart->series->pdata[i])->kind == LS_CHART_SCATTER;

  cairo_t *cr = p->cr;
  guint b = 0;
  int stack_slot = -1;
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (s->kind != LS_CHART_BARS)
        continue;
      guint slot = b;
      if (s->stacked && stack_slot >= 0)
        slot = (guint) stack_slot;
      else
        {
          if (s->stacked)
            stack_slot = (int) b;
          b++;
        }
      const ls_chart_ticks *t = ls_chart_y_ticks (l, s->y_axis);
      double base_v = t->scale == LS_CHART_LOG ? t->lo : CLAMP (0, t->lo, t->hi);
      double offset = (slot - (n_bar - 1) / 2.0) * bar_w;
      ls_rgb c = ls_chart_theme_color (p->theme, s->color);
      for (guint j = 0; j < s->points->len; j++)
        {
          const ls_chart_point *pt = &g_array_index (s->points, ls_chart_point, j);
          double bottom_v = s->stacked ? ls_chart_stack_base (chart, i, pt->x) : base_v;
          double top_v = s->stacked ? bottom_v + pt->y : pt->y;
          double base = ls_chart_px_y (l, t, s->stacked && bottom_v == 0 ? base_v : bottom_v);
          double x = ls_chart_px_x (l, pt->x) + offset, y = ls_chart_px_y (l, t, top_v);
          if (!isfinite (x) || !isfinite (y) || !isfinite (base))
            continue;
          ls_painter_color (cr, c, 0.85);
          cairo_rectangle (cr, x - bar_w / 2 + 0.5, MIN (y, base), bar_w - 1, fabs (base - y));
          cairo_fill (cr);
          double top = MIN (y, base);
          gboolean whisker = FALSE;
          if (!s->stacked && isfinite (pt->lo) && isfinite (pt->hi))
            {
              double lo = ls_chart_px_y (l, t, pt->lo), hi = ls_chart_px_y (l, t, pt->hi),
                     cap = MIN (bar_w * 0.25, p->f * 0.5);
              if (isfinite (lo) && isfinite (hi))
                {
                  ls_painter_color (cr, p->theme->text, 0.85);
                  cairo_set_line_width (cr, MAX (1, ls_chart_line_width (p->f) * 0.7));
                  cairo_move_to (cr, x, lo);
                  cairo_line_to (cr, x, hi);
                  cairo_move_to (cr, x - cap, hi);
                  cairo_line_to (cr, x + cap, hi);
                  cairo_move_to (cr, x - cap, lo);
                  cairo_line_to (cr, x + cap, lo);
                  cairo_stroke (cr);
                  whisker = fabs (hi - lo) > 1;
                }
            }
          if (s->value_labels)
            {
              /* Above the bar; beside the whisker, so it is not read as the
               * whisker's value. A stack's label is its total. */
              g_autofree char *label = ls_chart_format_value (ls_chart_axis_of (chart, s->y_axis)->unit, top_v);
              double tw;
              ls_painter_text_size (p, label, VALUE_SIZE, FALSE, &tw, NULL);
              if (whisker && tw + 0.4 * p->f <= bar_w / 2)
                ls_painter_text (p, label, VALUE_SIZE, FALSE, x + 0.3 * p->f, top - 0.15 * p->f, 0, 1, p->theme->text);
              else if (dots && tw + 0.6 * p->f <= bar_w / 2)
                /* Left of the middle, where a dot (the wait) may sit. */
                ls_painter_text (p, label, VALUE_SIZE, FALSE, x - 0.5 * p->f, top - 0.15 * p->f, 1, 1, p->theme->text);
              else if (!whisker && tw <= bar_w + spacing * 0.25)
                ls_painter_text (p, label, VALUE_SIZE, FALSE, x, top - 0.15 * p->f, 0.5, 1, p->theme->text);
            }
        }
    }
}


void
ls_chart_draw_series (const ls_chart *chart, ls_painter *p, const ls_chart_layout *l)
{
  cairo_t *cr = p->cr;
  double f = p->f;
  draw_grid (chart, p, l);
  cairo_save (cr);
  double m = 0.6 * f;
  cairo_rectangle (cr, l->plot_x - m, l->plot_y - m, l->plot_w + 2 * m, l->plot_h + 2 * m);
  cairo_clip (cr);
  guint bands = 0;
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      bands += s->kind != LS_CHART_BARS && ls_chart_series_has_band (s);
    }
  double alpha = p->theme->band_alpha * (bands > 3 ? sqrt (3.0 / bands) : 1);
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (s->kind != LS_CHART_BARS && ls_chart_series_has_band (s))
        draw_band (p, l, s, alpha);
    }
  draw_bars (chart, p, l);
  /* Last to first: the first series, the chart's main one, on top. */
  for (guint i = chart->series->len; i-- > 0;)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (s->kind == LS_CHART_LINE)
        draw_line (p, l, s);
      else if (s->kind == LS_CHART_SCATTER)
        draw_scatter (p, l, s);
    }
  cairo_restore (cr);
}
