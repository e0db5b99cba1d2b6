#include "app/chart/chart-lanes.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "app/chart/chart-axis.h"
#include "app/chart/chart-paint.h"

/* Colours by kind: a loader's stages and a script's in the same four
 * hues (they are never in one run), the loop's wait in red. */
#define STEP_ALPHA 0.35

static const int kind_color[LS_N_SPAN_KINDS] = { 0, 1, 2, 3, 7, 0, 2, 6, 5, 4, -1 };

int
ls_span_kind_color (ls_span_kind kind)
{
  return kind < LS_N_SPAN_KINDS ? kind_color[kind] : -1;
}

const char *
ls_span_kind_label (ls_span_kind kind)
{
  static const char *const labels[LS_N_SPAN_KINDS] = {
    N_ ("read"), N_ ("decode"), N_ ("transform"), N_ ("write"), N_ ("sampler"), "__getitem__", "collate_fn",
    N_ ("hand-off"), N_ ("build (stages not recorded)"), N_ ("wait for data"), N_ ("training step"),
  };
  return kind < LS_N_SPAN_KINDS ? _(labels[kind]) : "?";
}

ls_chart_lanes *
ls_chart_set_lanes (ls_chart *chart)
{
  g_return_val_if_fail (chart != NULL, NULL);
  ls_chart_lanes_free (chart->lanes);
  ls_chart_lanes *lanes = g_new0 (ls_chart_lanes, 1);
  lanes->labels = g_ptr_array_new_with_free_func (g_free);
  lanes->spans = g_array_new (FALSE, FALSE, sizeof (ls_lane_span));
  lanes->epochs = g_array_new (FALSE, FALSE, sizeof (ls_lane_mark));
  lanes->view_lo = lanes->view_hi = NAN;
  chart->lanes = lanes;
  return lanes;
}

guint
ls_chart_lanes_add_lane (ls_chart_lanes *lanes, const char *label)
{
  g_ptr_array_add (lanes->labels, g_strdup (label));
  return lanes->labels->len - 1;
}

void
ls_chart_lanes_add_span (ls_chart_lanes *lanes, const ls_lane_span *span)
{
  g_return_if_fail (span->lane < lanes->labels->len && span->kind < LS_N_SPAN_KINDS);
  g_array_append_val (lanes->spans, *span);
  lanes->t_end = MAX (lanes->t_end, span->end_ms);
}

void
ls_chart_lanes_free (ls_chart_lanes *lanes)
{
  if (!lanes)
    return;
  g_ptr_array_unref (lanes->labels);
  g_array_unref (lanes->spans);
  g_array_unref (lanes->epochs);
  g_free (lanes);
}

static double
base_font_px (const ls_chart *chart, double width, double height)
{
  double f = CLAMP (MIN (width / 72.0, height / 40.0), 7.0, 18.0);
  return MAX (f, chart->min_text_px / VALUE_SIZE);
}

static void
time_range (const ls_chart_lanes *lanes, double *lo, double *hi)
{
  *lo = isfinite (lanes->view_lo) ? lanes->view_lo : 0;
  *hi = isfinite (lanes->view_hi) ? lanes->view_hi : lanes->t_end;
  if (!(*hi > *lo))
    *hi = *lo + 1;
}

/* Everything above the plot and the gutter left of it. */
typedef struct {
  ls_lanes_layout pub;
  double pad, title_h, subtitle_y, subtitle_h, legend_y, legend_h, axis_h;
  double notes_y;
} frame;

static double
legend_flow (ls_painter *p, const ls_chart *chart, double x0, double y0, double width, gboolean draw)
{
  double f = p->f, x = x0, y = y0, row_h = 0;
  for (guint i = 0; i < chart->legend->len; i++)
    {
      const ls_chart_legend_entry *e = &g_array_index (chart->legend, ls_chart_legend_entry, i);
      double tw, th;
      ls_painter_text_size (p, e->label, LEGEND_SIZE, FALSE, &tw, &th);
      double key = 0.9 * f, w = key + 0.35 * f + tw;
      if (x > x0 && x + w > x0 + width)
        {
          x = x0;
          y += row_h + 0.3 * f;
          row_h = 0;
        }
      if (draw)
        {
          /* The loop's step is drawn faint (chart-lanes' only key in the text colour). */
          ls_painter_color (p->cr, ls_chart_theme_color (p->theme, e->color), e->color < 0 ? STEP_ALPHA : 1);
          cairo_rectangle (p->cr, x, y + (th - key) / 2, key, key);
          cairo_fill (p->cr);
          ls_painter_text (p, e->label, LEGEND_SIZE, FALSE, x + key + 0.35 * f, y, 0, 0, p->theme->text);
        }
      row_h = MAX (row_h, th);
      x += w + 1.1 * f;
    }
  return chart->legend->len ? y + row_h - y0 : 0;
}

