/* JPEG decoding with libjpeg's API (libjpeg-turbo): header checks, region
 * decoding with jpeg_crop_scanline / jpeg_skip_scanlines, and RGB output for
 * every colour space the way PIL's convert("RGB") gives it.
 *
 * Errors: libjpeg reports errors through error_exit and warnings through
 * emit_message(-1). Both jump back here (setjmp/longjmp), so no libjpeg
 * error ever calls exit() and no warning ("Premature end of JPEG file",
 * "Corrupt JPEG data: ...") lets a partly grey image through.
 *
 * Exactness: the decoded pixels are those of a plain full decode with the
 * accurate integer IDCT (JDCT_ISLOW) and fancy upsampling, PIL's defaults.
 * Cropping columns makes libjpeg treat the crop's edges as image edges for
 * chroma upsampling, so the crop is widened by one iMCU on each side: the
 * requested columns then never sit at a crop edge that is not an image edge. */
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "loader/jpeg.h"

typedef struct ls_jpeg_errmgr {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  int code;                       /* libjpeg's message code of the failure */
  char message[JMSG_LENGTH_MAX];  /* its text */
} ls_jpeg_errmgr;

struct ls_jpeg_decoder {
  struct jpeg_decompress_struct cinfo;
  ls_jpeg_errmgr jerr;
  uint8_t *rgb; /* the decoded region, packed RGB8; reused between calls */
  size_t rgb_cap;
  uint8_t *row; /* one CMYK scanline */
  size_t row_cap;
};

/* ---- libjpeg error manager ---- */

static void
record_and_jump (j_common_ptr cinfo)
{
  ls_jpeg_errmgr *e = (ls_jpeg_errmgr *) cinfo->err;

  e->code = e->pub.msg_code;
  e->message[0] = '\0';
  (*e->pub.format_message) (cinfo, e->message);
  longjmp (e->jump, 1);
}

static void
on_error_exit (j_common_ptr cinfo)
{
  record_and_jump (cinfo);
}

/* msg_level -1 is a warning (corrupt or truncated data): treat it as an
 * error. Levels >= 0 are trace messages: ignore them. */
static void
on_emit_message (j_common_ptr cinfo, int msg_level)
{
  if (msg_level < 0)
    record_and_jump (cinfo);
}

static void
on_output_message (j_common_ptr cinfo)
{
  (void) cinfo; /* never print to stderr */
}

/* The ls_error for the failure libjpeg last reported. */
static int
libjpeg_failure (ls_jpeg_decoder *d, ls_error *err)
{
  switch (d->jerr.code)
    {
    case JWRN_JPEG_EOF:
    case JERR_INPUT_EOF:
    case JERR_INPUT_EMPTY:
      return ls_error_set (err, LS_ERR_INVALID, "truncated (premature end of data)");
    case JERR_BAD_PRECISION:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_NOTIMPL:
    case JERR_ARITH_NOTIMPL:
      return ls_error_set (err, LS_ERR_INVALID, "unsupported JPEG: %s", d->jerr.message);
    default:
      return ls_error_set (err, LS_ERR_INVALID, "corrupt data: %s", d->jerr.message);
    }
}

/* Runs fn with libjpeg errors caught. Returns fn's result, or 1 when libjpeg
 * failed (its state is then reset for the next image). The setjmp lives in
 * this small function so no local of the callers can be clobbered. */
typedef int (*guarded_fn) (ls_jpeg_decoder *d, void *arg);

static int
run_guarded (ls_jpeg_decoder *d, guarded_fn fn, void *arg)
{
  if (setjmp (d->jerr.jump))
    {
      jpeg_abort_decompress (&d->cinfo);
      return 1;
    }
  return fn (d, arg);
}

/* ---- decoder ---- */

/* jpeg_create_decompress only fails when out of memory. */
static int
create_guarded (ls_jpeg_decoder *d)
{
  if (setjmp (d->jerr.jump))
    return 1;
  jpeg_create_decompress (&d->cinfo);
  return 0;
}

