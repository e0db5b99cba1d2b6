#include "app/cli/cli-make-dataset.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"

#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/maker/dataset-maker.h"
#include "platform/interrupt.h"

static volatile sig_atomic_t interrupted;

typedef struct {
  gboolean tty;
  gint64 last_us;
  int last_len;
} progress_line;

/* At most five updates a second, on a terminal only. */
static void
on_progress (uint64_t done, uint64_t total, uint64_t bytes, void *user_data)
{
  progress_line *p = user_data;
  gint64 now = g_get_monotonic_time ();

  if (!p->tty || (now - p->last_us < 200000 && done < total))
    return;
  p->last_us = now;
  g_autofree char *text = g_strdup_printf (_("generating %llu/%llu images (%d %%), %.1f MB"), (unsigned long long) done,
                                           (unsigned long long) total, (int) (100 * done / total), (double) bytes / 1e6);
  fprintf (stderr, "\r%s", text);
  p->last_len = (int) ls_i18n_display_width (text); /* the columns to blank */
  fflush (stderr);
}

static void
progress_clear (progress_line *p)
{
  if (p->tty && p->last_len > 0)
    fprintf (stderr, "\r%*s\r", p->last_len, "");
  p->last_len = 0;
}

static gboolean
parse_size (const char *text, int *w, int *h)
{
  char *end = NULL;
  unsigned long long a, b;

  errno = 0;
  a = strtoull (text, &end, 10);
  if (errno || end == text || (*end != 'x' && *end != 'X') || text[0] == '-')
    return FALSE;
  const char *rest = end + 1;
  b = strtoull (rest, &end, 10);
  if (errno || end == rest || *end || rest[0] == '-' || a == 0 || b == 0 || a > 65535 || b > 65535)
    return FALSE;
  *w = (int) a;
  *h = (int) b;
  return TRUE;
}

int
ls_cli_make_dataset (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("OUT - write a sample dataset"));
  g_autoptr (GError) error = NULL;
  g_autofree char *format = NULL;
  g_autofree char *size = NULL;
  gint64 count = -1, seed = 0;
  int quality = -1, threads = 0;
  gboolean force = FALSE;
  GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, N_("What to write"), "jpeg-dir|hdf5|hdf5-jpeg" },
    { "count", 0, 0, G_OPTION_ARG_INT64, &count, N_("Number of images"), "N" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size,
      N_("Every image WxH (default: about 500x375 with ImageNet's spread of sizes; hdf5: 256x256)"), "WxH" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, N_("Seed of the content (default 0)"), "S" },
    { "quality", 0, 0, G_OPTION_ARG_INT, &quality, N_("JPEG quality, 1-100 (default 90)"), "Q" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, N_("Replace an existing OUT (a file, or a generated dataset)"), NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, N_("Threads generating images (default: one per core)"), "N" },
    { NULL },
  };
  ls_make_options o;
  ls_make_result result;
  progress_line progress = { 0 };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Writes a deterministic sample dataset with photograph-like images, so the loader\n"
                                  "can be measured without a download. The same options give byte-identical files.\n"
                                  "\n"
                                  "  jpeg-dir   OUT/class_<k>/img_<nnnnn>.jpg in up to 10 classes (JPEG q90, 4:2:0;\n"
                                  "             about 100 KB each at the default sizes, like ImageNet)\n"
                                  "  hdf5       one file: 'images' uint8 N x H x W x 3 (a gzip chunk per image)\n"
                                  "             and 'labels' int64 N\n"
                                  "  hdf5-jpeg  one file: 'jpeg' (one encoded JPEG per row) and 'labels' int64 N\n"
                                  "\n"
                                  "The dataset is written as OUT.partial and renamed when complete. OUT's folder must\n"
                                  "exist; an existing OUT is replaced only with --force.\n"
                                  "\n"
                                  "Exit status: 0 written, 1 writing failed or was interrupted, 2 bad usage or input."));
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    {
      fprintf (stderr, _("loadscope make-dataset: %s\n"), error->message);
      return 2;
    }

  ls_make_options_init (&o);
  if (!format)
    {
      fprintf (stderr, _("loadscope make-dataset: --format is missing: give jpeg-dir, hdf5 or hdf5-jpeg\n"));
      return 2;
    }
  if (!ls_make_format_parse (format, &o.format))
    {
      fprintf (stderr, _("loadscope make-dataset: --format %s: expected jpeg-dir, hdf5 or hdf5-jpeg\n"), format);
      return 2;
    }
  if (count == -1)
    {
      fprintf (stderr, _("loadscope make-dataset: --count is missing: give the number of images, e.g. --count 2000\n"));
      return 2;
    }
  if (count <= 0 || count > (gint64) LS_MAKE_MAX_COUNT)
    {
      fprintf (stderr, _("loadscope make-dataset: --count %lld: must be between 1 and %u\n"), (long long) count,
               LS_MAKE_MAX_COUNT);
      return 2;
    }
  if (size && !parse_size (size, &o.width, &o.height))
    {
      fprintf (stderr, _("loadscope make-dataset: --size %s: expected WIDTHxHEIGHT such as 500x375\n"), size);
      return 2;
    }
  if (seed < 0)
    {
      fprintf (stderr, _("loadscope make-dataset: --seed %lld: must not be negative\n"), (long long) seed);
      return 2;
    }
  if (argc < 2)
    {
      fprintf (stderr, _("loadscope make-dataset: OUT is missing: give the folder (jpeg-dir) or file (hdf5) to write\n"));
      return 2;
    }
  if (argc > 2)
    {
      fprintf (stderr, _("loadscope make-dataset: unexpected argument '%s'\n"), argv[2]);
      return 2;
    }
  o.count = (uint64_t) count;
  o.seed = (uint64_t) seed;
  o.quality = quality;
  o.threads = threads;
  o.force = force;
  o.progress = on_progress;
  o.progress_data = &progress;
  o.interrupt = &interrupted;
  progress.tty = isatty (fileno (stderr));

  ls_interrupt_listen (&interrupted, LS_INTERRUPT_COUNT, NULL);
  gboolean ok = ls_make_dataset (&o, argv[1], &result, &error);
  progress_clear (&progress);
  ls_interrupt_stop ();
  if (!ok)
    {
      fprintf (stderr, _("loadscope make-dataset: %s\n"), error->message);
      return g_error_matches (error, LS_MAKE_ERROR, LS_MAKE_ERROR_USAGE) ? 2 : 1;
    }
  g_autofree char *classes = g_strdup_printf (ngettext ("%d class", "%d classes", result.classes), result.classes);
  printf (_("wrote %llu images, %.1f MB, %s to %s in %.1f s\n"), (unsigned long long) result.images,
          (double) result.bytes / 1e6, classes, argv[1], result.seconds);
  return 0;
}
