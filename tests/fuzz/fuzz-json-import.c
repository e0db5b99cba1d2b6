/* libFuzzer: `loadscope import FILE.json` (app/store/import.c) of any bytes
 * into a fresh store; what it accepts must export and import again. */
#include "fuzz-import.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_import ("input.json", data, size);
  return 0;
}
