#include "app/core/run-diagnose.h"
#include "app/core/i18n.h"

#include <string.h>

#include "app/core/error-bridge.h"
#include "app/core/run-summary.h"
#include "app/core/summary-keys.h"
#include "platform/fs.h"

/* Each file of the dataset: a jpeg-dir's files in its class folders (as the
 * dataset lists them, any name), an HDF5 dataset's one file. */
static GPtrArray *
dataset_files (const ls_dataset_spec *spec)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  if (strcmp (spec->kind, "hdf5") == 0)
    g_ptr_array_add (files, g_strdup (spec->path));
  if (strcmp (spec->kind, "jpeg-dir") != 0)
    return files;
  ls_dir_entry *classes = NULL;
  size_t n_classes = 0;
  if (ls_fs_list_dir (spec->path, &classes, &n_classes, NULL) != LS_OK)
    return files;
  for (size_t c = 0; c < n_classes; c++)
    {
      if (classes[c].kind != LS_FS_DIR)
        continue;
      g_autofree char *dir = g_build_filename (spec->path, classes[c].name, NULL);
      ls_dir_entry *entries = NULL;
      size_t n = 0;
      if (ls_fs_list_dir (dir, &entries, &n, NULL) != LS_OK)
        continue;
      for (size_t i = 0; i < n; i++)
        if (entries[i].kind == LS_FS_FILE)
          g_ptr_array_add (files, g_build_filename (dir, entries[i].name, NULL));
      ls_fs_entries_free (entries, n);
    }
  ls_fs_entries_free (classes, n_classes);
  return files;
}

/* Reads every file once, so (b) finds them in the page cache. */
static void
warm_pass (GPtrArray *files)
{
  uint8_t *buf = NULL;
  size_t cap = 0, len = 0;
  for (guint i = 0; i < files->len; i++)
    ls_fs_read_file (files->pdata[i], &buf, &cap, &len, NULL);
  free (buf);
}

static guint
evict (GPtrArray *files, char *note, size_t note_len)
{
  guint dropped = 0;
  note[0] = '\0';
  for (guint i = 0; i < files->len; i++)
    {
      ls_error err = { 0 };
      if (ls_fs_drop_cache (files->pdata[i], &err) == LS_OK)
        dropped++;
      else if (!note[0])
        g_strlcpy (note, err.message, note_len);
    }
  return dropped;
}

static gboolean
run_part (const ls_diagnose_target *target, const ls_run_config *config, gboolean prepared, ls_diagnose_part *part,
          GError **error)
{
  ls_run_result r;

  memset (part, 0, sizeof *part);
  part->batch_ms = part->throughput_sps = part->wait_mean_ms = part->gpu_util_exact = -1;
  part->read_ms = part->decode_ms = part->transform_ms = part->write_ms = -1;
  if (!target->run (target->user, config, prepared, &r, error))
    return FALSE;
  part->ran = TRUE;
  part->status = r.status;
  g_strlcpy (part->error, r.error, sizeof part->error);
  part->measured_batches = r.batches > r.warmup_used ? r.batches - r.warmup_used : 0;
  if (r.measured_s > 0 && part->measured_batches > 0)
    {
      part->batch_ms = r.measured_s * 1e3 / (double) part->measured_batches;
      part->throughput_sps = r.throughput_sps;
    }
  if (r.wait_ms.valid)
    part->wait_mean_ms = r.wait_ms.mean;
  part->gpu_util_exact = r.gpu_util_exact;
  ls_stage_summary st;
  ls_run_stage_summary (&r, &st);
  if (st.valid)
    {
      part->read_ms = st.mean_ms[LS_STAGE_READ];
      part->decode_ms = st.mean_ms[LS_STAGE_DECODE];
      part->transform_ms = st.mean_ms[LS_STAGE_TRANSFORM];
      part->write_ms = st.mean_ms[LS_STAGE_WRITE];
    }
  ls_run_result_clear (&r);
  return TRUE;
}

static gboolean
interrupted (const ls_run_config *config)
{
  return config->interrupt && *config->interrupt;
}

/* Loadscope's loader: (a) fed from a filled arena, no workers. */
static gboolean
loader_run (void *user, const ls_run_config *config, gboolean prepared, ls_run_result *r, GError **error)
{
  ls_run_config c = *config;
  ls_error err = { 0 };
  if (prepared)
    {
      c.pool.num_workers = 0;
      c.pool.prepared = TRUE;
      c.pool.persistent_workers = FALSE;
    }
  return ls_run (&c, r, &err) == LS_OK || ls_error_to_gerror (&err, error);
}

