// Only Linux decodes with libjpeg; Apple platforms use ImageIO and compile
// this file empty.
#if defined(__linux__)

#include "BaselineJPEG.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

// One decode's error handling and progress monitor: libjpeg hands each
// callback the decompressor, whose `err` points at the first member.
struct baseline_state {
    struct jpeg_error_mgr base;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    // The decompressor fails when a scan starts past this number.
    int maximum_scans;
    int too_many_scans;
    // The source ran out: libjpeg warned and supplied an end-of-image marker.
    int data_ended;
    // The data is known to end where a scan ends (see decode_once), so an
    // early end means only that later scans and the final EOI are missing.
    int ends_after_scan;
};

static void baseline_fail(j_common_ptr cinfo) {
    struct baseline_state *state = (struct baseline_state *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, state->message);
    longjmp(state->jump, 1);
}

static void baseline_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; // trace messages: ignored
    struct baseline_state *state = (struct baseline_state *)cinfo->err;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF) {
        // The data ended. Where the first scan has begun, the end is
        // tolerated: if a scan then needs bits that never came, the Huffman
        // decoder says so (JWRN_HIT_MARKER, below), and what remains is a
        // file missing only its final EOI or later scans. The arithmetic
        // decoder gives no such sign (it reads zeros past the end), so there
        // an end counts only where the data is known to stop at a scan's end.
        state->data_ended = 1;
        if (dinfo->input_scan_number < 1 || (dinfo->arith_code && !state->ends_after_scan)) baseline_fail(cinfo);
    } else if (code == JWRN_HIT_MARKER) {
        // A scan ran out of data: its end is missing or damaged. libjpeg would
        // fill the rest with gray; the caller decides what to do instead.
        baseline_fail(cinfo);
    }
    // Other warnings are tolerated, as browsers do.
    cinfo->err->num_warnings++;
}

static void baseline_output_message(j_common_ptr cinfo) {
    // Never print to stderr from a library.
    (void)cinfo;
}

// Called before each step of reading input: refuses a scan past the limit
// before any of its data is decoded, as djpeg's -maxscans does.
static void baseline_progress_monitor(j_common_ptr cinfo) {
    struct baseline_state *state = (struct baseline_state *)cinfo->err;
    if (!cinfo->is_decompressor) return;
    int scan = ((j_decompress_ptr)cinfo)->input_scan_number;
    if (scan > state->maximum_scans) {
        state->too_many_scans = 1;
        snprintf(state->message, sizeof state->message, "The JPEG has more than %d scans", state->maximum_scans);
        longjmp(state->jump, 1);
    }
}

static void baseline_copy_message(const char *source, char *message, size_t capacity) {
    if (message == NULL || capacity == 0) return;
    strncpy(message, source, capacity - 1);
    message[capacity - 1] = '\0';
}

static void baseline_prepare(struct jpeg_decompress_struct *cinfo, struct baseline_state *state, int maximum_scans) {
    // Zeroed first, so that jpeg_destroy_decompress is safe even when an
    // error happens before jpeg_create_decompress has finished.
    memset(cinfo, 0, sizeof(*cinfo));
    memset(state, 0, sizeof(*state));
    cinfo->err = jpeg_std_error(&state->base);
    state->base.error_exit = baseline_fail;
    state->base.emit_message = baseline_emit_message;
    state->base.output_message = baseline_output_message;
    state->maximum_scans = maximum_scans;
    state->progress.progress_monitor = baseline_progress_monitor;
}

