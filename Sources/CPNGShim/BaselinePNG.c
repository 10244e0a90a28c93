// Only Linux decodes with libpng; Apple platforms use ImageIO and compile
// this file empty.
#if defined(__linux__)

#include "BaselinePNG.h"

#include <png.h>
#include <setjmp.h>
#include <string.h>

struct baseline_png_reader {
    const unsigned char *data;
    size_t length;
    size_t offset;
    char message[256];
};

static void baseline_png_copy(const char *source, char *message, size_t capacity) {
    if (message == NULL || capacity == 0) return;
    strncpy(message, source, capacity - 1);
    message[capacity - 1] = '\0';
}

static void baseline_png_error(png_structp png, png_const_charp text) {
    struct baseline_png_reader *reader = (struct baseline_png_reader *)png_get_error_ptr(png);
    baseline_png_copy(text != NULL ? text : "", reader->message, sizeof reader->message);
    png_longjmp(png, 1);
}

static void baseline_png_warning(png_structp png, png_const_charp text) {
    // Never print to stderr from a library; warnings (benign errors
    // included, as the simplified API treats them) do not fail the image.
    (void)png;
    (void)text;
}

static void baseline_png_read(png_structp png, png_bytep output, size_t count) {
    struct baseline_png_reader *reader = (struct baseline_png_reader *)png_get_io_ptr(png);
    if (count > reader->length - reader->offset) png_error(png, "The PNG data ends early");
    memcpy(output, reader->data + reader->offset, count);
    reader->offset += count;
}

int baseline_png_decode_rgba_rows(const unsigned char *data, size_t length,
                                  unsigned char *pixels, size_t pixels_length,
                                  unsigned int width, unsigned int height,
                                  char *message, size_t message_capacity) {
    struct baseline_png_reader reader;
    memset(&reader, 0, sizeof reader);
    reader.data = data;
    reader.length = length;

    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, baseline_png_error, baseline_png_warning);
    if (png == NULL) {
        baseline_png_copy("libpng could not start", message, message_capacity);
        return 1;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        baseline_png_copy("libpng could not start", message, message_capacity);
        return 1;
    }
    // Neither `png` nor `info` changes after this point, so both are intact
    // when libpng jumps back here.
    if (setjmp(png_jmpbuf(png))) {
        baseline_png_copy(reader.message, message, message_capacity);
        png_destroy_read_struct(&png, &info, NULL);
        return 1;
    }
    png_set_read_fn(png, &reader, baseline_png_read);
    png_set_benign_errors(png, 1);
    png_read_info(png, info);
    if (png_get_image_width(png, info) != width || png_get_image_height(png, info) != height) {
        png_error(png, "The PNG's size differs from its header");
    }

    // The simplified API's transformations for 8-bit RGBA, in its order
    // (png_image_read_direct).
    int color_type = png_get_color_type(png, info);
    png_set_expand(png);
    if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    // The first call sets the gamma assumed for a file without gAMA or sRGB:
    // sRGB, 16-bit files too (PNG_IMAGE_FLAG_16BIT_sRGB).
    png_set_alpha_mode_fixed(png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    if (png_get_bit_depth(png, info) == 16) png_set_scale_16(png);
    if ((color_type & PNG_COLOR_MASK_ALPHA) == 0 && png_get_valid(png, info, PNG_INFO_tRNS) == 0) {
        png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    }
    // The second sets the output: straight alpha, sRGB.
    png_set_alpha_mode_fixed(png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);

    size_t stride = (size_t)width * 4;
    if (png_get_bit_depth(png, info) != 8 || png_get_color_type(png, info) != PNG_COLOR_TYPE_RGB_ALPHA
        || stride == 0 || stride / 4 != width || png_get_rowbytes(png, info) != stride
        || height > pixels_length / stride) {
        png_error(png, "libpng's output is not RGBA of the PNG's size");
    }
    // Each pass reads every row: libpng skips the rows a pass does not touch
    // and combines the others with the earlier passes' pixels in place.
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, pixels + (size_t)y * stride, NULL);
        }
    }
    // Not png_read_end: every row is in, and chunks after the image data
    // should not fail it (the simplified API does not read them either).
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

#endif
