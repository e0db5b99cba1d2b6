#include "app/chart/chart-render.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "app/chart/chart-paint.h"
#include "app/chart/chart-lanes.h"

/* --- layout --- */

/* The text size everything is measured in: with the size of the chart,
 * but so that the smallest text (VALUE_SIZE) is at least min_text_px. */
static double
base_font_px (const ls_chart *chart, double width, double height)
{
  double f = CLAMP (MIN (width / 72.0, height / 40.0), 7.0, 18.0);
  return MAX (f, chart->min_text_px / VALUE_SIZE);
}

static void
compute_ticks (const ls_chart *chart, ls_chart_axis_id id, int target, ls_chart_ticks *out)
{
  double lo, hi;
  ls_chart_data_range (chart, id, &lo, &hi);
  ls_chart_axis_ticks (ls_chart_axis_of (chart, id), lo, hi, target, out);
}

static double
widest_tick_label (ls_painter *p, const ls_chart_ticks *t)
{
  double widest = 0;
  for (guint i = 0; i < t->n; i++)
    {
      g_autofree char *label = ls_chart_tick_label (t, t->values[i]);
      double w;
      ls_painter_text_size (p, label, TICK_SIZE, FALSE, &w, NULL);
      widest = MAX (widest, w);
    }
  return widest;
}

/* Reference lines are labelled in the margin right of the plot (where no
 * data can be hidden), or over the plot when the right axis takes it. */
static double
widest_rule_label (const ls_chart *chart, ls_painter *p)
{
  double widest = 0;
  if (ls_chart_has_y2 (chart))
    return 0;
  for (guint i = 0; i < chart->rules->len; i++)
    {
      const ls_chart_rule *r = &g_array_index (chart->rules, ls_chart_rule, i);
      double w;
      if (!r->label[0] || r->axis == LS_CHART_X) /* those are labelled inside the plot */
        continue;
      ls_painter_text_size (p, r->label, VALUE_SIZE, FALSE, &w, NULL);
      widest = MAX (widest, w);
    }
  return widest;
}

typedef struct {
  double y;
  const char *label;
} rule_label;

static int
compare_rule_labels (gconstpointer a, gconstpointer b)
{
  double x = ((const rule_label *) a)->y, y = ((const rule_label *) b)->y;
  return x < y ? -1 : x > y;
}

/* An x rule's label, at the top of the plot just right of its line (left
 * of it where the plot ends), on a patch of background. */
static void
draw_x_rule_label (ls_painter *p, const ls_chart_layout *l, const ls_chart_rule *r)
{
  double x = l->x.categories ? NAN : ls_chart_px_x (l, r->value);
  if (!r->label[0] || !isfinite (x) || x < l->plot_x - 0.5 || x > l->plot_x + l->plot_w + 0.5)
    return;
  double tw, th, pad = 0.25 * p->f;
  ls_painter_set_text (p, r->label, VALUE_SIZE, FALSE, 0, FALSE);
  ls_painter_size (p, &tw, &th);
  gboolean left = x + pad + tw > l->plot_x + l->plot_w;
  double tx = left ? x - pad - tw : x + pad, top = l->plot_y + 0.15 * p->f;
  ls_painter_color (p->cr, p->theme->background, 0.85);
  cairo_rectangle (p->cr, tx - 0.1 * p->f, top, tw + 0.2 * p->f, th);
  cairo_fill (p->cr);
  ls_painter_show (p, tx, top, 0, 0, p->theme->muted);
}

