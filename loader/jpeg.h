/* JPEG decoding with libjpeg-turbo, as the image datasets need it: refuse a
 * decompression bomb from the header alone, decode only the rows and
 * columns a crop needs, and always give packed RGB (grayscale, CMYK and YCCK
 * are converted like PIL's convert("RGB")). Progressive and 4:4:4 files
 * work. A truncated, empty or non-JPEG input is an error, never a partly
 * grey image. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "platform/error.h"

typedef struct ls_jpeg_decoder ls_jpeg_decoder;

/* One per worker: it keeps its buffers between images. */
ls_jpeg_decoder *ls_jpeg_decoder_new (void);
void ls_jpeg_decoder_free (ls_jpeg_decoder *d);

/* Reads the header only. Fails (LS_ERR_INVALID) for an empty input, a
 * non-JPEG, or width x height over pixel_limit ("12000x9000 is 108.0 MP,
 * over the 64.0 MP limit"). */
int ls_jpeg_read_header (ls_jpeg_decoder *d, const uint8_t *data, size_t len, uint64_t pixel_limit, int *width,
                         int *height, ls_error *err);

/* Decodes at least the region x, y, width, height of the image to RGB8 and
 * points *pixels at the region's top-left pixel (rows *stride bytes apart),
 * in memory the decoder owns until its next call. Rows above and below the
 * region are skipped, and columns outside it are not converted, where
 * libjpeg-turbo allows. The output pixels equal those of a full decode. */
int ls_jpeg_decode_region (ls_jpeg_decoder *d, const uint8_t *data, size_t len, uint64_t pixel_limit, int x, int y,
                           int width, int height, const uint8_t **pixels, size_t *stride, ls_error *err);

/* Encodes packed RGB8 (or gray when components == 1) as a baseline JPEG,
 * for the sample-dataset generator and the tests. *out is malloc'ed. */
int ls_jpeg_encode (const uint8_t *pixels, int width, int height, int components, int quality, int subsampling_444,
                    uint8_t **out, size_t *out_len, ls_error *err);
