/* A team-review report: one file a teammate opens in a browser (HTML, self-
 * contained, no network request) or pastes into a pull request (Markdown,
 * its charts as PNG files beside it), holding the answer (recommendation,
 * verdict, the DataLoader line), the evidence (charts, the runs with the
 * knobs that differ) and the context (machines, data, Loadscope's version
 * and store). `loadscope report` and the window's History write it. */
#pragma once

#include <glib.h>

#include "app/report/report-data.h"
#include "app/store/store.h"

typedef enum {
  LS_REPORT_HTML,
  LS_REPORT_MARKDOWN,
} ls_report_format;

/* "html" or "md" (also "markdown"); FALSE for any other. */
gboolean ls_report_format_parse (const char *name, ls_report_format *format);

/* The HTML page (report-html.c). */
GString *ls_report_html (const ls_report *report, GError **error);

/* The Markdown text (report-md.c), its charts linked as `<stem>-<chart>.png`
 * beside path; writes those PNG files (each replaced in one step) and adds
 * their paths to written. */
GString *ls_report_markdown (const ls_report *report, const char *path, GPtrArray *written, GError **error);

/* Reads the selection from store and writes the report to path, replacing
 * it in one step (no half-written file is left: PNGs already written are
 * removed when the Markdown cannot be). Returns the report (for what to
 * say about it), or NULL with the error: LS_STORE_ERROR_NOT_FOUND for an
 * unknown run or sweep or an empty store, LS_CHART_ERROR_WRITE naming path
 * and why when it cannot be written. */
ls_report *ls_report_write (ls_store *store, const ls_report_selection *selection, ls_report_format format,
                            const char *path, GError **error);
