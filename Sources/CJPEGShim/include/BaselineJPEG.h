#ifndef BASELINE_JPEG_H
#define BASELINE_JPEG_H

#include <stddef.h>

// libjpeg reports a fatal error by calling error_exit, which must not return:
// the library's own default exits the process. Swift cannot setjmp, so these
// functions hold the setjmp/longjmp pair and turn every libjpeg error (and
// the warnings that mean data is missing) into a nonzero return with the
// library's message in `message` (NUL-terminated, truncated to fit).
//
// They are thread-safe: each call uses its own decompressor.

/// Reads the header of the JPEG in `data` and sets `width` and `height` to
/// the size it decodes to at 1/`scale_denominator` scale (1, 2, 4 or 8:
/// libjpeg scales in the DCT, so a smaller image costs less to decode, not
/// more). Returns 0 on success.
int baseline_jpeg_read_size(const unsigned char *data, size_t length,
                            int scale_denominator,
                            int *width, int *height,
                            char *message, size_t message_capacity);

/// Decodes the JPEG in `data` at 1/`scale_denominator` scale to row-major
/// RGBA (alpha 255) into `pixels`, which must hold `4 * width * height`
/// bytes for the width and height that `baseline_jpeg_read_size` reported
/// for that scale. Grayscale and CMYK images are converted.
///
/// libjpeg's own working memory is held to `max_memory` bytes: a
/// progressive JPEG keeps every coefficient of the full-size image, however
/// small the scale, so a small file can otherwise ask for gigabytes.
///
/// Returns 0 on success, 2 when the image needs more than `max_memory`,
/// 1 on any other error.
int baseline_jpeg_decode_rgba(const unsigned char *data, size_t length,
                              int scale_denominator, long max_memory,
                              unsigned char *pixels, size_t pixels_length,
                              int width, int height,
                              char *message, size_t message_capacity);

#endif
