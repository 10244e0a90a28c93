// Only Linux decodes with libjpeg; Apple platforms use ImageIO and compile
// this file empty.
#if defined(__linux__)

#include "BaselineJPEG.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct baseline_error_manager {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void baseline_fail(j_common_ptr cinfo) {
    struct baseline_error_manager *manager = (struct baseline_error_manager *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, manager->message);
    longjmp(manager->jump, 1);
}

static void baseline_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; // trace messages: ignored
    // A warning. These two mean the data ended or a segment was cut short:
    // libjpeg would go on and fill the rest of the image with gray, which we
    // report as a corrupt image instead. Other warnings are tolerated, as
    // browsers do.
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER) baseline_fail(cinfo);
    cinfo->err->num_warnings++;
}

static void baseline_output_message(j_common_ptr cinfo) {
    // Never print to stderr from a library.
    (void)cinfo;
}

static void baseline_copy_message(const char *source, char *message, size_t capacity) {
    if (message == NULL || capacity == 0) return;
    strncpy(message, source, capacity - 1);
    message[capacity - 1] = '\0';
}

static void baseline_prepare(struct jpeg_decompress_struct *cinfo, struct baseline_error_manager *manager) {
    // Zeroed first, so that jpeg_destroy_decompress is safe even when an
    // error happens before jpeg_create_decompress has finished.
    memset(cinfo, 0, sizeof(*cinfo));
    memset(manager, 0, sizeof(*manager));
    cinfo->err = jpeg_std_error(&manager->base);
    manager->base.error_exit = baseline_fail;
    manager->base.emit_message = baseline_emit_message;
    manager->base.output_message = baseline_output_message;
}

// Asks libjpeg for output at 1/`denominator` of the stored size.
static void baseline_set_scale(struct jpeg_decompress_struct *cinfo, int denominator) {
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)(denominator == 2 || denominator == 4 || denominator == 8 ? denominator : 1);
}

int baseline_jpeg_read_size(const unsigned char *data, size_t length,
                            int scale_denominator,
                            int *width, int *height,
                            char *message, size_t message_capacity) {
    struct jpeg_decompress_struct cinfo;
    struct baseline_error_manager manager;
    baseline_prepare(&cinfo, &manager);
    if (setjmp(manager.jump)) {
        baseline_copy_message(manager.message, message, message_capacity);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    baseline_set_scale(&cinfo, scale_denominator);
    jpeg_calc_output_dimensions(&cinfo);
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

int baseline_jpeg_decode_rgba(const unsigned char *data, size_t length,
                              int scale_denominator, long max_memory,
                              unsigned char *pixels, size_t pixels_length,
                              int width, int height,
                              char *message, size_t message_capacity) {
    struct jpeg_decompress_struct cinfo;
    struct baseline_error_manager manager;
    baseline_prepare(&cinfo, &manager);
    if (setjmp(manager.jump)) {
        baseline_copy_message(manager.message, message, message_capacity);
        // Over the budget, libjpeg asks for a backing store to spill to,
        // which this build does not have.
        int code = cinfo.err->msg_code;
        int over_budget = code == JERR_NO_BACKING_STORE || code == JERR_OUT_OF_MEMORY;
        jpeg_destroy_decompress(&cinfo);
        return over_budget ? 2 : 1;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = max_memory;
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);

    // libjpeg-turbo converts YCbCr, RGB and grayscale to RGBA itself; CMYK
    // and YCCK come out as CMYK, converted below.
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    baseline_set_scale(&cinfo, scale_denominator);
    if (cinfo.scale_denom > 1) {
        // A thumbnail: the faster integer DCT and plain chroma upsampling
        // cost nothing visible at this size, and a third of the time.
        cinfo.dct_method = JDCT_IFAST;
        cinfo.do_fancy_upsampling = FALSE;
    }
    jpeg_start_decompress(&cinfo);

    size_t stride = (size_t)cinfo.output_width * 4;
    if ((int)cinfo.output_width != width || (int)cinfo.output_height != height
        || cinfo.output_components != 4 || stride * cinfo.output_height > pixels_length) {
        baseline_copy_message("The JPEG's decoded size differs from its header", message, message_capacity);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    if (cmyk) {
        // Adobe writes CMYK inverted (0 = full ink); others store ink amounts.
        int inverted = cinfo.saw_Adobe_marker;
        size_t count = (size_t)width * (size_t)height;
        for (size_t i = 0; i < count; i++) {
            unsigned char *p = pixels + i * 4;
            unsigned int c = p[0], m = p[1], y = p[2], k = p[3];
            if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
            p[0] = (unsigned char)((c * k + 127) / 255);
            p[1] = (unsigned char)((m * k + 127) / 255);
            p[2] = (unsigned char)((y * k + 127) / 255);
            p[3] = 255;
        }
    }
    // Not jpeg_finish_decompress: every row is in, and data after the last
    // scan (trailing garbage, a missing EOI) should not fail the image.
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

#endif