static void
compute_frame (const ls_chart *chart, ls_painter *p, double w, double h, frame *fr)
{
  const ls_chart_lanes *lanes = chart->lanes;
  double f = p->f, tw, th;
  memset (fr, 0, sizeof *fr);
  fr->pub.font_px = f;
  fr->pad = 0.9 * f;
  ls_painter_text_size (p, chart->title, TITLE_SIZE, TRUE, &tw, &fr->title_h);
  double y = fr->pad + fr->title_h + 0.25 * f;
  fr->subtitle_y = y;
  if (chart->subtitle && chart->subtitle[0])
    {
      ls_painter_set_text (p, chart->subtitle, SUBTITLE_SIZE, FALSE, MAX (w - 2 * fr->pad, 1), FALSE);
      ls_painter_max_lines (p, 2);
      ls_painter_size (p, NULL, &fr->subtitle_h);
      y += fr->subtitle_h + 0.35 * f;
    }
  fr->legend_y = y;
  fr->legend_h = legend_flow (p, chart, fr->pad, y, w - 2 * fr->pad, FALSE);
  y += fr->legend_h + 0.9 * f; /* room for the epoch labels above the lanes */

  double notes_h = 0;
  for (guint i = 0; i < chart->notes->len; i++)
    {
      ls_painter_set_text (p, chart->notes->pdata[i], NOTE_SIZE, FALSE, MAX (w - 2 * fr->pad, 1), TRUE);
      ls_painter_size (p, NULL, &th);
      notes_h += th + 0.15 * f;
    }
  ls_painter_text_size (p, "0 ms", TICK_SIZE, FALSE, &tw, &th);
  fr->axis_h = 0.4 * f + th + 0.3 * f + th; /* tick labels, then the axis title */

  double gutter = 0;
  for (guint i = 0; i < lanes->labels->len; i++)
    {
      ls_painter_text_size (p, lanes->labels->pdata[i], TICK_SIZE, i + 1 == lanes->labels->len, &tw, &th);
      gutter = MAX (gutter, tw + 1);
    }
  fr->pub.plot_x = fr->pad + gutter + 0.6 * f;
  fr->pub.plot_y = y;
  fr->pub.plot_w = w - fr->pub.plot_x - fr->pad;
  double room = h - y - fr->axis_h - notes_h - fr->pad;
  guint n = MAX (lanes->labels->len, 1);
  fr->pub.lane_h = MIN (room / n, 9 * f);
  fr->pub.plot_h = fr->pub.lane_h * n;
  fr->pub.has_plot = fr->pub.plot_w >= 4 * f && fr->pub.lane_h >= 0.8 * f;
  fr->notes_y = y + fr->pub.plot_h + fr->axis_h + 0.3 * f;
  time_range (lanes, &fr->pub.t_lo, &fr->pub.t_hi);
}

void
ls_chart_lanes_layout (const ls_chart *chart, cairo_t *cr, double width, double height, ls_lanes_layout *out)
{
  g_return_if_fail (chart != NULL && chart->lanes != NULL);
  ls_painter p;
  frame fr;
  ls_painter_init (&p, cr, ls_chart_theme_get (FALSE), base_font_px (chart, width, height));
  compute_frame (chart, &p, width, height, &fr);
  ls_painter_clear (&p);
  *out = fr.pub;
}

static double
px (const ls_lanes_layout *l, double t)
{
  return l->plot_x + (t - l->t_lo) / (l->t_hi - l->t_lo) * l->plot_w;
}

/* A span's box inside its lane: builds taller than the loop's waits,
 * steps and hand-offs, so a build on the loop's own lane stands out. */
static void
span_box (const ls_lanes_layout *l, const ls_lane_span *s, double *x, double *y, double *w, double *h)
{
  double x0 = px (l, s->start_ms), x1 = px (l, s->end_ms);
  *x = MAX (x0, l->plot_x - 1);
  *w = MIN (x1, l->plot_x + l->plot_w + 1) - *x;
  double inset = (s->kind == LS_SPAN_WAIT || s->kind == LS_SPAN_STEP || s->kind == LS_SPAN_HANDOFF) ? 0.22 : 0.14;
  *y = l->plot_y + s->lane * l->lane_h + inset * l->lane_h;
  *h = l->lane_h * (1 - 2 * inset);
}

