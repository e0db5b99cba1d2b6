/* The one bridge from the lower layers' errors (platform/error.h: an
 * ls_error with an LS_ERR_* code and a message) to GError, for app/ and
 * ui/. The message is kept word for word; the code maps one to one. */
#pragma once

#include <glib.h>

#include "platform/error.h"

#define LS_LOADER_ERROR (ls_loader_error_quark ())
GQuark ls_loader_error_quark (void);

/* One per LS_ERR_* code. */
typedef enum {
  LS_LOADER_ERROR_FAILED,      /* LS_OK or a code this build does not know */
  LS_LOADER_ERROR_OS,          /* LS_ERR_OS: a system call failed */
  LS_LOADER_ERROR_TIMEOUT,     /* LS_ERR_TIMEOUT */
  LS_LOADER_ERROR_INVALID,     /* LS_ERR_INVALID: bad input (usage, dataset) */
  LS_LOADER_ERROR_NOT_FOUND,   /* LS_ERR_NOT_FOUND */
  LS_LOADER_ERROR_EXEC,        /* LS_ERR_EXEC: a child could not be started */
  LS_LOADER_ERROR_CLOSED,      /* LS_ERR_CLOSED */
  LS_LOADER_ERROR_NOMEM,       /* LS_ERR_NOMEM */
  LS_LOADER_ERROR_UNSUPPORTED, /* LS_ERR_UNSUPPORTED */
} ls_loader_error;

/* The GError code for an LS_ERR_* code. */
ls_loader_error ls_loader_error_from_code (int code);

/* Sets *error (when error is not NULL) to e's message in LS_LOADER_ERROR
 * with e's code mapped; an empty message reads "unknown error". Returns
 * FALSE, so a function can end with `return ls_error_to_gerror (&err, error);`. */
gboolean ls_error_to_gerror (const ls_error *e, GError **error);