static void
draw_rule_labels (const ls_chart *chart, ls_painter *p, const ls_chart_layout *l)
{
  g_autoptr (GArray) labels = g_array_new (FALSE, FALSE, sizeof (rule_label));
  for (guint i = 0; i < chart->rules->len; i++)
    {
      const ls_chart_rule *r = &g_array_index (chart->rules, ls_chart_rule, i);
      if (r->axis == LS_CHART_X)
        {
          draw_x_rule_label (p, l, r);
          continue;
        }
      double y = ls_chart_px_y (l, ls_chart_y_ticks (l, r->axis), r->value);
      if (r->label[0] && isfinite (y) && y >= l->plot_y - 0.5 && y <= l->plot_y + l->plot_h + 0.5)
        {
          rule_label rl = { y, r->label };
          g_array_append_val (labels, rl);
        }
    }
  g_array_sort (labels, compare_rule_labels);
  double th, next_free = -INFINITY;
  ls_painter_text_size (p, "0", VALUE_SIZE, FALSE, NULL, &th);
  for (guint i = 0; i < labels->len; i++)
    {
      rule_label *rl = &g_array_index (labels, rule_label, i);
      /* Centred on its line, pushed down off the one above. */
      double top = MAX (rl->y - th / 2, next_free);
      next_free = top + th;
      if (!l->has_y2)
        {
          ls_painter_text (p, rl->label, VALUE_SIZE, FALSE, l->plot_x + l->plot_w + 0.4 * p->f, top, 0, 0,
                           p->theme->muted);
          continue;
        }
      /* Over the plot, on a patch of background. */
      double tw, x = l->plot_x + l->plot_w - 0.3 * p->f;
      ls_painter_set_text (p, rl->label, VALUE_SIZE, FALSE, 0, FALSE);
      ls_painter_size (p, &tw, NULL);
      ls_painter_color (p->cr, p->theme->background, 0.85);
      cairo_rectangle (p->cr, x - tw - 0.2 * p->f, top, tw + 0.4 * p->f, th);
      cairo_fill (p->cr);
      ls_painter_show (p, x, top, 1, 0, p->theme->muted);
    }
}

/* The notes in drawing order: the simulated one first. */
static GPtrArray *
note_lines (const ls_chart *chart)
{
  GPtrArray *lines = g_ptr_array_new ();
  if (chart->simulated && !chart->simulated_note_elsewhere)
    g_ptr_array_add (lines, (gpointer) ls_chart_simulated_note ());
  for (guint i = 0; i < chart->notes->len; i++)
    g_ptr_array_add (lines, chart->notes->pdata[i]);
  return lines;
}

typedef struct {
  ls_chart_layout pub;
  double pad;
  double title_h, badge_w, badge_h, subtitle_y;
  double legend_y;
  double notes_y;
  guint notes_shown;
  double x_title_h, x_labels_h; /* under the plot */
  double y_title_h[2];          /* beside it: left, right */
} frame;

/* Upright x labels longer than this (x the base size) are cut short. */
#define UPRIGHT_MAX_EM 9.0

/* Legend entries flow in rows; returns the height they take at `width`. */
static double
legend_flow (ls_painter *p, GArray *legend, double x0, double y0, double width, gboolean draw);

/* An axis title's height when wrapped to `room` (at most two lines);
 * clears *whole when even two lines cut it short. */
static double
axis_title_block (const ls_chart *chart, ls_painter *p, ls_chart_axis_id id, double room, gboolean *whole)
{
  const ls_chart_axis *axis = ls_chart_axis_of (chart, id);
  ls_chart_ticks t;
  compute_ticks (chart, id, 5, &t); /* the unit the title names comes from the range */
  g_autofree char *title = ls_chart_axis_title (axis, &t);
  double h;
  ls_painter_text_size (p, "x", AXIS_TITLE_SIZE, FALSE, NULL, &h);
  if (!title[0])
    return h;
  double tw;
  ls_painter_set_text (p, title, AXIS_TITLE_SIZE, FALSE, MAX (room, 1), TRUE);
  ls_painter_max_lines (p, 2);
  pango_layout_set_wrap (p->layout, PANGO_WRAP_WORD); /* "(img/s)" stays on one line */
  ls_painter_size (p, &tw, &h);
  if (pango_layout_is_ellipsized (p->layout) || tw > room + 0.5)
    *whole = FALSE;
  return h;
}

