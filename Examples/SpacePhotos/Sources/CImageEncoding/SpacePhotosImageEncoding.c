#include "SpacePhotosImageEncoding.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <jpeglib.h>

static void copy_message(const char *source, char *message, size_t capacity) {
    if (message == NULL || capacity == 0) return;
    strncpy(message, source, capacity - 1);
    message[capacity - 1] = '\0';
}

void spacephotos_free(unsigned char *file) {
    free(file);
}

// MARK: - PNG

// The growing output of one PNG encode, and where its error message goes.
struct png_output {
    unsigned char *bytes;
    size_t length;
    size_t capacity;
    int out_of_memory;
    char message[200];
};

static void png_fail(png_structp png, png_const_charp text) {
    struct png_output *output = png_get_error_ptr(png);
    copy_message(text, output->message, sizeof(output->message));
    png_longjmp(png, 1);
}

static void png_warn(png_structp png, png_const_charp text) {
    // Never print to stderr from a server: a warning does not stop the file.
    (void)png;
    (void)text;
}

static void png_append(png_structp png, png_bytep data, size_t length) {
    struct png_output *output = png_get_io_ptr(png);
    if (output->length + length > output->capacity) {
        size_t capacity = output->capacity * 2;
        if (capacity < output->length + length) capacity = output->length + length;
        unsigned char *grown = realloc(output->bytes, capacity);
        if (grown == NULL) {
            output->out_of_memory = 1;
            png_error(png, "out of memory for the PNG file");
        }
        output->bytes = grown;
        output->capacity = capacity;
    }
    memcpy(output->bytes + output->length, data, length);
    output->length += length;
}

static void png_flush_nothing(png_structp png) {
    (void)png;
}

int spacephotos_encode_png(const unsigned char *pixels, int width, int height, int channels,
                           int compression_level,
                           unsigned char **file, size_t *file_length,
                           char *message, size_t message_capacity) {
    *file = NULL;
    *file_length = 0;
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        copy_message("invalid image size or layout", message, message_capacity);
        return 1;
    }
    // The locals the error path uses (`output`, `rows`, `png`, `info`) are
    // all set before setjmp and never assigned after it; what changes
    // (the file buffer and its length) is on the heap behind `output`. So
    // their values are defined when longjmp returns here (C11 7.13.2.1).
    struct png_output *output = calloc(1, sizeof(*output));
    png_bytep *rows = malloc(sizeof(png_bytep) * (size_t)height);
    if (output != NULL) {
        output->capacity = (size_t)width * (size_t)channels * 16 + 1024;
        output->bytes = malloc(output->capacity);
    }
    png_structp png = output == NULL ? NULL : png_create_write_struct(PNG_LIBPNG_VER_STRING, output, png_fail, png_warn);
    png_infop info = png == NULL ? NULL : png_create_info_struct(png);
    if (rows == NULL || output == NULL || output->bytes == NULL || info == NULL) {
        png_destroy_write_struct(&png, NULL);
        free(rows);
        if (output != NULL) free(output->bytes);
        free(output);
        copy_message("out of memory for the PNG encoder", message, message_capacity);
        return 1;
    }
    if (setjmp(png_jmpbuf(png))) {
        copy_message(output->message, message, message_capacity);
        png_destroy_write_struct(&png, &info);
        free(rows);
        free(output->bytes);
        free(output);
        return 1;
    }

    png_set_write_fn(png, output, png_append, png_flush_nothing);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, compression_level);
    // Stored files gain nothing from filtering; compressed ones let libpng
    // pick the cheapest filter row by row.
    png_set_filter(png, PNG_FILTER_TYPE_BASE, compression_level == 0 ? PNG_FILTER_NONE : PNG_ALL_FILTERS);
    size_t stride = (size_t)width * (size_t)channels;
    for (int y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + stride * (size_t)y);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, NULL);

    png_destroy_write_struct(&png, &info);
    free(rows);
    *file = output->bytes;
    *file_length = output->length;
    free(output);
    return 0;
}

// MARK: - JPEG

struct jpeg_failure {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void jpeg_fail(j_common_ptr cinfo) {
    struct jpeg_failure *failure = (struct jpeg_failure *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, failure->message);
    longjmp(failure->jump, 1);
}

static void jpeg_output_nothing(j_common_ptr cinfo) {
    (void)cinfo;
}

int spacephotos_encode_jpeg(const unsigned char *pixels, int width, int height, int channels,
                            int quality, int subsample_chroma,
                            unsigned char **file, size_t *file_length,
                            char *message, size_t message_capacity) {
    *file = NULL;
    *file_length = 0;
    if (width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION
        || (channels != 3 && channels != 4)) {
        copy_message("invalid image size or layout", message, message_capacity);
        return 1;
    }
    // jpeg_mem_dest mallocs and grows the buffer, writing its address and
    // length as it goes: into a heap struct made before setjmp, so that the
    // error path reads libjpeg's last writes (locals changed after setjmp
    // would be indeterminate there, C11 7.13.2.1).
    struct jpeg_compress_struct cinfo;
    struct jpeg_failure failure;
    struct jpeg_output { unsigned char *buffer; unsigned long length; } *out = calloc(1, sizeof(struct jpeg_output));
    if (out == NULL) {
        copy_message("out of memory for the JPEG encoder", message, message_capacity);
        return 1;
    }
    memset(&cinfo, 0, sizeof(cinfo));
    memset(&failure, 0, sizeof(failure));
    cinfo.err = jpeg_std_error(&failure.base);
    failure.base.error_exit = jpeg_fail;
    failure.base.output_message = jpeg_output_nothing;
    if (setjmp(failure.jump)) {
        copy_message(failure.message, message, message_capacity);
        jpeg_destroy_compress(&cinfo);
        free(out->buffer);
        free(out);
        return 1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &out->buffer, &out->length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = channels;
    cinfo.in_color_space = channels == 4 ? JCS_EXT_RGBA : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    // jpeg_set_defaults chose 2×2 luma sampling (4:2:0); 1×1 keeps all colour.
    int luma_sampling = subsample_chroma ? 2 : 1;
    cinfo.comp_info[0].h_samp_factor = luma_sampling;
    cinfo.comp_info[0].v_samp_factor = luma_sampling;
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)channels;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *file = out->buffer;
    *file_length = (size_t)out->length;
    free(out);
    return 0;
}
