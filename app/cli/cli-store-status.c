#include "app/cli/cli-store-status.h"

#include "app/store/store.h"

int
ls_cli_store_error_status (const GError *error)
{
  if (!error || error->domain != LS_STORE_ERROR)
    return 1;
  switch (error->code)
    {
    case LS_STORE_ERROR_NOT_FOUND:
    case LS_STORE_ERROR_INVALID:
    case LS_STORE_ERROR_VERSION:
    case LS_STORE_ERROR_OPEN:
      return 2;
    default:
      return 1;
    }
}
