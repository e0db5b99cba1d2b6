/* ls_make_dataset: check the options and the paths, open the format's
 * writer at OUT.partial, make and add every image, close, and rename to
 * OUT. The parts are in the maker-*.c files (maker-private.h lists them). */
#include "app/maker/maker-writer.h"

#include <stdarg.h>
#include <string.h>

G_DEFINE_QUARK (loadscope-make-dataset-error, ls_make_error)

static void
set_error_va (GError **error, ls_make_error_code code, const char *fmt, va_list ap) G_GNUC_PRINTF (3, 0);

static void
set_error_va (GError **error, ls_make_error_code code, const char *fmt, va_list ap)
{
  char *msg = g_strdup_vprintf (fmt, ap);
  g_set_error_literal (error, LS_MAKE_ERROR, code, msg);
  g_free (msg);
}

gboolean
ls_maker_usage_error (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  set_error_va (error, LS_MAKE_ERROR_USAGE, fmt, ap);
  va_end (ap);
  return FALSE;
}

gboolean
ls_maker_failed (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  set_error_va (error, LS_MAKE_ERROR_FAILED, fmt, ap);
  va_end (ap);
  return FALSE;
}

const ls_maker_writer_ops *
ls_maker_writer_for (ls_make_format format)
{
  switch (format)
    {
    case LS_MAKE_JPEG_DIR: return &ls_maker_write_jpegdir;
#ifdef LS_MAKE_HAVE_HDF5
    case LS_MAKE_HDF5: return &ls_maker_write_hdf5;
    case LS_MAKE_HDF5_JPEG: return &ls_maker_write_hdf5_jpeg;
#endif
    default: return NULL;
    }
}

gboolean
ls_make_dataset (const ls_make_options *o, const char *out_arg, ls_make_result *result, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autofree char *out = NULL;
  g_autofree char *partial = NULL;
  const ls_maker_writer_ops *ops;
  ls_maker_writer *writer;
  ls_maker_plan plan;
  uint64_t bytes = 0;
  gboolean ok;

  memset (result, 0, sizeof *result);
  if (!ls_maker_check_options (o, error))
    return FALSE;
  if (!out_arg || !*out_arg)
    return ls_maker_usage_error (error, "no output path given");
  ls_maker_paths (out_arg, &out, &partial);
  if (!ls_maker_check_paths (o, out, partial, error))
    return FALSE;
  ls_maker_plan_init (&plan, o);
  if (!(ops = ls_maker_writer_for (o->format)))
    return ls_maker_failed (error, "no HDF5 support in this build");

  if (!(writer = ops->open (partial, &plan, error)))
    {
      ls_maker_remove_partial (o->format, partial);
      return FALSE;
    }
  ok = ls_maker_run_jobs (o, &plan, ops, writer, partial, &bytes, error);
  if (!ops->close (writer, ok, ok ? error : NULL))
    ok = FALSE;
  if (ok)
    ok = ls_maker_install (o->format, partial, out, error);
  if (!ok)
    {
      ls_maker_remove_partial (o->format, partial);
      return FALSE;
    }

  result->images = o->count;
  result->classes = plan.classes;
  result->bytes = o->format == LS_MAKE_JPEG_DIR ? bytes : ls_maker_file_size (out);
  result->seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  return TRUE;
}
