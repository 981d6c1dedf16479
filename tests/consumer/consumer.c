/* consumer: the smallest program built against an installed or single-header
 * gpumat (tests/packaging.sh builds it through pkg-config, CMake and the
 * single header). CPU path only, so it runs anywhere: a 4x2 BGR image to an
 * RGB float blob, then out through DLPack. Prints "consumer: OK (gpumat
 * VERSION)" on success, VERSION from gm_version(), once it equals the
 * header's GPUMAT_VERSION_STRING. */
#define GPUMAT_IMPLEMENTATION
#include <gpumat.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    unsigned char bgr[2][4][3] = {{{10, 20, 30}, {40, 50, 60}, {70, 80, 90}, {1, 2, 3}},
                                  {{4, 5, 6}, {7, 8, 9}, {11, 12, 13}, {14, 15, 16}}};
    float blob[3][2][4];
    gm_mat src, dst;
    gm_dl_managed_versioned* t = NULL;
    int ok = gm_wrap(&src, bgr, 4, 2, GM_U8, 3, GM_HWC, 0, GM_HOST) == GM_OK &&
             gm_wrap(&dst, blob, 4, 2, GM_F32, 3, GM_CHW, 0, GM_HOST) == GM_OK &&
             gm_blob_from_image(&src, &dst, 0.5, NULL, NULL, 1, NULL) == GM_OK &&
             gm_to_dlpack(&dst, GM_DL_EXPORT_READ_ONLY, &t) == GM_OK;
    if (!ok) {
        printf("consumer: FAILED: %s\n", gm_last_error());
        return 1;
    }
    /* R of pixel (0, 0) is bgr[0][0][2] * 0.5; the tensor is (3, 2, 4) */
    ok = blob[0][0][0] == 15.0f && t->dl_tensor.shape[0] == 3 && t->dl_tensor.shape[2] == 4;
    t->deleter(t);
    if (!ok) {
        printf("consumer: FAILED: wrong values\n");
        return 1;
    }
    if (strcmp(gm_version(), GPUMAT_VERSION_STRING) != 0) {
        printf("consumer: FAILED: gm_version() is %s, the header says %s\n", gm_version(), GPUMAT_VERSION_STRING);
        return 1;
    }
    printf("consumer: OK (gpumat %s)\n", gm_version());
    return 0;
}
