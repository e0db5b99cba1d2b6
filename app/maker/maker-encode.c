/* Encoding on the worker threads: JPEG (jpeg-dir, hdf5-jpeg) and what
 * HDF5's deflate filter would store (hdf5, written with H5Dwrite_chunk). */
#include "app/maker/maker-private.h"

#include <stdlib.h>

#ifdef LS_HAVE_JPEG
#include "loader/jpeg.h"
#endif
#ifdef LS_MAKE_HAVE_HDF5
#include <zlib.h>
#endif

void
ls_maker_encode_jpeg (ls_maker_job *j, uint8_t *pixels, int w, int h, int quality)
{
#ifdef LS_HAVE_JPEG
  ls_error err = { 0 };
  uint8_t *out = NULL;
  size_t len = 0;
  if (ls_jpeg_encode (pixels, w, h, 3, quality, 0, &out, &len, &err) == LS_OK)
    {
      j->data = out; /* malloc'ed: g_free is free since GLib 2.46 */
      j->len = len;
    }
  else
    {
      /* untranslated: app/maker does not link app/core's catalogue (it depends on GLib, platform/ and the image libraries only) */
      j->error = g_strdup_printf ("encoding image %" G_GUINT64_FORMAT " (%dx%d): %s", j->index, w, h, err.message);
      free (out);
    }
#endif
  g_free (pixels);
}

void
ls_maker_encode_deflate (ls_maker_job *j, uint8_t *pixels, int w, int h, int quality)
{
  size_t n = (size_t) w * (size_t) h * 3;
#ifdef LS_MAKE_HAVE_HDF5
  /* What HDF5's deflate filter would store: zlib's compress2 output. */
  uLongf zlen = compressBound ((uLong) n);
  uint8_t *z = g_malloc (zlen);
  if (compress2 (z, &zlen, pixels, (uLong) n, 4) == Z_OK && zlen < n)
    {
      g_free (pixels);
      j->data = z;
      j->len = zlen;
      return;
    }
  g_free (z);
#endif
  j->data = pixels;
  j->len = n;
  j->filter_mask = 1;
}
