/* The maker's options: format names, the checks that make a bad option a
 * usage error (exit 2) before anything is written, and the plan they give. */
#include "app/maker/maker-private.h"

#include <string.h>

static const char *const format_names[] = { "jpeg-dir", "hdf5", "hdf5-jpeg" };

gboolean
ls_make_format_parse (const char *name, ls_make_format *out)
{
  for (size_t i = 0; i < G_N_ELEMENTS (format_names); i++)
    if (name && strcmp (name, format_names[i]) == 0)
      {
        *out = (ls_make_format) i;
        return TRUE;
      }
  return FALSE;
}

const char *
ls_make_format_name (ls_make_format format)
{
  return (size_t) format < G_N_ELEMENTS (format_names) ? format_names[format] : "?";
}

void
ls_make_options_init (ls_make_options *o)
{
  memset (o, 0, sizeof *o);
  o->format = LS_MAKE_JPEG_DIR;
  o->quality = -1;
}

gboolean
ls_maker_check_options (const ls_make_options *o, GError **error)
{
  gboolean jpeg = o->format != LS_MAKE_HDF5;

  if ((size_t) o->format >= G_N_ELEMENTS (format_names))
    return ls_maker_usage_error (error, "unknown format %d", (int) o->format);
#ifndef LS_HAVE_JPEG
  if (jpeg)
    return ls_maker_usage_error (error, "--format %s: this build has no JPEG support (libjpeg-turbo was not found)",
                                 ls_make_format_name (o->format));
#endif
#ifndef LS_MAKE_HAVE_HDF5
  if (o->format != LS_MAKE_JPEG_DIR)
    return ls_maker_usage_error (error, "--format %s: this build has no HDF5 support (libhdf5 was not found)",
                                 ls_make_format_name (o->format));
#endif
  if (o->count == 0 || o->count > LS_MAKE_MAX_COUNT)
    return ls_maker_usage_error (error, "--count %" G_GUINT64_FORMAT ": must be between 1 and %u", o->count,
                                 LS_MAKE_MAX_COUNT);
  if ((o->width == 0) != (o->height == 0) || o->width < 0 || o->height < 0)
    return ls_maker_usage_error (error, "--size %dx%d: give both sides, each at least 1", o->width, o->height);
  if (o->width && (uint64_t) o->width * (uint64_t) o->height > LS_MAKE_MAX_PIXELS)
    return ls_maker_usage_error (error, "--size %dx%d: at most %.0f MP per image", o->width, o->height,
                                 LS_MAKE_MAX_PIXELS / 1e6);
  if (jpeg && (o->width > 65500 || o->height > 65500))
    return ls_maker_usage_error (error, "--size %dx%d: a JPEG side is at most 65500 pixels", o->width, o->height);
  if (o->quality != -1 && !jpeg)
    return ls_maker_usage_error (error, "--quality applies to jpeg-dir and hdf5-jpeg; hdf5 stores raw pixels");
  if (o->quality != -1 && (o->quality < 1 || o->quality > 100))
    return ls_maker_usage_error (error, "--quality %d: must be between 1 and 100", o->quality);
  if (o->threads < 0 || o->threads > 256)
    return ls_maker_usage_error (error, "--threads %d: must be between 0 (one per core) and 256", o->threads);
  return TRUE;
}

void
ls_maker_plan_init (ls_maker_plan *plan, const ls_make_options *o)
{
  memset (plan, 0, sizeof *plan);
  plan->format = o->format;
  plan->seed = o->seed;
  plan->count = o->count;
  plan->classes = ls_make_classes (o->count);
  plan->quality = o->quality == -1 ? LS_MAKE_DEFAULT_QUALITY : o->quality;
  plan->width = o->width;
  plan->height = o->height;
  if (o->format == LS_MAKE_HDF5 && !plan->width)
    plan->width = plan->height = LS_MAKE_DEFAULT_HDF5_SIDE;
}