ls_jpeg_decoder *
ls_jpeg_decoder_new (void)
{
  ls_jpeg_decoder *d = calloc (1, sizeof *d);

  if (!d)
    return NULL;
  d->cinfo.err = jpeg_std_error (&d->jerr.pub);
  d->jerr.pub.error_exit = on_error_exit;
  d->jerr.pub.emit_message = on_emit_message;
  d->jerr.pub.output_message = on_output_message;
  if (create_guarded (d) != 0)
    {
      free (d);
      return NULL;
    }
  return d;
}

void
ls_jpeg_decoder_free (ls_jpeg_decoder *d)
{
  if (!d)
    return;
  jpeg_destroy_decompress (&d->cinfo);
  free (d->rgb);
  free (d->row);
  free (d);
}

/* ---- input checks ---- */

static int
check_signature (const uint8_t *data, size_t len, ls_error *err)
{
  char hex[16];
  size_t n, i;

  if (!data || len == 0)
    return ls_error_set (err, LS_ERR_INVALID, "empty input");
  if (len >= 2 && data[0] == 0xFF && data[1] == 0xD8)
    return LS_OK;
  if (len < 2 && data[0] == 0xFF)
    return ls_error_set (err, LS_ERR_INVALID, "truncated (premature end of data)");
  n = len < 4 ? len : 4;
  hex[0] = '\0';
  for (i = 0; i < n; i++)
    {
      char b[4];
      snprintf (b, sizeof b, i ? " %02X" : "%02X", data[i]);
      strncat (hex, b, sizeof hex - strlen (hex) - 1);
    }
  return ls_error_set (err, LS_ERR_INVALID, "not a JPEG (starts with %s)", hex);
}

static int
check_pixel_limit (int width, int height, uint64_t pixel_limit, ls_error *err)
{
  uint64_t pixels = (uint64_t) width * (uint64_t) height;

  /* 0: no limit */
  if (pixel_limit && pixels > pixel_limit)
    return ls_error_set (err, LS_ERR_INVALID, "%dx%d is %.1f MP, over the %.1f MP limit", width, height,
                         (double) pixels / 1e6, (double) pixel_limit / 1e6);
  return LS_OK;
}

/* Whether an EOI marker (FF D9) follows the first scan. In entropy-coded data
 * a 0xFF byte is always followed by 0x00 or a restart marker, so an FF D9
 * there is the end of the image. Searched from the end: a whole file finds
 * it at once (or after its trailing bytes), a truncated one reads through.
 * This catches truncation even where a region decode stops early. */
static int
has_eoi (const uint8_t *p, size_t n)
{
  size_t i;

  for (i = n; i >= 2; i--)
    if (p[i - 1] == 0xD9 && p[i - 2] == 0xFF)
      return 1;
  return 0;
}

/* ---- header ---- */

typedef struct header_job {
  const uint8_t *data;
  size_t len;
} header_job;

static int
read_header_guarded (ls_jpeg_decoder *d, void *arg)
{
  header_job *job = arg;

  jpeg_mem_src (&d->cinfo, job->data, (unsigned long) job->len);
  jpeg_read_header (&d->cinfo, TRUE);
  return 0;
}

int
ls_jpeg_read_header (ls_jpeg_decoder *d, const uint8_t *data, size_t len, uint64_t pixel_limit, int *width,
                     int *height, ls_error *err)
{
  header_job job = { data, len };
  int w, h, rc;

  if (!d)
    return ls_error_set (err, LS_ERR_INVALID, "no decoder");
  if ((rc = check_signature (data, len, err)) != LS_OK)
    return rc;
  if ((unsigned long) len != len)
    return ls_error_set (err, LS_ERR_INVALID, "input of %zu bytes is too large", len);
  if (run_guarded (d, read_header_guarded, &job))
    return libjpeg_failure (d, err);
  w = (int) d->cinfo.image_width;
  h = (int) d->cinfo.image_height;
  jpeg_abort_decompress (&d->cinfo);
  if ((rc = check_pixel_limit (w, h, pixel_limit, err)) != LS_OK)
    return rc;
  if (width)
    *width = w;
  if (height)
    *height = h;
  return LS_OK;
}