void
ls_chart_lanes_span_box (const ls_chart *chart, const ls_lanes_layout *l, guint index, double *x, double *y, double *w,
                         double *h)
{
  g_return_if_fail (chart != NULL && chart->lanes != NULL && index < chart->lanes->spans->len);
  span_box (l, &g_array_index (chart->lanes->spans, ls_lane_span, index), x, y, w, h);
}

int
ls_chart_lanes_span_at (const ls_chart *chart, const ls_lanes_layout *l, double x, double y)
{
  g_return_val_if_fail (chart != NULL && chart->lanes != NULL, -1);
  if (!l->has_plot || x < l->plot_x || x > l->plot_x + l->plot_w || y < l->plot_y || y >= l->plot_y + l->plot_h)
    return -1;
  guint lane = (guint) ((y - l->plot_y) / l->lane_h);
  int best = -1;
  double best_d = 3.0;
  for (guint i = 0; i < chart->lanes->spans->len; i++)
    {
      const ls_lane_span *s = &g_array_index (chart->lanes->spans, ls_lane_span, i);
      if (s->lane != lane)
        continue;
      double bx, by, bw, bh;
      span_box (l, s, &bx, &by, &bw, &bh);
      double d = x < bx ? bx - x : x > bx + bw ? x - (bx + bw) : 0;
      if (d < best_d || (d == 0 && best_d == 0))
        {
          best = (int) i;
          best_d = d;
        }
    }
  return best;
}

/* The time axis and its ticks. */
static void
time_ticks (const ls_lanes_layout *l, double f, ls_chart_axis *axis, ls_chart_ticks *t)
{
  *axis = (ls_chart_axis){ .label = (char *) _("time since the loop's first next()"), .unit = LS_CHART_UNIT_MS,
                           .scale = LS_CHART_LINEAR, .min = l->t_lo, .max = l->t_hi };
  ls_chart_axis_ticks (axis, l->t_lo, l->t_hi, MAX (2, (int) (l->plot_w / (7 * f))), t);
}

/* The ticks' lines across the lanes, under the spans. */
static void
draw_grid (ls_painter *p, const ls_lanes_layout *l)
{
  ls_chart_axis axis;
  ls_chart_ticks t;
  time_ticks (l, p->f, &axis, &t);
  cairo_set_line_width (p->cr, ls_chart_line_width (p->f));
  ls_painter_color (p->cr, p->theme->grid, 1);
  for (guint i = 0; i < t.n; i++)
    if (t.values[i] >= l->t_lo && t.values[i] <= l->t_hi)
      {
        double x = ls_chart_snap (px (l, t.values[i]));
        cairo_move_to (p->cr, x, l->plot_y);
        cairo_line_to (p->cr, x, l->plot_y + l->plot_h);
      }
  cairo_stroke (p->cr);
}

static void
draw_axis (const ls_chart *chart, ls_painter *p, const frame *fr)
{
  const ls_lanes_layout *l = &fr->pub;
  double f = p->f;
  ls_chart_axis axis;
  ls_chart_ticks t;
  time_ticks (l, f, &axis, &t);
  double base = l->plot_y + l->plot_h, th = 0;
  cairo_t *cr = p->cr;
  double lw = ls_chart_line_width (f);
  cairo_set_line_width (cr, lw);
  for (guint i = 0; i < t.n; i++)
    {
      if (t.values[i] < l->t_lo || t.values[i] > l->t_hi)
        continue;
      double x = ls_chart_snap (px (l, t.values[i]));
      g_autofree char *label = ls_chart_tick_label (&t, t.values[i]);
      double w;
      ls_painter_text_size (p, label, TICK_SIZE, FALSE, &w, &th);
      ls_painter_text (p, label, TICK_SIZE, FALSE, CLAMP (x, l->plot_x + w / 2, l->plot_x + l->plot_w - w / 2),
                       base + 0.4 * f, 0.5, 0, p->theme->muted);
    }
  ls_painter_color (cr, p->theme->frame, 1);
  cairo_move_to (cr, l->plot_x, ls_chart_snap (base));
  cairo_line_to (cr, l->plot_x + l->plot_w, ls_chart_snap (base));
  cairo_stroke (cr);
  g_autofree char *title = ls_chart_axis_title (&axis, &t);
  ls_painter_set_text (p, title, AXIS_TITLE_SIZE, FALSE, l->plot_w, FALSE);
  ls_painter_show (p, l->plot_x + l->plot_w / 2, base + 0.7 * f + th, 0.5, 0, p->theme->muted);
}