/* The y axes' ticks and titles, then the x ticks across what is left. */
static void
place_plot_sides (const ls_chart *chart, ls_painter *p, frame *fr, double w)
{
  ls_chart_layout *l = &fr->pub;
  double f = p->f, pad = fr->pad;
  gboolean whole = TRUE;
  int y_target = CLAMP ((int) (l->plot_h / (2.6 * f)) + 1, 2, 10);
  compute_ticks (chart, LS_CHART_Y, y_target, &l->y);
  fr->y_title_h[0] = axis_title_block (chart, p, LS_CHART_Y, l->plot_h, &whole);
  double left = pad + fr->y_title_h[0] + 0.5 * f + widest_tick_label (p, &l->y) + 0.45 * f;
  double right = pad + 1.2 * f;
  double rules_w = widest_rule_label (chart, p);
  if (rules_w > 0)
    right = pad + rules_w + 0.6 * f; /* the reference lines' labels, beside the plot */
  if (l->has_y2)
    {
      compute_ticks (chart, LS_CHART_Y2, y_target, &l->y2);
      fr->y_title_h[1] = axis_title_block (chart, p, LS_CHART_Y2, l->plot_h, &whole);
      /* About as many ticks on the right axis as on the left. */
      right = pad + fr->y_title_h[1] + 0.5 * f + widest_tick_label (p, &l->y2) + 0.45 * f;
    }
  l->titles_whole &= whole;
  for (int pass = 0; pass < 2; pass++)
    {
      l->plot_x = left;
      l->plot_w = w - left - right;
      int x_target = CLAMP ((int) (l->plot_w / (5.5 * f)) + 1, 2, 12);
      for (;;)
        {
          compute_ticks (chart, LS_CHART_X, x_target, &l->x);
          double widest = widest_tick_label (p, &l->x);
          if (l->x.categories || x_target <= 2 || (l->x.n) * (widest + 1.2 * f) <= l->plot_w)
            break;
          x_target--;
        }
      /* The last x label is centred on the plot's right end: room for it. */
      if (l->x.n == 0 || l->has_y2 || l->x.categories)
        break;
      g_autofree char *last = ls_chart_tick_label (&l->x, l->x.values[l->x.n - 1]);
      double lw;
      ls_painter_text_size (p, last, TICK_SIZE, FALSE, &lw, NULL);
      double need = pad + lw / 2 + 0.2 * f;
      if (need <= right)
        break;
      right = need;
    }
}

/* The room a category's label has: its share of the plot's width. */
static double
category_slot (const ls_chart_layout *l, double f)
{
  return MAX (l->plot_w / MAX (l->x.hi - l->x.lo, 1) - 0.4 * f, 1);
}

/* How the category labels fit under the plot (l->x_labels): side by side
 * when they do, else wrapped to three lines in their slot, else upright
 * and thinned to every k-th. Returns the height they take. */
static double
category_labels (ls_painter *p, ls_chart_layout *l, double line_h)
{
  double f = p->f, slot = category_slot (l, f), widest = widest_tick_label (p, &l->x), tallest = line_h;
  l->x_labels = LS_CHART_X_LABELS_FLAT;
  l->x_label_every = 1;
  if (!l->x.categories || widest <= slot)
    return line_h;
  gboolean fits = TRUE;
  for (guint i = 0; i < l->x.n && fits; i++)
    {
      g_autofree char *label = ls_chart_tick_label (&l->x, l->x.values[i]);
      double lw, h;
      ls_painter_set_text (p, label, TICK_SIZE, FALSE, slot, TRUE);
      ls_painter_max_lines (p, 3);
      pango_layout_set_wrap (p->layout, PANGO_WRAP_WORD); /* as show_centred draws it */
      ls_painter_size (p, &lw, &h);
      fits = !pango_layout_is_ellipsized (p->layout) && lw <= slot + 0.5;
      tallest = MAX (tallest, h);
    }
  if (fits)
    {
      l->x_labels = LS_CHART_X_LABELS_WRAPPED;
      return tallest;
    }
  l->x_labels = LS_CHART_X_LABELS_UPRIGHT;
  l->x_label_every = (guint) ceil (1.15 * line_h / (slot + 0.4 * f));
  return MIN (widest, UPRIGHT_MAX_EM * f) + 0.2 * f;
}

