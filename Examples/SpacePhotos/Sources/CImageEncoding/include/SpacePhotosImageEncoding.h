#ifndef SPACEPHOTOS_IMAGE_ENCODING_H
#define SPACEPHOTOS_IMAGE_ENCODING_H

#include <stddef.h>

// The example server's image files, written by libpng and libjpeg.
//
// Both libraries report fatal errors by longjmp, which Swift cannot catch:
// these functions hold the setjmp and turn every error into a nonzero return
// with the library's message in `message` (NUL-terminated, truncated to
// fit). They are thread-safe: each call has its own encoder.
//
// On success, `*file` is a buffer of `*file_length` bytes that the caller
// releases with `spacephotos_free`; on failure it is NULL.

/// Encodes `height` rows of `width` pixels of `channels` bytes (3: RGB,
/// 4: RGBA), top row first, as an 8-bit PNG. `compression_level` is zlib's,
/// 0 (stored) to 9; rows are filtered adaptively. Returns 0 on success.
int spacephotos_encode_png(const unsigned char *pixels, int width, int height, int channels,
                           int compression_level,
                           unsigned char **file, size_t *file_length,
                           char *message, size_t message_capacity);

/// Encodes pixels laid out as for `spacephotos_encode_png` as a baseline
/// JFIF file at `quality` (1–100); alpha is dropped. `subsample_chroma`
/// nonzero halves the colour resolution both ways (4:2:0), as cameras do;
/// zero keeps it (4:4:4). Huffman tables are optimised for the image.
/// Returns 0 on success.
int spacephotos_encode_jpeg(const unsigned char *pixels, int width, int height, int channels,
                            int quality, int subsample_chroma,
                            unsigned char **file, size_t *file_length,
                            char *message, size_t message_capacity);

/// Releases a file an encoder returned.
void spacephotos_free(unsigned char *file);

#endif
