/* Images over 2^31 bytes (issue 16): every operation family
 * (tests/every_op.h) on 26800x26800 u8 BGR frames (2,154,720,000 bytes
 * each; the f32 results 8.6 GB), their rectangles at the frames' far
 * corner, on the GPU and on the CPU path, byte for byte the same. Needs
 * about 30 GB of host memory and 12 GB on the GPU; prints SKIP without a GPU
 * or without the memory. The 32-bit offsets it guards against would wrap
 * at 2^31. Run alone: make build/test_big && build/test_big */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"
#include "every_op.h"

#include <time.h>

enum { SIDE = 26800 };

int main(void)
{
    unsigned char *expect = NULL, *got = NULL;
    size_t expect_size = 0, got_size = 0;
    char name[256] = "";
    int i;
    gm_status s = gm_device(NULL, NULL, name, sizeof name);
    if (s != GM_OK) {
        SKIP("images over 2^31 bytes: %s (%s)", gm_status_string(s), gm_last_error());
        return t_summary("big");
    }
    t_seed_from_env("big");
    if (!op_init(SIDE, SIDE)) {
        SKIP("images over 2^31 bytes: no host memory for two %dx%d frames", SIDE, SIDE);
        return t_summary("big");
    }
    printf("big: %s, frames %dx%d x3 = %lld bytes\n", name, SIDE, SIDE, (long long)SIDE * SIDE * 3);
    for (i = 0; i < OPS; ++i) {
        time_t t0 = time(NULL);
        if ((s = op_run_one(i, GM_HOST, NULL, &expect, &expect_size)) != GM_OK) {
            if (s == GM_ERR_NO_MEMORY)
                SKIP("%s on the CPU path: %s", every_op[i].name, gm_last_error());
            else
                CHECK(0, "%s on the CPU path: %s", every_op[i].name, gm_last_error());
            continue;
        }
        s = op_run_one(i, GM_DEVICE, NULL, &got, &got_size);
        if (s == GM_ERR_NO_MEMORY || (s == GM_ERR_CUDA && strstr(gm_last_error(), "OUT_OF_MEMORY"))) {
            SKIP("%s on the GPU: %s", every_op[i].name, gm_last_error());
            continue;
        }
        CHECK(s == GM_OK && got_size == expect_size && !memcmp(got, expect, expect_size), "%s: %s", every_op[i].name,
              s != GM_OK ? gm_last_error() : "the GPU's result differs from the CPU path's");
        printf("big: %s: %zu result bytes, %lld s\n", every_op[i].name, expect_size, (long long)(time(NULL) - t0));
    }
    free(expect);
    free(got);
    op_done();
    return t_summary("big");
}