static void
compute_frame (const ls_chart *chart, ls_painter *p, double w, double h, frame *fr)
{
  memset (fr, 0, sizeof *fr);
  ls_chart_layout *l = &fr->pub;
  double f = p->f;
  double pad = fr->pad = 0.9 * f;
  l->font_px = f;
  l->has_y2 = ls_chart_has_y2 (chart);

  /* Top: title (and badge), subtitle, legend. */
  double y = pad, title_w = w - 2 * pad;
  if (chart->simulated)
    {
      double tw, th;
      ls_painter_text_size (p, ls_chart_simulated_badge (), BADGE_SIZE, TRUE, &tw, &th);
      fr->badge_w = tw + 1.2 * f;
      fr->badge_h = th + 0.5 * f;
      title_w -= fr->badge_w + f;
    }
  ls_painter_set_text (p, chart->title, TITLE_SIZE, TRUE, MAX (title_w, 1), TRUE);
  ls_painter_max_lines (p, 2); /* a long title wraps before it is cut */
  ls_painter_size (p, NULL, &fr->title_h);
  y += MAX (fr->title_h, fr->badge_h);
  fr->subtitle_y = y;
  if (chart->subtitle && chart->subtitle[0])
    {
      double sh;
      ls_painter_set_text (p, chart->subtitle, SUBTITLE_SIZE, FALSE, MAX (w - 2 * pad, 1), FALSE);
      ls_painter_max_lines (p, 2);
      ls_painter_size (p, NULL, &sh);
      y += sh;
    }
  y += 0.5 * f;
  fr->legend_y = y;
  g_autoptr (GArray) legend = ls_chart_legend_entries (chart);
  if (legend->len > 0)
    y += legend_flow (p, legend, pad, y, w - 2 * pad, FALSE) + 0.4 * f;

  /* Bottom: the notes, as many as fit in 40 % of the height. */
  g_autoptr (GPtrArray) notes = note_lines (chart);
  double notes_h = 0;
  for (guint i = 0; i < notes->len; i++)
    {
      double nh;
      ls_painter_set_text (p, notes->pdata[i], NOTE_SIZE, FALSE, MAX (w - 2 * pad, 1), TRUE);
      ls_painter_size (p, NULL, &nh);
      if (notes_h + nh > 0.4 * h)
        break;
      notes_h += nh + 0.15 * f;
      fr->notes_shown++;
    }
  fr->notes_y = h - pad - notes_h;

  /* The plot between them, less the axes' labels and titles. The titles
   * wrap to two lines rather than lose their unit; the x labels take
   * the height their layout needs (category_labels). */
  double th;
  ls_painter_text_size (p, "0", TICK_SIZE, FALSE, NULL, &th);
  l->titles_whole = TRUE;
  fr->x_title_h = axis_title_block (chart, p, LS_CHART_X, w - 2 * pad, &l->titles_whole);
  l->plot_y = y + 0.5 * th;
  fr->x_labels_h = th;
  for (int pass = 0; pass < 3; pass++)
    {
      double plot_bottom = fr->notes_y - (notes_h > 0 ? 0.6 * f : 0) - fr->x_title_h - 0.35 * f - fr->x_labels_h
                           - 0.45 * f;
      l->plot_h = plot_bottom - l->plot_y;
      place_plot_sides (chart, p, fr, w);
      double need = category_labels (p, l, th);
      if (need <= fr->x_labels_h + 0.5)
        break;
      fr->x_labels_h = need;
    }
  l->has_plot = l->plot_w >= 3 * f && l->plot_h >= 2 * f;
}

