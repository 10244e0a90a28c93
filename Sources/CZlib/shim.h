// zlib, for BaselineHTTP's gzip and deflate response decoding.
#include <zlib.h>

// inflateInit2 is a macro, which Swift does not import: the function it
// calls needs the library's version and the stream's size, given here.
static inline int czlib_inflate_init(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

// deflateInit2, for the same reason: the tests and benchmarks compress with it.
static inline int czlib_deflate_init(z_streamp stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}
