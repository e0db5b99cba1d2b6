#include "handle.h"

#include <errno.h>
#include <stdlib.h>

int
ls_handle_parse (const char *text, ls_handle *out)
{
  char *end = NULL;
  long long v;

  if (!text || !*text)
    return -1;
  errno = 0;
  v = strtoll (text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 0)
    return -1;
  *out = (ls_handle) v;
  return 0;
}