void
ls_chart_layout_compute (const ls_chart *chart, cairo_t *cr, double width, double height, ls_chart_layout *out)
{
  ls_painter p;
  frame fr;
  g_return_if_fail (chart != NULL && cr != NULL && out != NULL);
  ls_painter_init (&p, cr, ls_chart_theme_get (FALSE), base_font_px (chart, width, height));
  compute_frame (chart, &p, width, height, &fr);
  *out = fr.pub;
  ls_painter_clear (&p);
}

static void
draw_legend_key (ls_painter *p, const ls_chart_legend_entry *e, double x, double y, double w, double h)
{
  cairo_t *cr = p->cr;
  ls_rgb c = ls_chart_theme_color (p->theme, e->color);
  double lw = ls_chart_line_width (p->f), mid = y + h / 2;
  if (e->kind == LS_CHART_BARS)
    {
      ls_painter_color (cr, c, 0.85);
      cairo_rectangle (cr, x + w * 0.15, y + h * 0.3, w * 0.5, h * 0.65);
      cairo_fill (cr);
      if (e->band)
        {
          /* The whisker of the bar. */
          double wx = x + w * 0.4, cap = w * 0.12;
          ls_painter_color (cr, p->theme->text, 0.85);
          cairo_set_line_width (cr, MAX (1, lw * 0.7));
          cairo_move_to (cr, wx, y + h * 0.05);
          cairo_line_to (cr, wx, y + h * 0.3);
          cairo_move_to (cr, wx - cap, y + h * 0.05);
          cairo_line_to (cr, wx + cap, y + h * 0.05);
          cairo_stroke (cr);
        }
      return;
    }
  if (e->band)
    {
      ls_painter_color (cr, c, p->theme->band_alpha);
      cairo_rectangle (cr, x, mid - h * 0.32, w, h * 0.64);
      cairo_fill (cr);
    }
  if (e->kind == LS_CHART_LINE)
    {
      ls_painter_color (cr, c, 1);
      cairo_set_line_width (cr, lw);
      ls_chart_set_dash (cr, e->dash, lw);
      cairo_move_to (cr, x, mid);
      cairo_line_to (cr, x + w, mid);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  if (e->kind == LS_CHART_SCATTER || e->markers)
    ls_painter_marker (p, x + w / 2, mid, MAX (2, p->f * 0.26), e->color, e->dash != LS_CHART_SOLID);
}

static double
legend_flow (ls_painter *p, GArray *legend, double x0, double y0, double width, gboolean draw)
{
  double f = p->f, key_w = 2.2 * f, gap = 0.4 * f, spacing = 1.3 * f;
  double x = x0, y = y0, row_h = 0;
  for (guint i = 0; i < legend->len; i++)
    {
      const ls_chart_legend_entry *e = &g_array_index (legend, ls_chart_legend_entry, i);
      double tw, th;
      ls_painter_set_text (p, e->label, LEGEND_SIZE, FALSE, MAX (width - key_w - gap, 1), FALSE);
      ls_painter_size (p, &tw, &th);
      double entry_w = key_w + gap + tw;
      if (x > x0 && x + entry_w > x0 + width)
        {
          x = x0;
          y += row_h + 0.25 * f;
        }
      row_h = MAX (row_h, th);
      if (draw)
        {
          draw_legend_key (p, e, x, y, key_w, th);
          ls_painter_show (p, x + key_w + gap, y, 0, 0, p->theme->text);
        }
      x += entry_w + spacing;
    }
  return y + row_h - y0;
}

/* Text wrapped to `width` (at most `lines`, then cut), each line centred
 * in the band from x to x + width, its top at y. */
static void
show_centred (ls_painter *p, const char *text, double size, int lines, double x, double y, double width, ls_rgb color)
{
  ls_painter_set_text (p, text, size, FALSE, MAX (width, 1), TRUE);
  ls_painter_max_lines (p, lines);
  pango_layout_set_wrap (p->layout, PANGO_WRAP_WORD);
  pango_layout_set_alignment (p->layout, PANGO_ALIGN_CENTER);
  ls_painter_color (p->cr, color, 1);
  cairo_move_to (p->cr, round (x), round (y));
  pango_cairo_update_layout (p->cr, p->layout);
  pango_cairo_show_layout (p->cr, p->layout);
}

/* The x labels as category_labels set them out, their tops at y: drawn,
 * or (boxes not NULL) only measured, each one's ls_chart_box appended. */
static void
x_labels (ls_painter *p, const ls_chart_layout *l, double y, GArray *boxes)
{
  double f = p->f, slot = category_slot (l, f);
  ls_rgb color = l->x.categories ? p->theme->text : p->theme->muted;
  for (guint i = 0; i < l->x.n; i++)
    {
      g_autofree char *label = ls_chart_tick_label (&l->x, l->x.values[i]);
      double x = ls_chart_px_x (l, l->x.values[i]), tw, th;
      ls_chart_box box;
      if (l->x_labels == LS_CHART_X_LABELS_UPRIGHT && i % l->x_label_every != 0)
        continue;
      if (l->x_labels == LS_CHART_X_LABELS_WRAPPED)
        {
          if (!boxes)
            {
              show_centred (p, label, TICK_SIZE, 3, x - slot / 2, y, slot, color);
              continue;
            }
          ls_painter_set_text (p, label, TICK_SIZE, FALSE, MAX (slot, 1), TRUE);
          ls_painter_max_lines (p, 3);
          pango_layout_set_wrap (p->layout, PANGO_WRAP_WORD);
          ls_painter_size (p, &tw, &th);
          box = (ls_chart_box){ x - tw / 2, y, tw, th };
        }
      else if (l->x_labels == LS_CHART_X_LABELS_UPRIGHT)
        {
          ls_painter_set_text (p, label, TICK_SIZE, FALSE, UPRIGHT_MAX_EM * f, FALSE);
          ls_painter_size (p, &tw, &th);
          box = (ls_chart_box){ x - th / 2, y, th, tw }; /* turned a quarter left */
          if (!boxes)
            {
              cairo_save (p->cr);
              cairo_translate (p->cr, x, y);
              cairo_rotate (p->cr, -G_PI / 2);
              ls_painter_color (p->cr, color, 1);
              cairo_move_to (p->cr, -tw, -th / 2);
              pango_cairo_update_layout (p->cr, p->layout);
              pango_cairo_show_layout (p->cr, p->layout);
              cairo_restore (p->cr);
              pango_cairo_update_layout (p->cr, p->layout);
              continue;
            }
        }
      else
        {
          if (!boxes)
            {
              ls_painter_text (p, label, TICK_SIZE, FALSE, x, y, 0.5, 0, color);
              continue;
            }
          ls_painter_set_text (p, label, TICK_SIZE, FALSE, 0, FALSE);
          ls_painter_size (p, &tw, &th);
          box = (ls_chart_box){ x - tw / 2, y, tw, th };
        }
      g_array_append_val (boxes, box);
    }
}

static void
draw_x_labels (ls_painter *p, const ls_chart_layout *l, double y)
{
  x_labels (p, l, y, NULL);
}

GArray *
ls_chart_x_label_boxes (const ls_chart *chart, cairo_t *cr, double width, double height)
{
  ls_painter p;
  frame fr;
  g_return_val_if_fail (chart != NULL && cr != NULL, NULL);
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (ls_chart_box));
  if (chart->lanes)
    return boxes;
  ls_painter_init (&p, cr, ls_chart_theme_get (FALSE), base_font_px (chart, width, height));
  compute_frame (chart, &p, width, height, &fr);
  if (fr.pub.has_plot)
    x_labels (&p, &fr.pub, fr.pub.plot_y + fr.pub.plot_h, boxes);
  ls_painter_clear (&p);
  return boxes;
}

