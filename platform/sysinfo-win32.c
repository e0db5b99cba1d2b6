/* What Windows machine this is. */
#include "sysinfo.h"

#include <stdio.h>
#include <string.h>

#include <windows.h>

/* RtlGetVersion tells the truth; GetVersionEx reports whatever the
 * executable's manifest claims to support. */
typedef LONG (WINAPI *rtl_get_version_fn) (OSVERSIONINFOW *info);

static void
read_version (ls_sysinfo *out)
{
  OSVERSIONINFOW info;
  HMODULE ntdll = GetModuleHandleW (L"ntdll.dll");
  FARPROC p = ntdll ? GetProcAddress (ntdll, "RtlGetVersion") : NULL;
  rtl_get_version_fn fn;

  memset (&info, 0, sizeof info);
  info.dwOSVersionInfoSize = sizeof info;
  if (p)
    {
      memcpy (&fn, &p, sizeof fn);
      if (fn (&info) != 0)
        info.dwMajorVersion = 0;
    }
  if (info.dwMajorVersion == 0)
    {
      snprintf (out->os_name, sizeof out->os_name, "Windows");
      snprintf (out->kernel, sizeof out->kernel, "NT");
      return;
    }
  snprintf (out->os_name, sizeof out->os_name, "Windows %lu.%lu build %lu", (unsigned long) info.dwMajorVersion,
            (unsigned long) info.dwMinorVersion, (unsigned long) info.dwBuildNumber);
  snprintf (out->kernel, sizeof out->kernel, "NT %lu.%lu.%lu", (unsigned long) info.dwMajorVersion,
            (unsigned long) info.dwMinorVersion, (unsigned long) info.dwBuildNumber);
}

/* Wine's ntdll exports wine_get_version; Windows' does not. Runs under Wine
 * are recorded as "Windows (Wine 8.0)", so that nobody takes Wine's timings
 * for Windows'. */
typedef const char *(CDECL *wine_get_version_fn) (void);

static void
read_wine (ls_sysinfo *out)
{
  HMODULE ntdll = GetModuleHandleW (L"ntdll.dll");
  FARPROC p = ntdll ? GetProcAddress (ntdll, "wine_get_version") : NULL;
  wine_get_version_fn fn;
  const char *version;

  if (!p)
    return;
  memcpy (&fn, &p, sizeof fn);
  version = fn ();
  snprintf (out->os_name, sizeof out->os_name, "Windows (Wine %s)", version && *version ? version : "?");
  size_t n = strlen (out->kernel);
  snprintf (out->kernel + n, sizeof out->kernel - n, " (Wine %s)", version && *version ? version : "?");
}

static const char *
arch_name (WORD arch)
{
  switch (arch)
    {
    case PROCESSOR_ARCHITECTURE_AMD64: return "x86_64";
    case PROCESSOR_ARCHITECTURE_INTEL: return "x86";
    case PROCESSOR_ARCHITECTURE_ARM: return "arm";
#ifdef PROCESSOR_ARCHITECTURE_ARM64
    case PROCESSOR_ARCHITECTURE_ARM64: return "aarch64";
#endif
    case PROCESSOR_ARCHITECTURE_IA64: return "ia64";
    default: return "unknown";
    }
}

static void
read_cpu_model (ls_sysinfo *out)
{
  char value[sizeof out->cpu_model];
  DWORD size = sizeof value - 1;
  LSTATUS rc = RegGetValueA (HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                             "ProcessorNameString", RRF_RT_REG_SZ, NULL, value, &size);
  if (rc != ERROR_SUCCESS || size == 0)
    {
      snprintf (out->cpu_model, sizeof out->cpu_model, "unknown");
      return;
    }
  value[sizeof value - 1] = '\0';
  /* The registry value is often padded with spaces on either side. */
  const char *s = value;
  while (*s == ' ')
    s++;
  size_t n = strlen (s);
  while (n > 0 && s[n - 1] == ' ')
    n--;
  if (n == 0)
    snprintf (out->cpu_model, sizeof out->cpu_model, "unknown");
  else
    snprintf (out->cpu_model, sizeof out->cpu_model, "%.*s", (int) n, s);
}

static int
popcount64 (unsigned long long v)
{
  int n = 0;
  for (; v; v &= v - 1)
    n++;
  return n;
}

int
ls_sysinfo_read (ls_sysinfo *out, ls_error *err)
{
  SYSTEM_INFO si;
  MEMORYSTATUSEX mem;
  DWORD_PTR process_mask = 0, system_mask = 0;

  if (!out)
    return ls_error_set (err, LS_ERR_INVALID, "ls_sysinfo_read: no output");
  memset (out, 0, sizeof *out);

  out->logical_cores = (int) GetActiveProcessorCount (ALL_PROCESSOR_GROUPS);
  GetNativeSystemInfo (&si);
  if (out->logical_cores <= 0)
    out->logical_cores = (int) si.dwNumberOfProcessors;
  if (out->logical_cores <= 0)
    out->logical_cores = 1;

  /* The mask only covers the process's processor group (at most 64). */
  if (GetProcessAffinityMask (GetCurrentProcess (), &process_mask, &system_mask) && process_mask)
    out->affinity_cores = popcount64 ((unsigned long long) process_mask);
  else
    out->affinity_cores = out->logical_cores;

  mem.dwLength = sizeof mem;
  if (!GlobalMemoryStatusEx (&mem))
    return ls_error_set_os (err, "GlobalMemoryStatusEx");
  out->total_ram_bytes = (uint64_t) mem.ullTotalPhys;

  read_version (out);
  read_wine (out);
  snprintf (out->arch, sizeof out->arch, "%s", arch_name (si.wProcessorArchitecture));
  read_cpu_model (out);

  DWORD size = (DWORD) sizeof out->hostname;
  if (!GetComputerNameExA (ComputerNameDnsHostname, out->hostname, &size) || !out->hostname[0])
    {
      size = (DWORD) sizeof out->hostname;
      if (!GetComputerNameA (out->hostname, &size))
        snprintf (out->hostname, sizeof out->hostname, "unknown");
    }
  return LS_OK;
}

static uint64_t
filetime_100ns (const FILETIME *t)
{
  return ((uint64_t) t->dwHighDateTime << 32) | t->dwLowDateTime;
}

int
ls_sysinfo_cpu_times (ls_cpu_times *out, ls_error *err)
{
  FILETIME idle, kernel, user;

  if (!out)
    return ls_error_set (err, LS_ERR_INVALID, "ls_sysinfo_cpu_times: no output");
  memset (out, 0, sizeof *out);
  if (!GetSystemTimes (&idle, &kernel, &user))
    return ls_error_set_os (err, "GetSystemTimes");
  /* Summed over every processor; kernel time includes idle time. */
  uint64_t total = filetime_100ns (&kernel) + filetime_100ns (&user);
  uint64_t idle_t = filetime_100ns (&idle);
  out->total_ns = total * 100;
  out->busy_ns = (total > idle_t ? total - idle_t : 0) * 100;
  out->cores = (int) GetActiveProcessorCount (ALL_PROCESSOR_GROUPS);
  if (out->cores <= 0)
    out->cores = 1;
  return LS_OK;
}
