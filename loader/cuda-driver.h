/* The CUDA driver API, loaded at run time (libcuda.so.1, nvcuda.dll) like
 * NVML: the build needs no CUDA toolkit and the program no CUDA runtime.
 * Only what the cuda sink uses is declared here, as cuda.h declares it (a
 * stable C ABI); the values are checked against cuda.h by
 * tests/test-cuda-driver-abi.c where the toolkit is installed. */
#pragma once

#include <stddef.h>

#include "platform/dynlib.h"
#include "platform/error.h"

#if defined(_WIN32) && !defined(_WIN64)
#define LS_CUDAAPI __stdcall
#else
#define LS_CUDAAPI
#endif

typedef int CUresult;               /* an int-sized enum */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* 64 bits on every 64-bit system */
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER 36
#define CUDA_ERROR_DEVICE_UNAVAILABLE 46
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_DEVICE_NOT_LICENSED 102
#define CUDA_ERROR_INVALID_IMAGE 200
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_NO_BINARY_FOR_GPU 209
#define CUDA_ERROR_INVALID_PTX 218
#define CUDA_ERROR_JIT_COMPILER_NOT_FOUND 221
#define CUDA_ERROR_UNSUPPORTED_PTX_VERSION 222
#define CUDA_ERROR_INVALID_HANDLE 400
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_ILLEGAL_ADDRESS 700
#define CUDA_ERROR_LAUNCH_FAILED 719
#define CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED 713
#define CUDA_ERROR_SYSTEM_DRIVER_MISMATCH 803
#define CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804
#define CUDA_ERROR_UNKNOWN 999

#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_PCI_BUS_ID 33
#define CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID 34
#define CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DEFAULT 0x0

/* The entry points, each under the name found (newest version first). */
typedef struct ls_cuda_driver {
  ls_dynlib *lib;
  char library[300]; /* the name it was loaded by, for messages */
  CUresult (LS_CUDAAPI *init) (unsigned int flags);
  CUresult (LS_CUDAAPI *driver_get_version) (int *version);
  CUresult (LS_CUDAAPI *get_error_name) (CUresult e, const char **name);
  CUresult (LS_CUDAAPI *get_error_string) (CUresult e, const char **text);
  CUresult (LS_CUDAAPI *device_get_count) (int *count);
  CUresult (LS_CUDAAPI *device_get) (CUdevice *device, int ordinal);
  CUresult (LS_CUDAAPI *device_get_name) (char *name, int len, CUdevice device);
  CUresult (LS_CUDAAPI *device_get_attribute) (int *value, int attribute, CUdevice device);
  CUresult (LS_CUDAAPI *device_get_pci_bus_id) (char *bus_id, int len, CUdevice device);
  CUresult (LS_CUDAAPI *primary_ctx_retain) (CUcontext *ctx, CUdevice device);
  CUresult (LS_CUDAAPI *primary_ctx_release) (CUdevice device);
  CUresult (LS_CUDAAPI *ctx_set_current) (CUcontext ctx);
  CUresult (LS_CUDAAPI *mem_alloc) (CUdeviceptr *p, size_t bytes);
  CUresult (LS_CUDAAPI *mem_free) (CUdeviceptr p);
  CUresult (LS_CUDAAPI *memset_d8) (CUdeviceptr p, unsigned char value, size_t n);
  CUresult (LS_CUDAAPI *mem_host_alloc) (void **p, size_t bytes, unsigned int flags);
  CUresult (LS_CUDAAPI *mem_free_host) (void *p);
  CUresult (LS_CUDAAPI *mem_host_register) (void *p, size_t bytes, unsigned int flags);
  CUresult (LS_CUDAAPI *mem_host_unregister) (void *p);
  CUresult (LS_CUDAAPI *stream_create) (CUstream *stream, unsigned int flags);
  CUresult (LS_CUDAAPI *stream_destroy) (CUstream stream);
  CUresult (LS_CUDAAPI *stream_synchronize) (CUstream stream);
  CUresult (LS_CUDAAPI *stream_wait_event) (CUstream stream, CUevent event, unsigned int flags);
  CUresult (LS_CUDAAPI *event_create) (CUevent *event, unsigned int flags);
  CUresult (LS_CUDAAPI *event_destroy) (CUevent event);
  CUresult (LS_CUDAAPI *event_record) (CUevent event, CUstream stream);
  CUresult (LS_CUDAAPI *event_query) (CUevent event);
  CUresult (LS_CUDAAPI *event_synchronize) (CUevent event);
  CUresult (LS_CUDAAPI *event_elapsed_time) (float *ms, CUevent start, CUevent end);
  CUresult (LS_CUDAAPI *memcpy_htod_async) (CUdeviceptr dst, const void *src, size_t bytes, CUstream stream);
  CUresult (LS_CUDAAPI *module_load_data) (CUmodule *module, const void *image);
  CUresult (LS_CUDAAPI *module_unload) (CUmodule module);
  CUresult (LS_CUDAAPI *module_get_function) (CUfunction *fn, CUmodule module, const char *name);
  CUresult (LS_CUDAAPI *launch_kernel) (CUfunction fn, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                                        unsigned int block_x, unsigned int block_y, unsigned int block_z,
                                        unsigned int shared_bytes, CUstream stream, void **params, void **extra);
  /* The name each entry point was found under, in the order above (for
   * messages: "cuMemAlloc_v2 failed with ..."). */
  const char *names[34];
} ls_cuda_driver;

/* Index into names[] of an entry point: LS_CUDA_NAME (d, mem_alloc). */
#define LS_CUDA_NAME(d, field) \
  ((d)->names[(offsetof (ls_cuda_driver, field) - offsetof (ls_cuda_driver, init)) / sizeof (void *)])

/* Loads the driver ($LOADSCOPE_CUDA_LIBRARY, else libcuda.so.1 or
 * nvcuda.dll) and every entry point. On failure nothing stays loaded and
 * err (LS_ERR_UNSUPPORTED) says why: "<library> not found (<reason>)", or
 * the entry point it lacks. */
int ls_cuda_driver_load (ls_cuda_driver *d, ls_error *err);

/* After cuInit the driver is never unloaded (its threads outlive every
 * context); before, this closes it. Clears d either way. */
void ls_cuda_driver_unload (ls_cuda_driver *d, int initialised);

/* cuGetErrorName / cuGetErrorString, never NULL. */
const char *ls_cuda_error_name (const ls_cuda_driver *d, CUresult e);
const char *ls_cuda_error_text (const ls_cuda_driver *d, CUresult e);
