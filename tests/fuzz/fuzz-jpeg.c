/* libFuzzer: an encoded JPEG through what a worker does with one: the
 * header check, the random-resized crop decoded alone, the resize, flip
 * and normalize (ls_image_sample_jpeg), then the raw-pixel path of the
 * HDF5 dataset over the same bytes. Any input must end as a sample or an
 * error with a message. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz-util.h"
#include "loader/image-sample.h"

#define OUT_SIZE 24
/* Small enough that a decode stays fast; the limit check itself is
 * exercised by every larger header. */
#define PIXEL_LIMIT (2u * 1000u * 1000u)

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static ls_image_pipeline f32, u8;
  static int ready;
  static float out[3 * OUT_SIZE * OUT_SIZE];
  ls_error err = { 0 };

  if (!ready)
    {
      if (ls_image_pipeline_init (&f32, 1, OUT_SIZE, LS_OUTPUT_F32_CHW, PIXEL_LIMIT, &err) != LS_OK
          || ls_image_pipeline_init (&u8, 2, OUT_SIZE, LS_OUTPUT_U8_HWC, PIXEL_LIMIT, &err) != LS_OK)
        abort ();
      ready = 1;
    }

  /* The sample index picks the crop: vary it with the input. */
  uint64_t index = size;
  ls_image_pipeline *p = size & 1 ? &u8 : &f32;
  if (ls_image_sample_jpeg (p, data, size, (uint32_t) (size >> 1), index, out, &err) != LS_OK)
    fuzz_require_message ("ls_image_sample_jpeg", err.message);

  /* The same bytes as raw pixels: a gray or RGB image of a shape drawn
   * from the first bytes. */
  if (size >= 3)
    {
      int channels = data[0] & 1 ? 3 : 1;
      int width = 1 + data[1] % 64;
      size_t row = (size_t) width * (size_t) channels;
      int height = (int) ((size - 3) / row);
      if (height > 0)
        {
          err = (ls_error) { 0 };
          if (ls_image_sample_pixels (p, data + 3, width, height, channels, row, 0, data[2], out, &err) != LS_OK)
            fuzz_require_message ("ls_image_sample_pixels", err.message);
        }
    }
  return 0;
}
