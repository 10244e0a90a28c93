#include "DirectImageDecoding.h"

#ifdef __linux__
#include <png.h>
#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

unsigned char *direct_png_decode(const unsigned char *data, size_t size, int *width, int *height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return NULL;
    image.format = PNG_FORMAT_RGBA;
    unsigned char *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (pixels == NULL) { png_image_free(&image); return NULL; }
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) { free(pixels); return NULL; }
    *width = (int)image.width;
    *height = (int)image.height;
    return pixels;
}

struct direct_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
};

static void direct_jpeg_error_exit(j_common_ptr info) {
    longjmp(((struct direct_jpeg_error *)info->err)->escape, 1);
}

unsigned char *direct_jpeg_decode(const unsigned char *data, size_t size, int *width, int *height) {
    struct jpeg_decompress_struct info;
    struct direct_jpeg_error error;
    unsigned char *volatile pixels = NULL;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = direct_jpeg_error_exit;
    if (setjmp(error.escape)) {
        jpeg_destroy_decompress(&info);
        free(pixels);
        return NULL;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * 4;
    pixels = malloc(stride * info.output_height);
    if (pixels == NULL) { jpeg_destroy_decompress(&info); return NULL; }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    *width = (int)info.output_width;
    *height = (int)info.output_height;
    jpeg_destroy_decompress(&info);
    return pixels;
}

void direct_free(void *buffer) { free(buffer); }

#else
// ImageIO is the yardstick on Apple platforms; these report failure.
unsigned char *direct_png_decode(const unsigned char *data, size_t size, int *width, int *height) { return 0; }
unsigned char *direct_jpeg_decode(const unsigned char *data, size_t size, int *width, int *height) { return 0; }
void direct_free(void *buffer) {}
#endif
