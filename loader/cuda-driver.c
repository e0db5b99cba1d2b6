#include "loader/cuda-driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert (sizeof (void (*) (void)) == sizeof (void *), "function pointers are stored from dlsym()'s void *");
_Static_assert (offsetof (ls_cuda_driver, names) - offsetof (ls_cuda_driver, init) == 34 * sizeof (void *),
                "names[] has one entry per entry point");

/* Each entry point, newest version first. The _v2 memory calls have no
 * fallback: their first versions took 32-bit device pointers. The others'
 * older versions have the same signature. */
typedef struct {
  const char *names[2];
  size_t offset;
} cuda_symbol;

#define SYM(a, b, field) { { a, b }, offsetof (ls_cuda_driver, field) }
static const cuda_symbol cuda_symbols[] = {
  SYM ("cuInit", NULL, init),
  SYM ("cuDriverGetVersion", NULL, driver_get_version),
  SYM ("cuGetErrorName", NULL, get_error_name),
  SYM ("cuGetErrorString", NULL, get_error_string),
  SYM ("cuDeviceGetCount", NULL, device_get_count),
  SYM ("cuDeviceGet", NULL, device_get),
  SYM ("cuDeviceGetName", NULL, device_get_name),
  SYM ("cuDeviceGetAttribute", NULL, device_get_attribute),
  SYM ("cuDeviceGetPCIBusId", NULL, device_get_pci_bus_id),
  SYM ("cuDevicePrimaryCtxRetain", NULL, primary_ctx_retain),
  SYM ("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", primary_ctx_release),
  SYM ("cuCtxSetCurrent", NULL, ctx_set_current),
  SYM ("cuMemAlloc_v2", NULL, mem_alloc),
  SYM ("cuMemFree_v2", NULL, mem_free),
  SYM ("cuMemsetD8_v2", NULL, memset_d8),
  SYM ("cuMemHostAlloc", NULL, mem_host_alloc),
  SYM ("cuMemFreeHost", NULL, mem_free_host),
  SYM ("cuMemHostRegister_v2", "cuMemHostRegister", mem_host_register),
  SYM ("cuMemHostUnregister", NULL, mem_host_unregister),
  SYM ("cuStreamCreate", NULL, stream_create),
  SYM ("cuStreamDestroy_v2", "cuStreamDestroy", stream_destroy),
  SYM ("cuStreamSynchronize", NULL, stream_synchronize),
  SYM ("cuStreamWaitEvent", NULL, stream_wait_event),
  SYM ("cuEventCreate", NULL, event_create),
  SYM ("cuEventDestroy_v2", "cuEventDestroy", event_destroy),
  SYM ("cuEventRecord", NULL, event_record),
  SYM ("cuEventQuery", NULL, event_query),
  SYM ("cuEventSynchronize", NULL, event_synchronize),
  SYM ("cuEventElapsedTime_v2", "cuEventElapsedTime", event_elapsed_time),
  SYM ("cuMemcpyHtoDAsync_v2", NULL, memcpy_htod_async),
  SYM ("cuModuleLoadData", NULL, module_load_data),
  SYM ("cuModuleUnload", NULL, module_unload),
  SYM ("cuModuleGetFunction", NULL, module_get_function),
  SYM ("cuLaunchKernel", NULL, launch_kernel),
};
#undef SYM
_Static_assert (sizeof cuda_symbols / sizeof cuda_symbols[0] == 34, "one row per entry point");

#ifdef _WIN32
#define LS_CUDA_DEFAULT_LIBRARY "nvcuda.dll"
#else
#define LS_CUDA_DEFAULT_LIBRARY "libcuda.so.1"
#endif

int
ls_cuda_driver_load (ls_cuda_driver *d, ls_error *err)
{
  /* Tests point this at a stand-in driver (tests/fake-cuda-driver.c). */
  const char *override = getenv ("LOADSCOPE_CUDA_LIBRARY");
  const char *name = override && *override ? override : LS_CUDA_DEFAULT_LIBRARY;
  ls_error why = { 0 };

  memset (d, 0, sizeof *d);
  snprintf (d->library, sizeof d->library, "%s", name);
  d->lib = ls_dynlib_open (name, &why);
  if (!d->lib)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "%s not found (%s)", name, why.message);

  for (size_t i = 0; i < sizeof cuda_symbols / sizeof cuda_symbols[0]; i++)
    {
      const cuda_symbol *s = &cuda_symbols[i];
      void *p = NULL;
      for (size_t n = 0; n < 2 && s->names[n] && !p; n++)
        if ((p = ls_dynlib_symbol (d->lib, s->names[n], NULL)))
          d->names[i] = s->names[n];
      if (!p)
        {
          if (s->names[1])
            ls_error_set (err, LS_ERR_UNSUPPORTED, "%s has neither %s nor %s (a driver too old for this sink)",
                          d->library, s->names[0], s->names[1]);
          else
            ls_error_set (err, LS_ERR_UNSUPPORTED, "%s has no %s (a driver too old for this sink)", d->library,
                          s->names[0]);
          ls_cuda_driver_unload (d, 0);
          return LS_ERR_UNSUPPORTED;
        }
      memcpy ((char *) d + s->offset, &p, sizeof p);
    }
  return LS_OK;
}

void
ls_cuda_driver_unload (ls_cuda_driver *d, int initialised)
{
  if (!initialised)
    ls_dynlib_close (d->lib);
  memset (d, 0, sizeof *d);
}

const char *
ls_cuda_error_name (const ls_cuda_driver *d, CUresult e)
{
  const char *s = NULL;
  if (!d->get_error_name || d->get_error_name (e, &s) != CUDA_SUCCESS || !s)
    return "CUDA_ERROR_UNKNOWN";
  return s;
}

const char *
ls_cuda_error_text (const ls_cuda_driver *d, CUresult e)
{
  const char *s = NULL;
  if (!d->get_error_string || d->get_error_string (e, &s) != CUDA_SUCCESS || !s)
    return "unknown error";
  return s;
}
