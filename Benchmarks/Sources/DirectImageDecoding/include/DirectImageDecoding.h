// libpng and libjpeg called directly, as a C program would: the yardstick for
// BaselineImages' decoders in the image benchmarks. Linux only.
#ifndef DIRECT_IMAGE_DECODING_H
#define DIRECT_IMAGE_DECODING_H

#include <stddef.h>

/// Decodes a PNG to 8-bit RGBA with libpng's simplified API. Returns a
/// malloc'd buffer of 4 * width * height bytes (free it with direct_free), or
/// NULL on failure.
unsigned char *direct_png_decode(const unsigned char *data, size_t size, int *width, int *height);

/// Decodes a JPEG to 8-bit RGBA (JCS_EXT_RGBA) with libjpeg. Returns a
/// malloc'd buffer of 4 * width * height bytes (free it with direct_free), or
/// NULL on failure.
unsigned char *direct_jpeg_decode(const unsigned char *data, size_t size, int *width, int *height);

void direct_free(void *buffer);

#endif
