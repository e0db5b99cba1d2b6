/* Charts to files: PNG, SVG or PDF, several charts on one page. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "app/chart/chart.h"

#define LS_CHART_MAX_SIZE 16384

/* The page when no size is given: 1280 x 800 for one chart, 1280 wide and
 * 560 high per chart for several. */
void ls_chart_page_default_size (guint n, int *width, int *height);

/* Draws the charts on a page of width x height, in a grid whose cells are
 * as close to 16:10 as the page allows. */
void ls_chart_draw_page (ls_chart *const *charts, guint n, cairo_t *cr, double width, double height, gboolean dark);

/* Writes the charts to path ("png", "svg" or "pdf"; width and height in
 * pixels, or points for svg and pdf; <= 0: the default size). SVG carries
 * the charts' texts in <title> and <desc>, PDF in its metadata, so both can
 * be searched and read aloud. The file is replaced in one step: a failure
 * leaves no partial file. */
gboolean ls_chart_export (ls_chart *const *charts, guint n, const char *path, const char *format, int width,
                          int height, gboolean dark, GError **error);

/* The same page as bytes (PNG, SVG or PDF) instead of a file; `what` names
 * it in errors. NULL with the error. */
GByteArray *ls_chart_export_bytes (ls_chart *const *charts, guint n, const char *what, const char *format, int width,
                                   int height, gboolean dark, GError **error);

/* Writes data to path in one step (app/file/file-replace.h: a partial file
 * beside it, synced and renamed over it), so a failure or a stop leaves no
 * partial file; the error (LS_CHART_ERROR_WRITE) names path and says why
 * in words ("its folder does not exist", "permission denied"). */
gboolean ls_write_file_replacing (const char *path, const void *data, gsize len, GError **error);