static GPtrArray *
loader_files (void *user, char *note, size_t note_len)
{
  return dataset_files (user);
}

gboolean
ls_run_diagnose (const ls_run_config *config, ls_diagnose_result *out, GError **error)
{
  ls_diagnose_target target = { loader_run, loader_files, (void *) &config->pool.dataset };
  return ls_run_diagnose_target (config, &target, out, error);
}

gboolean
ls_run_diagnose_target (const ls_run_config *config, const ls_diagnose_target *target, ls_diagnose_result *out,
                        GError **error)
{
  memset (out, 0, sizeof *out);
  out->gpu_ms = out->prep_stall_ms = out->fetch_stall_ms = -1;

  /* (a) No loading: the first two batches are built, then the consumer
   * gets the same ones again and again. Both built batches are warm-up. */
  ls_run_config a = *config;
  if (a.warmup < 2)
    a.warmup = 2;
  a.on_started = NULL;
  a.on_workers = NULL;
  a.on_batch = NULL;
  a.on_memory = NULL;
  if (!run_part (target, &a, TRUE, &out->prepared, error))
    return FALSE;

  g_autoptr (GPtrArray) files = target->files (target->user, out->files_note, sizeof out->files_note);
  out->files = files->len;
  ls_run_config bc = a;
  bc.warmup = config->warmup;

  /* (c) cold first: what it reads stays cached for (b)'s warm pass. */
  if (!interrupted (config))
    {
      out->evicted = evict (files, out->evict_note, sizeof out->evict_note);
      if (!run_part (target, &bc, FALSE, &out->cold, error))
        return FALSE;
    }
  if (!interrupted (config))
    {
      warm_pass (files);
      if (!run_part (target, &bc, FALSE, &out->warm, error))
        return FALSE;
    }

  if (out->prepared.batch_ms >= 0)
    out->gpu_ms = out->prepared.batch_ms;
  if (out->warm.batch_ms >= 0 && out->gpu_ms >= 0)
    out->prep_stall_ms = MAX (0, out->warm.batch_ms - out->gpu_ms);
  if (out->cold.batch_ms >= 0 && out->warm.batch_ms >= 0)
    out->fetch_stall_ms = MAX (0, out->cold.batch_ms - out->warm.batch_ms);
  return TRUE;
}

static void
add_number (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  if (v < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, v);
}

static void
add_part (JsonBuilder *b, const char *name, const ls_diagnose_part *p, const char *what)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "what");
  json_builder_add_string_value (b, what);
  json_builder_set_member_name (b, "status");
  if (p->ran)
    json_builder_add_string_value (b, ls_run_status_name (p->status));
  else
    json_builder_add_string_value (b, "not run");
  json_builder_set_member_name (b, "error");
  if (p->ran && p->status != LS_RUN_DONE)
    json_builder_add_string_value (b, p->error);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "measured_batches");
  json_builder_add_int_value (b, (gint64) p->measured_batches);
  add_number (b, "batch_ms", p->batch_ms);
  add_number (b, LS_KEY_THROUGHPUT, p->throughput_sps);
  add_number (b, "wait_mean_ms", p->wait_mean_ms);
  add_number (b, LS_KEY_GPU_UTIL_EXACT, p->gpu_util_exact);
  json_builder_set_member_name (b, "stages_ms");
  json_builder_begin_object (b);
  add_number (b, "read", p->read_ms);
  add_number (b, "decode", p->decode_ms);
  add_number (b, "transform", p->transform_ms);
  add_number (b, "write", p->write_ms);
  json_builder_end_object (b);
  json_builder_end_object (b);
}

JsonNode *
ls_diagnose_to_json (const ls_diagnose_result *d)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  add_part (b, "prepared", &d->prepared,
            d->script ? "batches already built: the script's step fed the same batches again, its DataLoader stopped"
                      : "data already prepared: the consumer fed from a filled arena, no loading");
  add_part (b, "warm", &d->warm, "the dataset in the page cache (after a warm pass)");
  add_part (b, "cold", &d->cold, "the dataset evicted from the page cache");
  json_builder_set_member_name (b, "files");
  json_builder_add_int_value (b, d->files);
  json_builder_set_member_name (b, "evicted_files");
  json_builder_add_int_value (b, d->evicted);
  json_builder_set_member_name (b, "files_seen");
  if (d->script)
    json_builder_add_int_value (b, d->files_seen);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "files_note");
  if (d->files_note[0])
    json_builder_add_string_value (b, d->files_note);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "evict_note");
  if (d->evict_note[0])
    json_builder_add_string_value (b, d->evict_note);
  else
    json_builder_add_null_value (b);
  add_number (b, "gpu_ms_per_batch", d->gpu_ms);
  add_number (b, "prep_stall_ms_per_batch", d->prep_stall_ms);
  add_number (b, "fetch_stall_ms_per_batch", d->fetch_stall_ms);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
