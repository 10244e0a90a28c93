#ifndef BASELINE_JPEG_H
#define BASELINE_JPEG_H

#include <stddef.h>

// libjpeg reports a fatal error by calling error_exit, which must not return:
// the library's own default exits the process. Swift cannot setjmp, so these
// functions hold the setjmp/longjmp pair and turn every libjpeg error (and
// the warnings that mean data is missing) into a nonzero status with the
// library's message in `message` (NUL-terminated, truncated to fit).
//
// They are thread-safe: each call uses its own decompressor.

/// Decoded.
#define BASELINE_JPEG_OK 0
/// Malformed, or missing data that a usable image needs.
#define BASELINE_JPEG_CORRUPT 1
/// Needs more working memory than `max_memory`.
#define BASELINE_JPEG_OVER_BUDGET 2
/// Valid JPEG of a kind libjpeg does not decode (lossless, hierarchical,
/// 12-bit, or not convertible to RGBA).
#define BASELINE_JPEG_UNSUPPORTED 3
/// More scans than `max_scans`.
#define BASELINE_JPEG_TOO_MANY_SCANS 4

/// Reads the header of the JPEG in `data` and sets `width` and `height` to
/// the size it decodes to at 1/`scale_denominator` scale (1, 2, 4 or 8:
/// libjpeg scales in the DCT, so a smaller image costs less to decode, not
/// more). Returns BASELINE_JPEG_OK, BASELINE_JPEG_CORRUPT or
/// BASELINE_JPEG_UNSUPPORTED.
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
/// small the scale, so a small file can otherwise ask for gigabytes. A JPEG
/// with more than `max_scans` scans fails before the next scan is decoded:
/// each scan of a progressive JPEG is a pass over the whole image, so a
/// small file of thousands of scans would otherwise cost unbounded time.
///
/// Data that ends early: a file missing only its final EOI decodes. A
/// progressive (or other multi-scan) JPEG that ends inside a scan or between
/// two decodes to what its whole scans make, as if it ended after the last
/// of them; one whose first scan is not whole is corrupt.
///
/// Returns one of the BASELINE_JPEG_ statuses.
int baseline_jpeg_decode_rgba(const unsigned char *data, size_t length,
                              int scale_denominator, long max_memory, int max_scans,
                              unsigned char *pixels, size_t pixels_length,
                              int width, int height,
                              char *message, size_t message_capacity);

#endif
