/* SPDX-License-Identifier: MIT */
/* wrap_foreign: gpumat on memory another library owns, without copying.
 *  - an OpenCV cv::cuda::GpuMat (data pointer, step in bytes, rows, cols,
 *    type) becomes a gm_mat with gm_from_cv_type + gm_wrap, and a cv::Rect
 *    of it a gm_roi view;
 *  - a torch tensor (data_ptr, sizes, strides in elements, a view into a
 *    bigger tensor) becomes a gm_mat through its DLPack description;
 * then the GpuMat's ROI is pre-processed straight into the tensor's view.
 * Neither library is needed to build: their buffers are stood in for by
 * memory allocated here (on the GPU when there is one, else on the host,
 * where the CPU path runs), described exactly as they would describe it.
 *
 * Build and run: make examples && ./build/wrap_foreign */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ROWS 480
#define COLS 640
#define STEP 2048 /* bytes per row: cudaMallocPitch pads 640 * 3 up like this */

/* What a cv::cuda::GpuMat exposes (OpenCV's field names). */
typedef struct gpumat_like {
    void* data;
    size_t step;
    int rows, cols, type; /* type: CV_8UC3 = 16 */
} gpumat_like;

/* A crop of ROI_H x ROI_W pixels at (ROI_X, ROI_Y), as cv::Rect. */
#define ROI_X 64
#define ROI_Y 48
#define ROI_W 320
#define ROI_H 240

/* The tensor the crop goes to: a view t[1, :, 8:8+ROI_H, 16:16+ROI_W] of a
 * (2, 3, 256, 352) f32 tensor, so neither compact nor at its storage's start. */
static const int64_t big[4] = {2, 3, 256, 352};

/* Runs everything with the foreign buffers in `where`; copies the tensor
 * view out to host_view (3 x ROI_H x ROI_W floats). */
static gm_status run(gm_where where, float* host_view)
{
    gm_mat camera_mem, storage, image, crop, tensor, host;
    gm_desc cam = {0}, flat = {0};
    gpumat_like g;
    gm_dtype dtype;
    int channels, y, x;
    gm_status s;
    static unsigned char pixels[ROWS][COLS * 3];
    int64_t shape[4] = {3, ROI_H, ROI_W}, strides[4];
    gm_dl_tensor t;

    memset(&camera_mem, 0, sizeof camera_mem);
    memset(&storage, 0, sizeof storage);
    /* the other libraries' allocations */
    cam.width = COLS, cam.height = ROWS, cam.channels = 3, cam.dtype = GM_U8, cam.pitch = STEP;
    flat.width = big[0] * big[1] * big[2] * big[3] * (int64_t)sizeof(float), flat.height = 1, flat.dtype = GM_U8;
    if ((s = gm_alloc_desc(&camera_mem, &cam, where)) != GM_OK || (s = gm_alloc_desc(&storage, &flat, where)) != GM_OK)
        goto done;
    g.data = camera_mem.data, g.step = STEP, g.rows = ROWS, g.cols = COLS, g.type = 16;
    for (y = 0; y < ROWS; ++y)
        for (x = 0; x < COLS * 3; ++x)
            pixels[y][x] = (unsigned char)(x * 3 + y * 5);
    if ((s = gm_wrap(&host, pixels, COLS, ROWS, GM_U8, 3, GM_HWC, 0, GM_HOST)) != GM_OK ||
        (s = gm_copy(&host, &camera_mem, NULL)) != GM_OK) /* the camera's frame arrives */
        goto done;

    /* 1. the GpuMat and its cv::Rect */
    if ((s = gm_from_cv_type(g.type, &dtype, &channels)) != GM_OK ||
        (s = gm_wrap(&image, g.data, g.cols, g.rows, dtype, channels, GM_HWC, (int64_t)g.step, where)) != GM_OK ||
        (s = gm_roi(&image, &crop, ROI_X, ROI_Y, ROI_W, ROI_H)) != GM_OK)
        goto done;

    /* 2. the tensor view: torch's data_ptr is storage + offset * 4, its
     * strides those of the big tensor */
    strides[0] = big[2] * big[3], strides[1] = big[3], strides[2] = 1;
    memset(&t, 0, sizeof t);
    t.data = storage.data;
    t.byte_offset = (uint64_t)(1 * big[1] * big[2] * big[3] + 8 * big[3] + 16) * sizeof(float);
    t.device.device_type = where == GM_DEVICE ? GM_DL_CUDA : GM_DL_CPU;
    t.device.device_id = storage.device;
    t.ndim = 3, t.dtype.code = GM_DL_FLOAT, t.dtype.bits = 32, t.dtype.lanes = 1;
    t.shape = shape, t.strides = strides;
    if ((s = gm_from_dlpack(&tensor, &t, GM_CHW)) != GM_OK)
        goto done;

    /* 3. BGR u8 crop -> RGB f32 in 0..1, written inside the tensor view */
    if ((s = gm_blob_from_image(&crop, &tensor, 1.0 / 255, NULL, NULL, 1, NULL)) != GM_OK)
        goto done;
    /* what the tensor's owner now sees in the view, copied out to look at */
    if ((s = gm_wrap(&host, host_view, ROI_W, ROI_H, GM_F32, 3, GM_CHW, 0, GM_HOST)) == GM_OK &&
        (s = gm_copy(&tensor, &host, NULL)) == GM_OK && where == GM_DEVICE)
        s = gm_sync(NULL);
done:
    gm_free(&camera_mem);
    gm_free(&storage);
    return s;
}

int main(void)
{
    static float cpu[3 * ROI_H * ROI_W], gpu[3 * ROI_H * ROI_W];
    int frame_byte = ((ROI_X + 20) * 3 + 2) * 3 + (ROI_Y + 10) * 5; /* R of crop pixel (20, 10) in the frame */
    char name[256];
    int major, minor, ok;
    if (run(GM_HOST, cpu) != GM_OK) {
        printf("wrap_foreign: FAILED on the CPU path: %s\n", gm_last_error());
        return 1;
    }
    ok = fabsf(cpu[10 * ROI_W + 20] - (float)(frame_byte % 256) / 255.0f) < 1e-6f;
    if (gm_device(&major, &minor, name, sizeof name) == GM_OK) {
        if (run(GM_DEVICE, gpu) != GM_OK) {
            printf("wrap_foreign: FAILED on the GPU: %s\n", gm_last_error());
            return 1;
        }
        ok = ok && !memcmp(cpu, gpu, sizeof cpu);
        printf("wrap_foreign: %s: GpuMat-style ROI -> torch-style tensor view on %s %s the CPU path\n",
               ok ? "OK" : "FAILED", name, ok ? "matches" : "DIFFERS from");
    } else {
        printf("wrap_foreign: %s: no GPU (%s); the CPU path filled the tensor view\n", ok ? "OK" : "FAILED",
               gm_last_error());
    }
    return ok ? 0 : 1;
}
