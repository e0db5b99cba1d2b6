/* loader/cuda-driver.h declares the driver API by hand (no toolkit is
 * needed to build); where the toolkit's cuda.h is found, its values and
 * sizes must be the same. */
#include <cuda.h>
#include <stdio.h>

#include "tests/cuda-driver-abi.h"

extern const long long ls_cuda_abi_ours[];
static const long long theirs[] = { LS_CUDA_ABI_NAMES (LS_CUDA_ABI_VALUE) };
static const char *const names[] = { LS_CUDA_ABI_NAMES (LS_CUDA_ABI_TEXT) };

int
main (void)
{
  int bad = 0;
  for (size_t i = 0; i < sizeof theirs / sizeof theirs[0]; i++)
    if (ls_cuda_abi_ours[i] != theirs[i])
      {
        fprintf (stderr, "%s: loader/cuda-driver.h has %lld, cuda.h %lld\n", names[i], ls_cuda_abi_ours[i], theirs[i]);
        bad = 1;
      }
  printf ("%zu values compared with cuda.h (CUDA_VERSION %d)\n", sizeof theirs / sizeof theirs[0], CUDA_VERSION);
  return bad;
}
