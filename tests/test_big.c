/* Images over 2^31 bytes and a batch over 2^32 (issue 16): every operation
 * family (tests/every_op.h) on 26800x26800 u8 BGR frames (2,154,720,000
 * bytes each; the f32 results 8.6 GB), then on batches of three 21900x21900
 * frames (4,316,490,000 bytes; the f32 results 17.3 GB), their rectangles
 * at the frames' far corner, in the batch's last frame for operations on
 * one image, on the GPU and on the CPU path, byte for byte the same. Needs
 * about 50 GB of host memory and 25 GB on the GPU; what does not fit prints
 * SKIP, as does a machine without a GPU. 32-bit offsets would wrap at 2^31,
 * 32-bit item offsets or sizes at 2^32.
 * Run alone: make build/test_big && build/test_big */
#include "gpumat.h"
#include "check.h"
#include "every_op.h"

#include <time.h>

/* Every operation on batches of batch frames of side x side. */
static void every_op_at(const char* what, int side, int batch)
{
    unsigned char *expect = NULL, *got = NULL;
    size_t expect_size = 0, got_size = 0;
    int i;
    gm_status s;
    if (!op_init(side, side, batch)) {
        SKIP("%s: no host memory for two batches of %d %dx%d frames", what, batch, side, side);
        return;
    }
    printf("big: %s: %d frames of %dx%d x3 = %lld bytes\n", what, batch, side, side,
           (long long)side * side * 3 * batch);
    for (i = 0; i < OPS; ++i) {
        time_t t0 = time(NULL);
        if ((s = op_run_one(i, GM_HOST, NULL, &expect, &expect_size)) != GM_OK) {
            if (s == GM_ERR_NO_MEMORY)
                SKIP("%s: %s on the CPU path: %s", what, every_op[i].name, gm_last_error());
            else
                CHECK(0, "%s: %s on the CPU path: %s", what, every_op[i].name, gm_last_error());
            continue;
        }
        s = op_run_one(i, GM_DEVICE, NULL, &got, &got_size);
        if (s == GM_ERR_NO_MEMORY || (s == GM_ERR_CUDA && strstr(gm_last_error(), "OUT_OF_MEMORY"))) {
            SKIP("%s: %s on the GPU: %s", what, every_op[i].name, gm_last_error());
            continue;
        }
        CHECK(s == GM_OK && got_size == expect_size && !memcmp(got, expect, expect_size), "%s: %s: %s", what,
              every_op[i].name, s != GM_OK ? gm_last_error() : "the GPU's result differs from the CPU path's");
        printf("big: %s: %s: %zu result bytes, %lld s\n", what, every_op[i].name, expect_size,
               (long long)(time(NULL) - t0));
    }
    free(expect);
    free(got);
    op_done();
}

int main(void)
{
    char name[256] = "";
    gm_status s = gm_device(NULL, NULL, name, sizeof name);
    if (s != GM_OK) {
        SKIP("images over 2^31 bytes: %s (%s)", gm_status_string(s), gm_last_error());
        return t_summary("big");
    }
    t_seed_from_env("big");
    printf("big: %s\n", name);
    every_op_at("an image over 2^31 bytes", 26800, 1);
    every_op_at("a batch over 2^32 bytes", 21900, 3);
    return t_summary("big");
}
