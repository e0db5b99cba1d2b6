/* Exporting runs to a file whose name says the format, as the window's
 * Export does: .csv (one row per run), .json (the exchange format,
 * indented), .sqlite or .db (a bundle, app/store/export.h), or .png, .svg,
 * .pdf (the headline charts of the sweep of the first of the runs that
 * belongs to one, on one page). Errors name the file and say why. */
#pragma once

#include <glib.h>

#include "app/store/store.h"

typedef enum {
  LS_EXPORT_UNKNOWN,
  LS_EXPORT_CSV,
  LS_EXPORT_JSON,
  LS_EXPORT_SQLITE,
  LS_EXPORT_PNG,
  LS_EXPORT_SVG,
  LS_EXPORT_PDF,
} ls_export_kind;

/* The format path's extension names (exact case), LS_EXPORT_UNKNOWN for any other. */
ls_export_kind ls_export_kind_for_path (const char *path);

/* The extensions, as an error or a file chooser says them:
 * ".csv, .json, .sqlite, .png, .svg or .pdf". */
#define LS_EXPORT_EXTENSIONS_TEXT ".csv, .json, .sqlite, .png, .svg or .pdf"

/* Writes the runs `ids` of store to path in the format its extension names;
 * dark: charts in the dark theme. FALSE with the error when the extension is
 * none of these (G_IO_ERROR_INVALID_ARGUMENT), when charts are asked of runs
 * outside any sweep (G_IO_ERROR_INVALID_ARGUMENT), or when the store cannot
 * be read or the file written. */
gboolean ls_export_by_extension (ls_store *store, GArray *ids, const char *path, gboolean dark, GError **error);