static void
draw_lanes (const ls_chart *chart, ls_painter *p, const frame *fr)
{
  const ls_chart_lanes *lanes = chart->lanes;
  const ls_lanes_layout *l = &fr->pub;
  cairo_t *cr = p->cr;
  double f = p->f;

  /* Lane labels and every other lane shaded. */
  for (guint i = 0; i < lanes->labels->len; i++)
    {
      double y = l->plot_y + i * l->lane_h;
      if (i % 2 == 1)
        {
          ls_painter_color (cr, p->theme->grid, 0.45);
          cairo_rectangle (cr, l->plot_x, y, l->plot_w, l->lane_h);
          cairo_fill (cr);
        }
      ls_painter_set_text (p, lanes->labels->pdata[i], TICK_SIZE, i + 1 == lanes->labels->len,
                           l->plot_x - fr->pad - 0.6 * f, FALSE);
      ls_painter_show (p, l->plot_x - 0.6 * f, y + l->lane_h / 2, 1, 0.5, p->theme->text);
    }

  draw_grid (p, l);
  cairo_save (cr);
  cairo_rectangle (cr, l->plot_x, l->plot_y, l->plot_w, l->plot_h);
  cairo_clip (cr);
  /* One path and one fill a kind (a long run has tens of thousands of
   * spans): the loop's waits and steps first, the rest over them. */
  static const ls_span_kind order[LS_N_SPAN_KINDS] = {
    LS_SPAN_WAIT,    LS_SPAN_STEP,    LS_SPAN_READ,    LS_SPAN_DECODE,  LS_SPAN_TRANSFORM, LS_SPAN_WRITE,
    LS_SPAN_SAMPLER, LS_SPAN_GETITEM, LS_SPAN_COLLATE, LS_SPAN_HANDOFF, LS_SPAN_BUILD,
  };
  guint n_lanes = lanes->labels->len;
  g_autofree double *run = g_new (double, 4 * (gsize) MAX (n_lanes, 1)); /* per lane: x0, x1, y0, y1 */
  for (guint k = 0; k < LS_N_SPAN_KINDS; k++)
    {
      gboolean any = FALSE;
      for (guint j = 0; j < n_lanes; j++)
        run[4 * j + 1] = -1; /* none pending */
      for (guint i = 0; i < lanes->spans->len; i++)
        {
          const ls_lane_span *s = &g_array_index (lanes->spans, ls_lane_span, i);
          if (s->kind != order[k] || s->end_ms < l->t_lo || s->start_ms > l->t_hi)
            continue;
          double x, y, w, h;
          span_box (l, s, &x, &y, &w, &h);
          /* Whole pixels, and touching spans of a lane merged into one box:
           * cairo fills a path of pixel-aligned boxes on a fast path, and a
           * long run has many spans to a pixel. */
          double x0 = floor (x), x1 = MAX (x0 + 1, round (x + w)), y0 = round (y), y1 = round (y + h);
          double *r = &run[4 * s->lane];
          if (r[1] >= 0 && x0 <= r[1] && x1 >= r[0] && y0 == r[2])
            {
              r[0] = MIN (r[0], x0);
              r[1] = MAX (r[1], x1);
              continue;
            }
          if (r[1] >= 0)
            cairo_rectangle (cr, r[0], r[2], r[1] - r[0], r[3] - r[2]);
          r[0] = x0, r[1] = x1, r[2] = y0, r[3] = y1;
          any = TRUE;
        }
      for (guint j = 0; j < n_lanes; j++)
        if (run[4 * j + 1] >= 0)
          cairo_rectangle (cr, run[4 * j], run[4 * j + 2], run[4 * j + 1] - run[4 * j], run[4 * j + 3] - run[4 * j + 2]);
      if (!any)
        continue;
      ls_painter_color (cr, ls_chart_theme_color (p->theme, kind_color[order[k]]),
                        order[k] == LS_SPAN_STEP ? STEP_ALPHA : 1);
      cairo_antialias_t aa = cairo_get_antialias (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE); /* whole pixels already */
      cairo_fill (cr);
      cairo_set_antialias (cr, aa);
    }
  /* A batch's number on its build where there is room for it; widths
   * from one digit's (pango is the cost here, not the spans). */
  double digit_w, digit_h;
  ls_painter_text_size (p, "0", VALUE_SIZE, FALSE, &digit_w, &digit_h);
  for (guint i = 0; i < lanes->spans->len; i++)
    {
      const ls_lane_span *s = &g_array_index (lanes->spans, ls_lane_span, i);
      if (s->kind == LS_SPAN_WAIT || s->kind == LS_SPAN_STEP || s->kind == LS_SPAN_HANDOFF || s->end_ms < l->t_lo
          || s->start_ms > l->t_hi)
        continue;
      /* The whole build: from this span to the last one of its batch. */
      if (i > 0)
        {
          const ls_lane_span *prev = &g_array_index (lanes->spans, ls_lane_span, i - 1);
          if (prev->seq == s->seq && prev->lane == s->lane)
            continue;
        }
      double end = s->end_ms;
      for (guint j = i + 1; j < lanes->spans->len; j++)
        {
          const ls_lane_span *n = &g_array_index (lanes->spans, ls_lane_span, j);
          if (n->seq != s->seq || n->lane != s->lane)
            break;
          end = n->end_ms;
        }
      double x0 = MAX (px (l, s->start_ms), l->plot_x), x1 = MIN (px (l, end), l->plot_x + l->plot_w);
      char text[32];
      int n = g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT, s->seq);
      if (x1 - x0 > n * digit_w * 1.1 + 0.4 * f && l->lane_h * 0.72 > digit_h)
        ls_painter_text (p, text, VALUE_SIZE, FALSE, (x0 + x1) / 2, l->plot_y + (s->lane + 0.5) * l->lane_h, 0.5, 0.5,
                         p->theme->background);
    }
  cairo_restore (cr);

  /* Epoch boundaries across every lane, labelled above them. */
  double lw = ls_chart_line_width (f);
  for (guint i = 0; i < lanes->epochs->len; i++)
    {
      const ls_lane_mark *m = &g_array_index (lanes->epochs, ls_lane_mark, i);
      if (m->t_ms < l->t_lo || m->t_ms > l->t_hi)
        continue;
      double x = ls_chart_snap (px (l, m->t_ms));
      ls_painter_color (cr, p->theme->text, 0.85);
      cairo_set_line_width (cr, 1.5 * lw);
      ls_chart_set_dash (cr, LS_CHART_DASHED, lw);
      cairo_move_to (cr, x, l->plot_y - 0.2 * f);
      cairo_line_to (cr, x, l->plot_y + l->plot_h);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      char text[48];
      g_snprintf (text, sizeof text, _("epoch %u"), m->epoch);
      ls_painter_text (p, text, VALUE_SIZE, FALSE, x + 0.25 * f, l->plot_y - 0.15 * f, 0, 1, p->theme->text);
    }
}