static void
draw_axes (const ls_chart *chart, ls_painter *p, const frame *fr, double width)
{
  const ls_chart_layout *l = &fr->pub;
  cairo_t *cr = p->cr;
  double f = p->f, tick = 0.3 * f;
  double left = ls_chart_snap (l->plot_x), bottom = ls_chart_snap (l->plot_y + l->plot_h),
         right = ls_chart_snap (l->plot_x + l->plot_w);

  ls_painter_color (cr, p->theme->frame, 1);
  cairo_set_line_width (cr, 1);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_move_to (cr, left, l->plot_y);
  cairo_line_to (cr, left, bottom);
  cairo_line_to (cr, right, bottom);
  if (l->has_y2)
    cairo_line_to (cr, right, l->plot_y);
  for (guint i = 0; i < l->y.n; i++)
    {
      double y = ls_chart_snap (ls_chart_px_y (l, &l->y, l->y.values[i]));
      cairo_move_to (cr, left - tick, y);
      cairo_line_to (cr, left, y);
    }
  if (l->has_y2)
    for (guint i = 0; i < l->y2.n; i++)
      {
        double y = ls_chart_snap (ls_chart_px_y (l, &l->y2, l->y2.values[i]));
        cairo_move_to (cr, right, y);
        cairo_line_to (cr, right + tick, y);
      }
  for (guint i = 0; i < l->x.n; i++)
    {
      double x = ls_chart_snap (ls_chart_px_x (l, l->x.values[i]));
      cairo_move_to (cr, x, bottom);
      cairo_line_to (cr, x, bottom + tick);
    }
  cairo_stroke (cr);

  for (guint i = 0; i < l->y.n; i++)
    {
      g_autofree char *label = ls_chart_tick_label (&l->y, l->y.values[i]);
      ls_painter_text (p, label, TICK_SIZE, FALSE, left - tick - 0.15 * f, ls_chart_px_y (l, &l->y, l->y.values[i]), 1,
                       0.5, p->theme->muted);
    }
  if (l->has_y2)
    for (guint i = 0; i < l->y2.n; i++)
      {
        g_autofree char *label = ls_chart_tick_label (&l->y2, l->y2.values[i]);
        ls_painter_text (p, label, TICK_SIZE, FALSE, right + tick + 0.15 * f,
                         ls_chart_px_y (l, &l->y2, l->y2.values[i]), 0, 0.5, p->theme->muted);
      }
  draw_x_labels (p, l, bottom + tick + 0.1 * f);

  /* Axis titles: x centred under its labels, y turned along the axis;
   * each wraps to two lines before it is cut. */
  g_autofree char *x_title = ls_chart_axis_title (&chart->x, &l->x);
  if (x_title[0])
    {
      double tw, ty = bottom + tick + fr->x_labels_h + 0.35 * f;
      ls_painter_text_size (p, x_title, AXIS_TITLE_SIZE, FALSE, &tw, NULL);
      if (tw <= l->plot_w)
        ls_painter_text (p, x_title, AXIS_TITLE_SIZE, FALSE, l->plot_x + l->plot_w / 2, ty, 0.5, 0, p->theme->text);
      else
        show_centred (p, x_title, AXIS_TITLE_SIZE, 2, fr->pad, ty, width - 2 * fr->pad, p->theme->text);
    }
  for (int side = 0; side < (l->has_y2 ? 2 : 1); side++)
    {
      const ls_chart_axis *axis = side ? &chart->y2 : &chart->y;
      g_autofree char *title = ls_chart_axis_title (axis, side ? &l->y2 : &l->y);
      if (!title[0])
        continue;
      cairo_save (cr);
      if (side == 0)
        {
          cairo_translate (cr, round (fr->pad), l->plot_y + l->plot_h / 2);
          cairo_rotate (cr, -G_PI / 2);
        }
      else
        {
          cairo_translate (cr, round (width - fr->pad), l->plot_y + l->plot_h / 2);
          cairo_rotate (cr, G_PI / 2);
        }
      show_centred (p, title, AXIS_TITLE_SIZE, 2, -l->plot_h / 2, 0, l->plot_h, p->theme->text);
      cairo_restore (cr);
      pango_cairo_update_layout (cr, p->layout);
    }
}