print_part (FILE *to, const char *label, const ls_diagnose_part *p)
{
  /* the label padded in display columns: a translated one may hold wide characters */
  fputs ("  ", to);
  ls_i18n_print_padded (to, label, 50);
  fputc (' ', to);
  if (!p->ran)
    fputs (_("not run\n"), to);
  else if (p->status != LS_RUN_DONE)
    fprintf (to, "%s: %s\n", ls_run_status_name (p->status), p->error);
  else if (p->batch_ms < 0)
    fputs (_("too few batches to measure\n"), to);
  else
    fprintf (to, _("%8.2f ms per batch, %6.0f samples/s\n"), p->batch_ms, p->throughput_sps);
}

void
ls_diagnose_print (FILE *to, const ls_run_config *config, const ls_diagnose_result *d)
{
  if (d->script)
    fprintf (to, _("diagnose: the script three times with the same knobs (those given, the rest its own), not "
                   "recorded\n"));
  else
    fprintf (to, _("diagnose: the same knobs three times (%u workers, batch %u, %s), not recorded\n"),
             config->pool.num_workers, config->pool.batch_size, config->pool.dataset.kind);
  print_part (to, d->script ? _("(a) built batches replayed (the step alone):") : _("(a) data prepared (no loading):"),
              &d->prepared);
  print_part (to, _("(b) dataset in the page cache:"), &d->warm);
  g_autofree char *cold = g_strdup_printf (_("(c) evicted from the page cache (%u/%u files):"), d->evicted, d->files);
  print_part (to, cold, &d->cold);
  if (d->files_note[0])
    fprintf (to, _("  files: %s\n"), d->files_note);
  if (d->evict_note[0])
    fprintf (to, _("  note: %s\n"), d->evict_note);
  if (d->files == 0)
    fprintf (to, _("  note: %s: (b) and (c) differ only by noise\n"),
             d->script ? _("no dataset files were seen opened") : _("a synthetic dataset has no files"));

  double total;
  if (d->gpu_ms >= 0 && d->script)
    {
      ls_i18n_print_label (to, "  ", _("step time:"), 22);
      fprintf (to, _("%8.2f ms per batch (a): the script's own step between two batches, no loading\n"), d->gpu_ms);
    }
  else if (d->gpu_ms >= 0)
    {
      ls_i18n_print_label (to, "  ", _("GPU time:"), 22);
      fprintf (to, _("%8.2f ms per batch (a): the consumer's own ceiling, copy and model step%s\n"), d->gpu_ms,
               config->sink.kind == LS_SINK_NONE ? _(" (sink none: only the hand-off)") : "");
    }
  if (d->prep_stall_ms >= 0)
    {
      ls_i18n_print_label (to, "  ", _("preparation stall:"), 22);
      fprintf (to, _("%8.2f ms per batch (b - a): decoding and transforming the workers could not hide; more workers "
                     "(cores), a smaller crop or cheaper transforms\n"),
               d->prep_stall_ms);
    }
  if (d->fetch_stall_ms >= 0)
    {
      ls_i18n_print_label (to, "  ", _("fetch stall:"), 22);
      fprintf (to, _("%8.2f ms per batch (c - b): waiting for storage; faster storage, caching the dataset in memory, "
                     "or more prefetch\n"),
               d->fetch_stall_ms);
    }
  if (d->cold.read_ms >= 0 && d->warm.read_ms >= 0)
    {
      ls_i18n_print_label (to, "  ", _("reading the files:"), 22);
      fprintf (to, _("%8.2f ms per batch cold, %.2f warm (summed over its samples: the workers' own view of the "
                     "storage)\n"),
               d->cold.read_ms, d->warm.read_ms);
    }
  total = d->gpu_ms + d->prep_stall_ms + d->fetch_stall_ms;
  if (d->gpu_ms >= 0 && d->prep_stall_ms >= 0 && d->fetch_stall_ms >= 0 && total > 0)
    fprintf (to, _("  so a batch's %.2f ms: %s %.0f %%, preparation stall %.0f %%, fetch stall %.0f %%\n"), total,
             d->script ? _("step") : "GPU", 100 * d->gpu_ms / total, 100 * d->prep_stall_ms / total,
             100 * d->fetch_stall_ms / total);
}