void
ls_chart_lanes_render (const ls_chart *chart, cairo_t *cr, double width, double height, gboolean dark)
{
  const ls_chart_theme *theme = ls_chart_theme_get (dark);
  ls_painter p;
  frame fr;

  ls_painter_init (&p, cr, theme, base_font_px (chart, width, height));
  compute_frame (chart, &p, width, height, &fr);
  double f = p.f;

  ls_painter_set_text (&p, chart->title, TITLE_SIZE, TRUE, MAX (width - 2 * fr.pad, 1), FALSE);
  ls_painter_show (&p, fr.pad, fr.pad, 0, 0, theme->text);
  if (chart->subtitle && chart->subtitle[0])
    {
      ls_painter_set_text (&p, chart->subtitle, SUBTITLE_SIZE, FALSE, MAX (width - 2 * fr.pad, 1), FALSE);
      ls_painter_max_lines (&p, 2);
      ls_painter_show (&p, fr.pad, fr.subtitle_y, 0, 0, theme->muted);
    }
  legend_flow (&p, chart, fr.pad, fr.legend_y, width - 2 * fr.pad, TRUE);

  if (fr.pub.has_plot)
    {
      draw_lanes (chart, &p, &fr);
      draw_axis (chart, &p, &fr);
      if (chart->lanes->spans->len == 0)
        ls_painter_text (&p, _("No batches to show"), 1.0, FALSE, fr.pub.plot_x + fr.pub.plot_w / 2,
                         fr.pub.plot_y + fr.pub.plot_h / 2, 0.5, 0.5, theme->muted);
    }

  double ny = fr.notes_y;
  for (guint i = 0; i < chart->notes->len; i++)
    {
      double nh;
      ls_painter_set_text (&p, chart->notes->pdata[i], NOTE_SIZE, FALSE, MAX (width - 2 * fr.pad, 1), TRUE);
      ls_painter_size (&p, NULL, &nh);
      ls_painter_show (&p, fr.pad, ny, 0, 0, theme->muted);
      ny += nh + 0.15 * f;
    }
  ls_painter_clear (&p);
}