/* ---- region decoding ---- */

/* PIL 9.4: a 4-component JPEG is read as "CMYK;I" (inverted, Adobe's
 * convention, whether or not the file has an Adobe marker), and
 * convert("RGB") is Convert.c's cmyk2rgb:
 *   nk = 255 - k;  r = CLIP8(nk - MULDIV255(c, nk))  (same for g, b)
 * with MULDIV255(a, b) = (t = a * b + 128, ((t >> 8) + t) >> 8).
 * Both steps together, on the bytes libjpeg gives for JCS_CMYK. */
static inline uint8_t
cmyk_channel (int c, int nk)
{
  int t = c * nk + 128;
  int v = nk - (((t >> 8) + t) >> 8);
  return (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
}

static void
cmyk_row_to_rgb (const uint8_t *in, uint8_t *out, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++, in += 4, out += 3)
    {
      int nk = in[3]; /* 255 - (255 - K) */
      out[0] = cmyk_channel (255 - in[0], nk);
      out[1] = cmyk_channel (255 - in[1], nk);
      out[2] = cmyk_channel (255 - in[2], nk);
    }
}

static int
ensure (uint8_t **buf, size_t *cap, size_t need)
{
  uint8_t *p;

  if (need <= *cap)
    return 1;
  p = realloc (*buf, need);
  if (!p)
    return 0;
  *buf = p;
  *cap = need;
  return 1;
}

typedef struct region_job {
  const uint8_t *data;
  size_t len;
  uint64_t pixel_limit;
  int x, y, width, height;
  const uint8_t **pixels;
  size_t *stride;
  ls_error *err;
  int code; /* the code set in err when decode_region_guarded returns -1 */
} region_job;

/* Returns 0 on success, -1 after setting job->err (libjpeg state already
 * reset), and leaves libjpeg failures to run_guarded. */
