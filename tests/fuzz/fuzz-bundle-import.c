/* libFuzzer: `loadscope import FILE.sqlite` (app/store/import.c) of any
 * bytes behind SQLite's 16-byte magic, so every input takes the bundle
 * path, into a fresh store; what it accepts must export and import again. */
#include <stdlib.h>
#include <string.h>

#include "fuzz-import.h"

#define MAGIC "SQLite format 3" /* and its NUL: 16 bytes */

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  uint8_t *copy = malloc (size < 16 ? 16 : size);
  if (!copy)
    return 0;
  memcpy (copy, data, size);
  memcpy (copy, MAGIC, 16);
  fuzz_import ("input.sqlite", copy, size < 16 ? 16 : size);
  free (copy);
  return 0;
}