static void
draw_badge (ls_painter *p, const frame *fr, double w)
{
  cairo_t *cr = p->cr;
  double f = p->f, x = w - fr->pad - fr->badge_w, y = fr->pad, r = 0.3 * f;
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + fr->badge_w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + fr->badge_w - r, y + fr->badge_h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + fr->badge_h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 1.5 * G_PI);
  cairo_close_path (cr);
  ls_painter_color (cr, p->theme->badge_fill, 1);
  cairo_fill (cr);
  ls_painter_text (p, ls_chart_simulated_badge (), BADGE_SIZE, TRUE, x + fr->badge_w / 2, y + fr->badge_h / 2, 0.5, 0.5,
             p->theme->badge_text);
}

void
ls_chart_render (const ls_chart *chart, cairo_t *cr, double x, double y, double width, double height, gboolean dark)
{
  g_return_if_fail (chart != NULL && cr != NULL);
  if (!(width >= 1) || !(height >= 1))
    return;

  const ls_chart_theme *theme = ls_chart_theme_get (dark);
  ls_painter p;
  frame fr;

  cairo_save (cr);
  cairo_translate (cr, x, y);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_clip (cr);
  ls_painter_color (cr, theme->background, 1);
  cairo_paint (cr);
  if (chart->lanes)
    {
      ls_chart_lanes_render (chart, cr, width, height, dark);
      cairo_restore (cr);
      return;
    }

  ls_painter_init (&p, cr, theme, base_font_px (chart, width, height));
  compute_frame (chart, &p, width, height, &fr);
  const ls_chart_layout *l = &fr.pub;
  double f = p.f;

  /* Title, badge, subtitle, legend. */
  ls_painter_set_text (&p, chart->title, TITLE_SIZE, TRUE,
                       MAX (width - 2 * fr.pad - (chart->simulated ? fr.badge_w + f : 0), 1), TRUE);
  ls_painter_max_lines (&p, 2);
  ls_painter_show (&p, fr.pad, fr.pad + (MAX (fr.title_h, fr.badge_h) - fr.title_h) / 2, 0, 0, theme->text);
  if (chart->simulated)
    draw_badge (&p, &fr, width);
  if (chart->subtitle && chart->subtitle[0])
    {
      ls_painter_set_text (&p, chart->subtitle, SUBTITLE_SIZE, FALSE, MAX (width - 2 * fr.pad, 1), FALSE);
      ls_painter_max_lines (&p, 2);
      ls_painter_show (&p, fr.pad, fr.subtitle_y, 0, 0, theme->muted);
    }
  g_autoptr (GArray) legend = ls_chart_legend_entries (chart);
  if (legend->len > 0)
    legend_flow (&p, legend, fr.pad, fr.legend_y, width - 2 * fr.pad, TRUE);

  /* The plot. */
  if (l->has_plot)
    {
      ls_chart_draw_series (chart, &p, l);
      draw_rule_labels (chart, &p, l);
      draw_axes (chart, &p, &fr, width);
      if (ls_chart_n_points (chart) == 0)
        ls_painter_text (&p, _("No data to show"), 1.0, FALSE, l->plot_x + l->plot_w / 2, l->plot_y + l->plot_h / 2, 0.5,
                   0.5, theme->muted);
    }

  /* Notes. */
  g_autoptr (GPtrArray) notes = note_lines (chart);
  double ny = fr.notes_y;
  for (guint i = 0; i < fr.notes_shown; i++)
    {
      double nh;
      ls_painter_set_text (&p, notes->pdata[i], NOTE_SIZE, i == 0 && chart->simulated, MAX (width - 2 * fr.pad, 1),
                           TRUE);
      ls_painter_size (&p, NULL, &nh);
      ls_painter_show (&p, fr.pad, ny, 0, 0, i == 0 && chart->simulated ? theme->text : theme->muted);
      ny += nh + 0.15 * f;
    }

  ls_painter_clear (&p);
  cairo_restore (cr);
}
