/* loader/cuda-driver.h's values, for test-cuda-driver-abi.c. */
#include "loader/cuda-driver.h"
#include "tests/cuda-driver-abi.h"

extern const long long ls_cuda_abi_ours[];
const long long ls_cuda_abi_ours[] = { LS_CUDA_ABI_NAMES (LS_CUDA_ABI_VALUE) };
