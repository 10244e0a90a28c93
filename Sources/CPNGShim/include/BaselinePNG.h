#ifndef BASELINE_PNG_H
#define BASELINE_PNG_H

#include <stddef.h>

// libpng's row API reports a fatal error by longjmp, which Swift cannot take
// part in: this function holds the setjmp and turns every error into a
// nonzero return with libpng's message in `message` (NUL-terminated,
// truncated to fit). It is thread-safe: each call has its own png_struct.

/// Decodes the PNG in `data` to row-major 8-bit RGBA into `pixels`, which
/// must hold `4 * width * height` bytes for the width and height of the
/// file's IHDR chunk, with libpng's row API (png_read_row).
///
/// It applies the transformations libpng's simplified API applies for
/// PNG_FORMAT_RGBA with PNG_IMAGE_FLAG_16BIT_sRGB, so both give the same
/// pixels: palette, low-bit-depth grey and tRNS expanded, grey to RGB, 16-bit
/// channels scaled to 8 bits, an opaque alpha channel added where the file
/// has none, and the file's gamma converted to sRGB (a file with no gAMA or
/// sRGB chunk is taken as sRGB). Interlaced files are combined by libpng.
///
/// Returns 0 on success, 1 on any error.
int baseline_png_decode_rgba_rows(const unsigned char *data, size_t length,
                                  unsigned char *pixels, size_t pixels_length,
                                  unsigned int width, unsigned int height,
                                  char *message, size_t message_capacity);

#endif
