/* The names whose values loader/cuda-driver.h declares by hand, checked
 * against cuda.h by test-cuda-driver-abi.c (each list is compiled once with
 * each header: they cannot share a file). */
#define LS_CUDA_ABI_NAMES(X)                      \
  X (CUDA_SUCCESS)                                \
  X (CUDA_ERROR_INVALID_VALUE)                    \
  X (CUDA_ERROR_OUT_OF_MEMORY)                    \
  X (CUDA_ERROR_NOT_INITIALIZED)                  \
  X (CUDA_ERROR_STUB_LIBRARY)                     \
  X (CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)       \
  X (CUDA_ERROR_DEVICE_UNAVAILABLE)               \
  X (CUDA_ERROR_NO_DEVICE)                        \
  X (CUDA_ERROR_INVALID_DEVICE)                   \
  X (CUDA_ERROR_DEVICE_NOT_LICENSED)              \
  X (CUDA_ERROR_INVALID_IMAGE)                    \
  X (CUDA_ERROR_INVALID_CONTEXT)                  \
  X (CUDA_ERROR_NO_BINARY_FOR_GPU)                \
  X (CUDA_ERROR_INVALID_PTX)                      \
  X (CUDA_ERROR_JIT_COMPILER_NOT_FOUND)           \
  X (CUDA_ERROR_UNSUPPORTED_PTX_VERSION)          \
  X (CUDA_ERROR_INVALID_HANDLE)                   \
  X (CUDA_ERROR_NOT_FOUND)                        \
  X (CUDA_ERROR_NOT_READY)                        \
  X (CUDA_ERROR_ILLEGAL_ADDRESS)                  \
  X (CUDA_ERROR_LAUNCH_FAILED)                    \
  X (CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)       \
  X (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)           \
  X (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)   \
  X (CUDA_ERROR_UNKNOWN)                          \
  X (CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)    \
  X (CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)              \
  X (CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)           \
  X (CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)           \
  X (CU_STREAM_NON_BLOCKING)                      \
  X (CU_EVENT_DEFAULT)                            \
  X (sizeof (CUresult))                           \
  X (sizeof (CUdevice))                           \
  X (sizeof (CUdeviceptr))

#define LS_CUDA_ABI_VALUE(name) (long long) (name),
#define LS_CUDA_ABI_TEXT(name) #name,
