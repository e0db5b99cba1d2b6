#include "app/chart/chart-export.h"

#include <glib/gi18n-lib.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <string.h>

#include "app/chart/chart-render.h"
#include "app/chart/chart-theme.h"
#include "app/file/file-replace.h"

void
ls_chart_page_default_size (guint n, int *width, int *height)
{
  *width = 1280;
  *height = n <= 1 ? 800 : 560 * (int) n;
}

/* Columns for n cells on the page: the cells' shape nearest to 16:10. */
static guint
grid_columns (guint n, double width, double height)
{
  guint best = 1;
  double best_score = INFINITY;
  for (guint cols = 1; cols <= n; cols++)
    {
      guint rows = (n + cols - 1) / cols;
      double aspect = (width / cols) / (height / rows);
      /* Empty cells cost a little, so 3 charts do not become 2 x 2 lightly. */
      double score = fabs (log (aspect / 1.6)) + 0.15 * (rows * cols - n);
      if (score < best_score)
        {
          best_score = score;
          best = cols;
        }
    }
  return best;
}

void
ls_chart_draw_page (ls_chart *const *charts, guint n, cairo_t *cr, double width, double height, gboolean dark)
{
  const ls_chart_theme *theme = ls_chart_theme_get (dark);
  cairo_save (cr);
  cairo_set_source_rgb (cr, theme->background.r, theme->background.g, theme->background.b);
  cairo_paint (cr);
  if (n == 0)
    {
      cairo_restore (cr);
      return;
    }
  guint cols = grid_columns (n, width, height), rows = (n + cols - 1) / cols;
  double cell_w = width / cols, cell_h = height / rows;
  for (guint i = 0; i < n; i++)
    {
      double x = (i % cols) * cell_w, y = (i / cols) * cell_h;
      ls_chart_render (charts[i], cr, round (x), round (y), round (x + cell_w) - round (x),
                       round (y + cell_h) - round (y), dark);
      /* A hairline between cells. */
      cairo_set_source_rgb (cr, theme->grid.r, theme->grid.g, theme->grid.b);
      cairo_set_line_width (cr, 1);
      if (i % cols > 0)
        {
          cairo_move_to (cr, floor (x) + 0.5, y + cell_h * 0.04);
          cairo_line_to (cr, floor (x) + 0.5, y + cell_h * 0.96);
        }
      if (i / cols > 0)
        {
          cairo_move_to (cr, x + cell_w * 0.02, floor (y) + 0.5);
          cairo_line_to (cr, x + cell_w * 0.98, floor (y) + 0.5);
        }
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static char *
describe_all (ls_chart *const *charts, guint n, gboolean titles_only)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = titles_only ? g_strdup (charts[i]->title) : ls_chart_describe (charts[i]);
      if (s->len > 0)
        g_string_append (s, titles_only ? "; " : "\n\n");
      g_string_append (s, text);
    }
  return g_string_free (s, FALSE);
}

/* <title> and <desc> right after the <svg ...> start tag. */
static gboolean
add_svg_text (GByteArray *svg, ls_chart *const *charts, guint n)
{
  g_byte_array_append (svg, (const guint8 *) "", 1); /* a terminating NUL while searching */
  const char *text = (const char *) svg->data;
  const char *start = strstr (text, "<svg");
  const char *end = start ? strchr (start, '>') : NULL;
  g_byte_array_set_size (svg, svg->len - 1);
  if (!end)
    return FALSE;
  g_autofree char *title = describe_all (charts, n, TRUE);
  g_autofree char *desc = describe_all (charts, n, FALSE);
  g_autofree char *title_xml = g_markup_escape_text (title, -1);
  g_autofree char *desc_xml = g_markup_escape_text (desc, -1);
  g_autofree char *insert = g_strdup_printf ("\n<title>%s</title>\n<desc>%s</desc>", title_xml, desc_xml);
  guint at = (guint) (end + 1 - text);
  g_byte_array_set_size (svg, svg->len + (guint) strlen (insert));
  memmove (svg->data + at + strlen (insert), svg->data + at, svg->len - at - strlen (insert));
  memcpy (svg->data + at, insert, strlen (insert));
  return TRUE;
}

gboolean
ls_write_file_replacing (const char *path, const void *data, gsize len, GError **error)
{
  g_autoptr (GError) write_error = NULL;
  if (!ls_file_replace (path, data, len, &write_error))
    {
      /* The message names the file asked for and says why in words. */
      g_set_error_literal (error, LS_CHART_ERROR, LS_CHART_ERROR_WRITE, write_error->message);
      return FALSE;
    }
  return TRUE;
}

GByteArray *
ls_chart_export_bytes (ls_chart *const *charts, guint n, const char *what, const char *format, int width, int height,
                       gboolean dark, GError **error)
{
  g_return_val_if_fail (charts != NULL || n == 0, NULL);
  g_return_val_if_fail (what != NULL && format != NULL, NULL);
  int dw, dh;
  ls_chart_page_default_size (n, &dw, &dh);
  if (width <= 0)
    width = dw;
  if (height <= 0)
    height = dh;
  if (width > LS_CHART_MAX_SIZE || height > LS_CHART_MAX_SIZE)
    {
      g_set_error (error, LS_CHART_ERROR, LS_CHART_ERROR_SIZE, _("%d x %d: charts can be at most %d x %d"), width, height,
                   LS_CHART_MAX_SIZE, LS_CHART_MAX_SIZE);
      return NULL;
    }

  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  cairo_surface_t *surface;
  gboolean png = strcmp (format, "png") == 0, svg = strcmp (format, "svg") == 0;
  if (png)
    surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  else if (svg)
    {
      surface = cairo_svg_surface_create_for_stream (append_bytes, bytes, width, height);
      cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PX);
    }
  else if (strcmp (format, "pdf") == 0)
    {
      surface = cairo_pdf_surface_create_for_stream (append_bytes, bytes, width, height);
      g_autofree char *title = describe_all (charts, n, TRUE);
      g_autofree char *subject = describe_all (charts, n, FALSE);
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title);
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_SUBJECT, subject);
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Loadscope " LS_VERSION);
    }
  else
    {
      g_set_error (error, LS_CHART_ERROR, LS_CHART_ERROR_FORMAT, _("%s: not a chart format (png, svg or pdf)"), format);
      return NULL;
    }

  cairo_t *cr = cairo_create (surface);
  ls_chart_draw_page (charts, n, cr, width, height, dark);
  cairo_status_t status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && png)
    status = cairo_surface_write_to_png_stream (surface, append_bytes, bytes);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, LS_CHART_ERROR, LS_CHART_ERROR_DRAW, _("%s: drawing the charts failed: %s"), what,
                   cairo_status_to_string (status));
      return NULL;
    }
  if (svg && !add_svg_text (bytes, charts, n))
    {
      g_set_error (error, LS_CHART_ERROR, LS_CHART_ERROR_DRAW, _("%s: cairo wrote no <svg> element"), what);
      return NULL;
    }

  return g_steal_pointer (&bytes);
}

gboolean
ls_chart_export (ls_chart *const *charts, guint n, const char *path, const char *format, int width, int height,
                 gboolean dark, GError **error)
{
  g_return_val_if_fail (charts != NULL || n == 0, FALSE);
  g_return_val_if_fail (path != NULL && format != NULL, FALSE);
  g_autoptr (GByteArray) bytes = ls_chart_export_bytes (charts, n, path, format, width, height, dark, error);
  if (!bytes)
    return FALSE;

  return ls_write_file_replacing (path, bytes->data, bytes->len, error);
}

