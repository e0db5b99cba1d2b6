#include "app/core/machine-busy.h"

#include <string.h>

#include "platform/procmem.h"
#include "platform/process.h"
#include "platform/sysinfo.h"

static guint64
self_cpu_ns (void)
{
  uint64_t user = 0, sys = 0;
  ls_proccpu_read (ls_process_self_pid (), &user, &sys, NULL);
  return user + sys;
}

void
ls_machine_busy_begin (ls_machine_busy_mark *mark)
{
  ls_cpu_times t;
  ls_sysinfo info;

  memset (mark, 0, sizeof *mark);
  if (ls_sysinfo_read (&info, NULL) == LS_OK)
    {
      mark->cores = info.logical_cores;
      mark->affinity_cores = info.affinity_cores;
      mark->ram_bytes = info.total_ram_bytes;
    }
  mark->self_cpu_ns = self_cpu_ns ();
  mark->wall_us = g_get_monotonic_time ();
  if (ls_sysinfo_cpu_times (&t, NULL) == LS_OK)
    {
      mark->valid = TRUE;
      mark->busy_ns = t.busy_ns;
      mark->total_ns = t.total_ns;
      if (mark->cores <= 0)
        mark->cores = t.cores;
    }
}

double
ls_machine_busy_other_percent (guint64 machine_busy_ns, guint64 own_ns, double span_s)
{
  if (span_s <= 0)
    return -1;
  return machine_busy_ns > own_ns ? (double) (machine_busy_ns - own_ns) / 1e9 / span_s * 100.0 : 0.0;
}

void
ls_machine_busy_add (const ls_machine_busy_mark *mark, const ls_run_result *result, JsonObject *summary)
{
  ls_cpu_times t;
  gboolean valid = mark->valid && ls_sysinfo_cpu_times (&t, NULL) == LS_OK && t.busy_ns >= mark->busy_ns;
  double span_s = (g_get_monotonic_time () - mark->wall_us) / 1e6;
  guint64 own = self_cpu_ns () - mark->self_cpu_ns;
  for (size_t i = 0; i < result->n_workers; i++)
    own += result->workers[i].cpu_ns;

  JsonObject *o = json_object_new ();
  json_object_set_int_member (o, "cores", mark->affinity_cores > 0 ? mark->affinity_cores : mark->cores);
  json_object_set_int_member (o, "logical_cores", mark->cores);
  if (mark->ram_bytes)
    json_object_set_int_member (o, "ram_bytes", (gint64) mark->ram_bytes);
  else
    json_object_set_null_member (o, "ram_bytes");
  json_object_set_double_member (o, "span_s", span_s);
  if (valid && span_s > 0)
    {
      guint64 machine = t.busy_ns - mark->busy_ns;
      json_object_set_double_member (o, "machine_cpu_percent", (double) machine / 1e9 / span_s * 100.0);
      json_object_set_double_member (o, "own_cpu_percent", (double) own / 1e9 / span_s * 100.0);
      json_object_set_double_member (o, "other_cpu_percent", ls_machine_busy_other_percent (machine, own, span_s));
    }
  else
    {
      json_object_set_null_member (o, "machine_cpu_percent");
      json_object_set_double_member (o, "own_cpu_percent", span_s > 0 ? (double) own / 1e9 / span_s * 100.0 : 0);
      json_object_set_null_member (o, "other_cpu_percent");
    }
  json_object_set_object_member (summary, "machine_busy", o);
}