static int
decode_region_guarded (ls_jpeg_decoder *d, void *arg)
{
  region_job *job = arg;
  struct jpeg_decompress_struct *cinfo = &d->cinfo;
  int cmyk, iw, ih, margin, want_x0, want_x1;
  JDIMENSION xoff, cw, y0, y1, rows, r;
  size_t stride, sos;

  jpeg_mem_src (cinfo, job->data, (unsigned long) job->len);
  jpeg_read_header (cinfo, TRUE);
  iw = (int) cinfo->image_width;
  ih = (int) cinfo->image_height;

  if ((job->code = check_pixel_limit (iw, ih, job->pixel_limit, job->err)) != LS_OK)
    goto fail;
  if (job->x < 0 || job->y < 0 || job->width <= 0 || job->height <= 0 || job->x > iw - job->width
      || job->y > ih - job->height)
    {
      job->code = ls_error_set (job->err, LS_ERR_INVALID, "region %dx%d at %d,%d is not inside the %dx%d image",
                                job->width, job->height, job->x, job->y, iw, ih);
      goto fail;
    }
  sos = (size_t) (cinfo->src->next_input_byte - job->data);
  if (sos > job->len || !has_eoi (job->data + sos, job->len - sos))
    {
      job->code = ls_error_set (job->err, LS_ERR_INVALID, "truncated (premature end of data)");
      goto fail;
    }

  switch (cinfo->jpeg_color_space)
    {
    case JCS_GRAYSCALE:
    case JCS_RGB:
    case JCS_YCbCr:
      cinfo->out_color_space = JCS_RGB;
      cmyk = 0;
      break;
    case JCS_CMYK:
    case JCS_YCCK:
      cinfo->out_color_space = JCS_CMYK;
      cmyk = 1;
      break;
    default:
      job->code = ls_error_set (job->err, LS_ERR_INVALID,
                                "unsupported JPEG: %d components in an unknown colour space", cinfo->num_components);
      goto fail;
    }
  cinfo->dct_method = JDCT_ISLOW;
  cinfo->do_fancy_upsampling = TRUE;
  cinfo->scale_num = 1;
  cinfo->scale_denom = 1;
  cinfo->quantize_colors = FALSE;
  jpeg_start_decompress (cinfo);

  /* Columns: one iMCU of margin on each side (see the top of the file). */
  margin = 8 * cinfo->max_h_samp_factor;
  want_x0 = job->x > margin ? job->x - margin : 0;
  want_x1 = job->x + job->width < iw - margin ? job->x + job->width + margin : iw;
  xoff = (JDIMENSION) want_x0;
  cw = (JDIMENSION) (want_x1 - want_x0);
  if (cw != cinfo->output_width)
    jpeg_crop_scanline (cinfo, &xoff, &cw); /* moves xoff left to an iMCU edge */

  /* Rows: skip those above, stop after the last one needed. */
  y0 = (JDIMENSION) job->y;
  y1 = (JDIMENSION) (job->y + job->height);
  rows = y1 - y0;
  stride = (size_t) cw * 3;
  if (rows > SIZE_MAX / stride || !ensure (&d->rgb, &d->rgb_cap, stride * rows)
      || (cmyk && !ensure (&d->row, &d->row_cap, (size_t) cw * 4)))
    {
      job->code
          = ls_error_set (job->err, LS_ERR_NOMEM, "out of memory for a %ux%u region", (unsigned) cw, (unsigned) rows);
      goto fail;
    }
  if (y0 > 0 && jpeg_skip_scanlines (cinfo, y0) != y0)
    {
      job->code = ls_error_set (job->err, LS_ERR_INVALID, "truncated (premature end of data)");
      goto fail;
    }

  r = 0;
  while (r < rows)
    {
      JSAMPROW ptrs[16];
      JDIMENSION want = rows - r < 16 ? rows - r : 16, got, i;

      if (cmyk)
        {
          ptrs[0] = d->row;
          got = jpeg_read_scanlines (cinfo, ptrs, 1);
          if (got == 1)
            cmyk_row_to_rgb (d->row, d->rgb + (size_t) r * stride, cw);
        }
      else
        {
          for (i = 0; i < want; i++)
            ptrs[i] = d->rgb + (size_t) (r + i) * stride;
          got = jpeg_read_scanlines (cinfo, ptrs, want);
        }
      if (got == 0)
        {
          job->code = ls_error_set (job->err, LS_ERR_INVALID, "truncated (premature end of data)");
          goto fail;
        }
      r += got;
    }
  /* The rest of the image is not needed: no jpeg_finish_decompress. */
  jpeg_abort_decompress (cinfo);

  *job->pixels = d->rgb + (size_t) ((JDIMENSION) job->x - xoff) * 3;
  *job->stride = stride;
  return 0;

fail:
  jpeg_abort_decompress (cinfo);
  return -1;
}

int
ls_jpeg_decode_region (ls_jpeg_decoder *d, const uint8_t *data, size_t len, uint64_t pixel_limit, int x, int y,
                       int width, int height, const uint8_t **pixels, size_t *stride, ls_error *err)
{
  region_job job = { data, len, pixel_limit, x, y, width, height, pixels, stride, err, LS_OK };
  int rc;

  if (!d || !pixels || !stride)
    return ls_error_set (err, LS_ERR_INVALID, "no decoder or no output");
  if ((rc = check_signature (data, len, err)) != LS_OK)
    return rc;
  if ((unsigned long) len != len)
    return ls_error_set (err, LS_ERR_INVALID, "input of %zu bytes is too large", len);
  rc = run_guarded (d, decode_region_guarded, &job);
  if (rc > 0)
    return libjpeg_failure (d, err);
  if (rc < 0)
    return job.code;
  return LS_OK;
}
