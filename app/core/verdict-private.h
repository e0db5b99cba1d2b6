/* What the files of the verdict share, for app/core/verdict*.c alone:
 * reading a run summary, a figure in words, the knobs the findings name,
 * and the steps of a run's verdict that verdict.c (one run) and
 * verdict-sweep.c (a sweep) both take. The small readers are static
 * inline, as they were static in one file. */
#pragma once

#include <json-glib/json-glib.h>
#include <string.h>

#include "app/core/json-util.h"
#include "app/core/summary-keys.h"
#include "app/core/verdict.h"

/* ---- reading a summary ---------------------------------------------- */

static inline JsonObject *
obj (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static inline double
num2 (JsonObject *o, const char *outer, const char *name)
{
  return ls_json_number_or (obj (o, outer), name, -1);
}

static inline gboolean
flag (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN && json_node_get_boolean (n);
}

static inline const char *
str (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING ? json_node_get_string (n)
                                                                                         : NULL;
}

static inline double
peak_memory (JsonObject *o)
{
  double pss = num2 (o, "memory", LS_KEY_PSS_PEAK);
  return pss >= 0 ? pss : num2 (o, "memory", "private_peak_bytes");
}

/* The verdict's sentences are whole formats, one per wording, each through
 * the catalogue (app/core/i18n.h); what is put into them is a figure with
 * its unit ("84 ms", "1.2 GB"), a knob as PyTorch spells it, or a phrase
 * marked on its own that reads the same wherever it is put. */

/* "84 ms", "1.6 ms", "0.12 ms". */
static inline char *
ms_text (double ms)
{
  if (ms >= 10)
    return g_strdup_printf ("%.0f ms", ms);
  if (ms >= 1)
    return g_strdup_printf ("%.1f ms", ms);
  return g_strdup_printf ("%.2f ms", ms);
}

static inline char *
bytes_text (double b)
{
  if (b >= 1e9)
    return g_strdup_printf ("%.1f GB", b / 1e9);
  return g_strdup_printf ("%.0f MB", b / 1e6);
}

static inline const char *
much (double a, double b)
{
  return a >= 10 * b ? "\u226b" : ">";
}

/* No GPU consumer: the none sink, which is also where a script runs its
 * step on the CPU. Nothing said about such a run speaks of a GPU. */
static inline gboolean
no_gpu (JsonObject *o)
{
  return g_strcmp0 (str (o, "sink"), "none") == 0;
}

/* A run of the user's own script (--target pytorch). */
static inline gboolean
is_script_run (JsonObject *o)
{
  JsonObject *t = obj (o, "target");
  const char *kind = t ? str (t, "kind") : NULL;
  return kind && strcmp (kind, "pytorch") == 0;
}

/* What the loader has to keep up with, which picks a sentence's wording:
 * "keep the GPU busy", "keep up with the training step on the CPU", "keep
 * up with a 20 ms step". */
typedef enum { KEEP_GPU, KEEP_SCRIPT_CPU, KEEP_STEP } keep_up;

static inline keep_up
keep_up_of (JsonObject *o)
{
  if (!no_gpu (o))
    return KEEP_GPU;
  return is_script_run (o) ? KEEP_SCRIPT_CPU : KEEP_STEP;
}

/* Cores the run had: its own record, else the caller's, else this machine's. */
static inline int
cores_of (JsonObject *o, int cores)
{
  double c = num2 (o, "machine_busy", "cores");
  if (c >= 1)
    return (int) c;
  return cores > 0 ? cores : (int) g_get_num_processors ();
}

/* CPU time of loading one batch (runner and workers), ms. */
static inline double
cpu_per_batch (JsonObject *o)
{
  double per_sample = ls_json_number_or (o, "cpu_ms_per_sample", -1);
  double bs = ls_json_number_or (o, "batch_size", -1);
  return per_sample >= 0 && bs > 0 ? per_sample * bs : -1;
}

/* ---- building ------------------------------------------------------- */

/* The knobs the findings name, applied to the run's to make "suggested". */
typedef struct {
  gint64 workers;   /* -1: unchanged */
  gint64 prefetch;  /* -1: unchanged */
  int pin_memory;   /* -1 unchanged, 1 pin staging */
  int non_blocking; /* -1 unchanged, 1 on */
  int persistent;   /* -1 unchanged, 1 on */
} knob_change;

static inline void
add (GPtrArray *to, char *sentence)
{
  g_ptr_array_add (to, sentence);
}

/* The verdict's lists made, nothing said yet (verdict.c). */
void ls_verdict_init (ls_verdict *v);

/* The verdict of run o; the knobs its findings name in *out_change
 * (verdict.c). */
void ls_verdict_of_run (JsonObject *o, int machine_cores, gboolean busy_warning, ls_verdict *v,
                        knob_change *out_change);

/* The run's configuration as PyTorch code with the change applied; NULL
 * when the change names no knob or changes nothing (verdict-findings.c). */
char *ls_verdict_suggested_dataloader (JsonObject *o, const knob_change *c);

/* Too few measured batches, a busy machine, more workers than cores, a
 * simulated GPU, skipped samples: said whatever the limit. */
void ls_verdict_run_warnings (JsonObject *o, int cores, gboolean busy_warning, ls_verdict *v);

/* The loading-bound sentences: what the cores allow and which knob. */
void ls_verdict_loading_findings (JsonObject *o, int cores, double step_ms, ls_verdict *v, knob_change *change);