// What a failed decode means to the caller.
static int baseline_failure_status(struct jpeg_decompress_struct *cinfo, struct baseline_state *state) {
    if (state->too_many_scans) return BASELINE_JPEG_TOO_MANY_SCANS;
    switch (cinfo->err->msg_code) {
    // Over the budget, libjpeg asks for a backing store to spill to, which
    // this build does not have.
    case JERR_NO_BACKING_STORE:
    case JERR_OUT_OF_MEMORY:
        return BASELINE_JPEG_OVER_BUDGET;
    // Valid JPEG that this libjpeg does not decode: lossless and
    // hierarchical processes (SOF3, SOF5–7, SOF11, SOF13–15), 12- and 16-bit
    // samples, and what it was built without or cannot convert to RGBA.
    case JERR_SOF_UNSUPPORTED:
    case JERR_BAD_PRECISION:
    case JERR_NOT_COMPILED:
    case JERR_NOTIMPL:
    case JERR_ARITH_NOTIMPL:
    case JERR_CCIR601_NOTIMPL:
    case JERR_FRACT_SAMPLE_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
        return BASELINE_JPEG_UNSUPPORTED;
    default:
        return BASELINE_JPEG_CORRUPT;
    }
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
    struct baseline_state state;
    baseline_prepare(&cinfo, &state, 1);
    if (setjmp(state.jump)) {
        baseline_copy_message(state.message, message, message_capacity);
        int status = baseline_failure_status(&cinfo, &state);
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    baseline_set_scale(&cinfo, scale_denominator);
    jpeg_calc_output_dimensions(&cinfo);
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    return BASELINE_JPEG_OK;
}

// The length of the prefix of `data` that ends where the last scan whose
// entropy-coded data is whole ends (the offset of the marker after it), or 0
// when no scan is whole. Reads only the marker structure, never a scan's
// contents.
static size_t baseline_jpeg_end_of_whole_scans(const unsigned char *data, size_t length) {
    size_t end = 0;
    size_t at = 2; // after SOI
    while (at + 1 < length) {
        if (data[at] != 0xFF) return end; // not a marker: damaged
        unsigned char marker = data[at + 1];
        if (marker == 0xFF) { at += 1; continue; } // a fill byte before a marker
        if (marker == 0xD9) return end; // EOI
        if (marker == 0x01 || marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7)) { at += 2; continue; } // no length
        if (at + 3 >= length) return end;
        size_t segment = ((size_t)data[at + 2] << 8) | data[at + 3];
        // Compared, never added past the length: `length - at - 2` is at least 2 here.
        if (segment < 2 || segment > length - at - 2) return end;
        at += 2 + segment;
        if (marker != 0xDA) continue;
        // The scan's entropy-coded data runs to the next marker other than a
        // restart; 0xFF 0x00 is a data byte 0xFF.
        for (;;) {
            const unsigned char *found = at < length ? memchr(data + at, 0xFF, length - at) : NULL;
            if (found == NULL) return end;
            size_t next = (size_t)(found - data) + 1;
            while (next < length && data[next] == 0xFF) next++;
            if (next >= length) return end;
            if (data[next] == 0x00 || (data[next] >= 0xD0 && data[next] <= 0xD7)) { at = next + 1; continue; }
            // The scan is whole: the marker after it starts at `next - 1`.
            end = next - 1;
            at = next - 1;
            break;
        }
    }
    return end;
}

// One decode of `length` bytes of `data`; see baseline_jpeg_decode_rgba.
// `ends_after_scan` says the data is known to end where a scan does. Sets
// `data_ended` when the data ran out.
static int decode_once(const unsigned char *data, size_t length,
                       int scale_denominator, long max_memory, int max_scans, int ends_after_scan,
                       unsigned char *pixels, size_t pixels_length,
                       int width, int height,
                       int *data_ended,
                       char *message, size_t message_capacity) {
    struct jpeg_decompress_struct cinfo;
    struct baseline_state state;
    baseline_prepare(&cinfo, &state, max_scans);
    state.ends_after_scan = ends_after_scan;
    if (setjmp(state.jump)) {
        baseline_copy_message(state.message, message, message_capacity);
        *data_ended = state.data_ended;
        int status = baseline_failure_status(&cinfo, &state);
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = max_memory;
    cinfo.progress = &state.progress;
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
    // A progressive (or other multi-scan) JPEG is read whole here, scan by
    // scan, into libjpeg's coefficient buffer; the rows come out below.
    jpeg_start_decompress(&cinfo);

    size_t stride = (size_t)cinfo.output_width * 4;
    if (width <= 0 || height <= 0 || (int)cinfo.output_width != width || (int)cinfo.output_height != height
        || cinfo.output_components != 4 || cinfo.output_height > pixels_length / stride) {
        baseline_copy_message("The JPEG's decoded size differs from its header", message, message_capacity);
        jpeg_destroy_decompress(&cinfo);
        return BASELINE_JPEG_CORRUPT;
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
    // Not jpeg_finish_decompress: every row is in, and what follows the last
    // scan (trailing garbage, a missing EOI) should not fail the image.
    jpeg_destroy_decompress(&cinfo);
    return BASELINE_JPEG_OK;
}

int baseline_jpeg_decode_rgba(const unsigned char *data, size_t length,
                              int scale_denominator, long max_memory, int max_scans,
                              unsigned char *pixels, size_t pixels_length,
                              int width, int height,
                              char *message, size_t message_capacity) {
    int data_ended = 0;
    int status = decode_once(data, length, scale_denominator, max_memory, max_scans, 0,
                             pixels, pixels_length, width, height, &data_ended, message, message_capacity);
    if (status != BASELINE_JPEG_CORRUPT || !data_ended) return status;
    // The data ended inside a scan, or inside the markers between two scans,
    // where libjpeg cannot go on. Decode again up to the end of the last
    // whole scan, as if the file ended there: a progressive JPEG shows what
    // its complete scans make. With no whole scan, the first error stands.
    size_t end = baseline_jpeg_end_of_whole_scans(data, length);
    if (end == 0) return status;
    data_ended = 0;
    return decode_once(data, end, scale_denominator, max_memory, max_scans, 1,
                       pixels, pixels_length, width, height, &data_ended, message, message_capacity);
}

#endif
