// libpng, for the PNG decoder on Linux (BaselineImages uses its simplified
// png_image API, which reports errors by return value, not longjmp).
#include <png.h>

// PNG_FORMAT_RGBA is an expression of other macros, which Swift may not
// import: a constant it always does.
static const unsigned int cpng_format_rgba = PNG_FORMAT_RGBA;
static const unsigned int cpng_image_version = PNG_IMAGE_VERSION;
static const unsigned int cpng_flag_16bit_srgb = PNG_IMAGE_FLAG_16BIT_sRGB;
