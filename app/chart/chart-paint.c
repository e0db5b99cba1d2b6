/* The painter: text laid out by pango and marks, in the theme's colours. */
#include "app/chart/chart-paint.h"

#include <math.h>

void
ls_painter_init (ls_painter *p, cairo_t *cr, const ls_chart_theme *theme, double f)
{
  p->cr = cr;
  p->layout = pango_cairo_create_layout (cr);
  p->font = pango_font_description_from_string ("Sans");
  p->theme = theme;
  p->f = f;
}

void
ls_painter_clear (ls_painter *p)
{
  g_clear_object (&p->layout);
  g_clear_pointer (&p->font, pango_font_description_free);
}

/* Prepares the layout: text at size (x f), bold or not, wrapped or
 * ellipsized to width (<= 0: neither). */
void
ls_painter_set_text (ls_painter *p, const char *text, double size, gboolean bold, double width, gboolean wrap)
{
  pango_font_description_set_absolute_size (p->font, MAX (1, size * p->f) * PANGO_SCALE);
  pango_font_description_set_weight (p->font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_layout_set_font_description (p->layout, p->font);
  pango_layout_set_width (p->layout, width > 0 ? (int) (width * PANGO_SCALE) : -1);
  pango_layout_set_wrap (p->layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_ellipsize (p->layout, width > 0 && !wrap ? PANGO_ELLIPSIZE_END : PANGO_ELLIPSIZE_NONE);
  pango_layout_set_height (p->layout, -1);
  pango_layout_set_alignment (p->layout, PANGO_ALIGN_LEFT);
  pango_layout_set_text (p->layout, text, -1);
}

void
ls_painter_max_lines (ls_painter *p, int n)
{
  pango_layout_set_wrap (p->layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_height (p->layout, -n);
  pango_layout_set_ellipsize (p->layout, PANGO_ELLIPSIZE_END);
}

void
ls_painter_size (ls_painter *p, double *w, double *h)
{
  int pw, ph;
  pango_layout_get_pixel_size (p->layout, &pw, &ph);
  if (w)
    *w = pw;
  if (h)
    *h = ph;
}

void
ls_painter_text_size (ls_painter *p, const char *text, double size, gboolean bold, double *w, double *h)
{
  ls_painter_set_text (p, text, size, bold, 0, FALSE);
  ls_painter_size (p, w, h);
}

void
ls_painter_color (cairo_t *cr, ls_rgb c, double alpha)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, alpha);
}

/* Shows the prepared layout with its box anchored at (x, y): ax, ay are
 * 0 (left/top), 0.5 (centre) or 1 (right/bottom). */
void
ls_painter_show (ls_painter *p, double x, double y, double ax, double ay, ls_rgb color)
{
  double w, h;
  ls_painter_size (p, &w, &h);
  ls_painter_color (p->cr, color, 1);
  cairo_move_to (p->cr, round (x - ax * w), round (y - ay * h));
  pango_cairo_show_layout (p->cr, p->layout);
}

void
ls_painter_text (ls_painter *p, const char *text, double size, gboolean bold, double x, double y, double ax, double ay,
           ls_rgb color)
{
  ls_painter_set_text (p, text, size, bold, 0, FALSE);
  ls_painter_show (p, x, y, ax, ay, color);
}

/* Crisp one-pixel lines on image surfaces. */
double
ls_chart_snap (double v)
{
  return floor (v) + 0.5;
}

double
ls_chart_line_width (double f)
{
  return MAX (1.0, f / 7.5);
}

void
ls_chart_set_dash (cairo_t *cr, ls_chart_dash dash, double lw)
{
  if (dash == LS_CHART_DASHED)
    {
      double d[] = { 3.5 * lw, 2 * lw };
      cairo_set_dash (cr, d, 2, 0);
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
    }
  else if (dash == LS_CHART_DOTTED)
    {
      double d[] = { 0, 2 * lw };
      cairo_set_dash (cr, d, 2, 0);
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
    }
  else
    {
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
    }
}

/* A marker, its shape by colour (circle, square, triangle, diamond) so
 * series stay apart without colour; hollow for dashed and dotted series. */
void
ls_painter_marker (ls_painter *p, double x, double y, double r, int color, gboolean hollow)
{
  cairo_t *cr = p->cr;
  int shape = color < 0 ? 0 : color % 4;
  cairo_new_path (cr);
  switch (shape)
    {
    case 1:
      cairo_rectangle (cr, x - r * 0.88, y - r * 0.88, r * 1.76, r * 1.76);
      break;
    case 2:
      cairo_move_to (cr, x, y - r * 1.15);
      cairo_line_to (cr, x + r * 1.05, y + r * 0.75);
      cairo_line_to (cr, x - r * 1.05, y + r * 0.75);
      cairo_close_path (cr);
      break;
    case 3:
      cairo_move_to (cr, x, y - r * 1.2);
      cairo_line_to (cr, x + r * 1.2, y);
      cairo_line_to (cr, x, y + r * 1.2);
      cairo_line_to (cr, x - r * 1.2, y);
      cairo_close_path (cr);
      break;
    default:
      cairo_arc (cr, x, y, r, 0, 2 * G_PI);
      break;
    }
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_width (cr, MAX (1, r * 0.4));
  if (hollow)
    {
      ls_painter_color (cr, p->theme->background, 1);
      cairo_fill_preserve (cr);
      ls_painter_color (cr, ls_chart_theme_color (p->theme, color), 1);
      cairo_stroke (cr);
    }
  else
    {
      ls_painter_color (cr, ls_chart_theme_color (p->theme, color), 1);
      cairo_fill_preserve (cr);
      ls_painter_color (cr, p->theme->background, 1);
      cairo_set_line_width (cr, MAX (0.75, r * 0.25));
      cairo_stroke (cr);
    }
}
