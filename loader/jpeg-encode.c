/* Baseline JPEG encoding with TurboJPEG, for the sample-dataset generator and
 * the tests: accurate DCT, 4:2:0 (or 4:4:4, or grayscale). */
#include <stdlib.h>

#include <turbojpeg.h>

#include "loader/jpeg.h"

int
ls_jpeg_encode (const uint8_t *pixels, int width, int height, int components, int quality, int subsampling_444,
                uint8_t **out, size_t *out_len, ls_error *err)
{
  tjhandle tj;
  unsigned long cap, size;
  unsigned char *buf, *shrunk;
  int pf, samp;

  if (!pixels || !out || !out_len)
    return ls_error_set (err, LS_ERR_INVALID, "jpeg encode: no pixels or no output");
  if (width <= 0 || height <= 0 || width > 65500 || height > 65500)
    return ls_error_set (err, LS_ERR_INVALID, "jpeg encode: bad size %dx%d (1..65500 each side)", width, height);
  if (components != 1 && components != 3)
    return ls_error_set (err, LS_ERR_INVALID, "jpeg encode: %d components; expected 1 (gray) or 3 (RGB)", components);
  if (quality < 1 || quality > 100)
    return ls_error_set (err, LS_ERR_INVALID, "jpeg encode: quality %d is not in 1..100", quality);

  pf = components == 1 ? TJPF_GRAY : TJPF_RGB;
  samp = components == 1 ? TJSAMP_GRAY : subsampling_444 ? TJSAMP_444 : TJSAMP_420;
  cap = tjBufSize (width, height, samp);
  if (cap == (unsigned long) -1)
    return ls_error_set (err, LS_ERR_INVALID, "jpeg encode: %dx%d is too large", width, height);

  /* Our own malloc'ed buffer (the caller frees it with free()), large
   * enough for the worst case, so TurboJPEG never reallocates it. */
  buf = malloc (cap);
  if (!buf)
    return ls_error_set (err, LS_ERR_NOMEM, "jpeg encode: out of memory (%lu bytes)", cap);
  tj = tjInitCompress ();
  if (!tj)
    {
      free (buf);
      return ls_error_set (err, LS_ERR_NOMEM, "jpeg encode: %s", tjGetErrorStr2 (NULL));
    }
  size = cap;
  if (tjCompress2 (tj, pixels, width, 0, height, pf, &buf, &size, samp, quality,
                   TJFLAG_ACCURATEDCT | TJFLAG_NOREALLOC)
      != 0)
    {
      int rc = ls_error_set (err, LS_ERR_INVALID, "jpeg encode: %s", tjGetErrorStr2 (tj));
      tjDestroy (tj);
      free (buf);
      return rc;
    }
  tjDestroy (tj);
  shrunk = realloc (buf, size);
  *out = shrunk ? shrunk : buf;
  *out_len = size;
  return LS_OK;
}
