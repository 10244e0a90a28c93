#include <zlib.h>

// deflateInit2 is a macro, which Swift does not import: the function it
// calls needs the library's version and the stream's size, given here.
static inline int clibz_deflate_init(z_streamp stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}
