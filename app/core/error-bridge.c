#include "app/core/error-bridge.h"
#include "app/core/i18n.h"

G_DEFINE_QUARK (loadscope-loader-error-quark, ls_loader_error)

ls_loader_error
ls_loader_error_from_code (int code)
{
  switch (code)
    {
    case LS_ERR_OS:
      return LS_LOADER_ERROR_OS;
    case LS_ERR_TIMEOUT:
      return LS_LOADER_ERROR_TIMEOUT;
    case LS_ERR_INVALID:
      return LS_LOADER_ERROR_INVALID;
    case LS_ERR_NOT_FOUND:
      return LS_LOADER_ERROR_NOT_FOUND;
    case LS_ERR_EXEC:
      return LS_LOADER_ERROR_EXEC;
    case LS_ERR_CLOSED:
      return LS_LOADER_ERROR_CLOSED;
    case LS_ERR_NOMEM:
      return LS_LOADER_ERROR_NOMEM;
    case LS_ERR_UNSUPPORTED:
      return LS_LOADER_ERROR_UNSUPPORTED;
    default:
      return LS_LOADER_ERROR_FAILED;
    }
}

gboolean
ls_error_to_gerror (const ls_error *e, GError **error)
{
  g_return_val_if_fail (e != NULL, FALSE);
  g_set_error_literal (error, LS_LOADER_ERROR, ls_loader_error_from_code (e->code),
                       e->message[0] ? e->message : _("unknown error"));
  return FALSE;
}
