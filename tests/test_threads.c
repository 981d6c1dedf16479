/* Threads, for ThreadSanitizer (the Makefile builds test_threads_tsan with
 * -fsanitize=thread; any report fails the run): 8 threads released at once
 * make gpumat's first uses race (gm_path, the driver's and NVRTC's loading,
 * the disk cache folder), then each runs every operation on host memory from
 * one shared source into its own destinations, checks its results against
 * the single-threaded ones byte for byte, and its own failure messages
 * (thread-local), the CPU path's thread pool taken by whichever
 * operation comes first; where NVRTC is present all get the same three kernels'
 * images at once through one disk-cache folder (compiles, stores and loads
 * racing). Run alone: make build/test_threads_tsan && build/test_threads_tsan */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 8
#define OPS 12
#define W 67
#define H 9

static gm_mat src; /* shared, read by every thread */
static unsigned char* expected[OPS];
static int64_t expected_size[OPS];
static pthread_barrier_t start;
static int with_nvrtc;

/* Operation op from src into out (allocated here, host memory). */
static gm_status run(int op, gm_mat* out, gm_mat* planes)
{
    static const double mean[3] = {10, 20, 30}, std[3] = {2, 3, 4};
    static const struct {
        gm_dtype dtype;
        gm_layout layout;
        int width, height;
    } outs[OPS] = {{GM_F32, GM_HWC, W, H},  {GM_F16, GM_CHW, W, H}, {GM_U8, GM_CHW, W, H},  {GM_F32, GM_CHW, W, H},
                   {GM_S16, GM_HWC, W, H},  {GM_U8, GM_HWC, W, H},  {GM_U8, GM_CHW, W, H},  {GM_BF16, GM_HWC, W, H},
                   {GM_U8, GM_HWC, 31, 5},  {GM_U8, GM_CHW, 34, 4}, {GM_U8, GM_HWC, 29, 4}, {GM_F32, GM_CHW, 16, 16}};
    gm_xform x = gm_xform_identity();
    gm_prep prep = {0};
    int c;
    gm_status s = gm_alloc_host(out, outs[op].width, outs[op].height, outs[op].dtype, 3, outs[op].layout, 0);
    x.map[0] = 2, x.map[2] = 0, x.scale[1] = 0.5, x.offset[1] = 3;
    prep.fit = GM_FIT_LETTERBOX, prep.pad[0] = 114, prep.swap_rb = 1, prep.scale[0] = 1 / 255.0;
    if (s != GM_OK)
        return s;
    switch (op) {
    case 0: return gm_convert(&src, out, 1 / 255.0, 0.5, NULL);
    case 1: return gm_transform(&src, out, &x, NULL);
    case 2: return gm_split(&src, out, NULL);
    case 3: return gm_blob_from_image(&src, out, 1.0, mean, std, 1, NULL);
    case 4: return gm_convert(&src, out, -3.0, 100.0, NULL);
    case 5: return gm_copy(&src, out, NULL);
    case 6:
        for (c = 0; c < 3; ++c)
            if ((s = gm_plane(out, &planes[c], c)) != GM_OK)
                return s;
        return gm_split_planes(&src, planes, NULL);
    case 7: return gm_convert(&src, out, 0.25, 0.0, NULL);
    case 8: return gm_resize(&src, out, GM_INTER_LINEAR, NULL);
    case 9: return gm_resize_scale(&src, out, 0.5, 0.5, GM_INTER_AREA, NULL);
    case 10: return gm_resize(&src, out, GM_INTER_AREA, NULL);
    default: return gm_preprocess(&src, NULL, out, &prep, NULL, NULL);
    }
}

typedef struct result {
    int index; /* the thread's, 0..THREADS-1 */
    int mismatches, messages, images;
    gm_status first_failure;
} result;

static void* worker(void* arg)
{
    result* r = (result*)arg;
    int op, k;
    gm_mat out, planes[3], view;
    char expect[64];
    pthread_barrier_wait(&start);
    gm_path(); /* first uses race here */
    for (k = 0; k < 20; ++k)
        for (op = 0; op < OPS; ++op) {
            gm_status s = run(op, &out, planes);
            if (s != GM_OK && r->first_failure == GM_OK)
                r->first_failure = s;
            if (s == GM_OK && (gm_span_bytes(&out) != expected_size[op] ||
                               memcmp(out.data, expected[op], (size_t)expected_size[op])))
                ++r->mismatches;
            gm_free(&out);
        }
    /* this thread's own failure, whatever the others do meanwhile */
    snprintf(expect, sizeof expect, "gm_roi: x -%d is negative", r->index + 1);
    for (op = 0; op < 50; ++op)
        r->messages += gm_roi(&src, &view, -(r->index + 1), 0, 1, 1) != GM_ERR_SIZE || strcmp(gm_last_error(), expect);
    /* the same kernels through the disk cache: compiled, stored, loaded at once */
    for (op = 0; with_nvrtc && op < 3; ++op) {
        const void* image = NULL;
        char* owned = NULL;
        size_t size = 0;
        r->images += gm__image("test_threads", 5 + op, 90, &image, &size, &owned) == GM_OK && size > 0;
        GM_FREE(owned);
    }
    return NULL;
}

int main(void)
{
    static result results[THREADS];
    pthread_t threads[THREADS];
    char dir[] = "/tmp/gm_threads_XXXXXX";
    gm_mat out, planes[3];
    unsigned char* p;
    int i, op;
    size_t size = 0;
    /* the CPU path's pool: every operation cut into parts on 4 threads and
     * written past the caches, while the other callers' operations run alone */
    gm__tune.cpu_part_bytes = 1;
    gm__tune.cpu_stream_bytes = 0;
    gm_set_threads(4);
    with_nvrtc = gm_kernel_compile(0, 90, &size) == GM_OK;
    if (!with_nvrtc)
        SKIP("NVRTC compiles racing: no NVRTC here (%s)", gm_last_error());
    if (mkdtemp(dir))
        setenv("GM_CACHE_DIR", dir, 1);
    CHECK(gm_alloc_host(&src, W, H, GM_U8, 3, GM_HWC, 0) == GM_OK, "source: %s", gm_last_error());
    for (p = (unsigned char*)src.data, i = 0; i < gm_span_bytes(&src); ++i)
        p[i] = (unsigned char)(t_rand() >> 24);
    for (op = 0; op < OPS; ++op) {
        CHECK(run(op, &out, planes) == GM_OK, "op %d alone: %s", op, gm_last_error());
        expected_size[op] = gm_span_bytes(&out);
        expected[op] = (unsigned char*)malloc((size_t)expected_size[op]);
        memcpy(expected[op], out.data, (size_t)expected_size[op]);
        gm_free(&out);
    }
    pthread_barrier_init(&start, NULL, THREADS);
    for (i = 0; i < THREADS; ++i) {
        results[i].index = i;
        pthread_create(&threads[i], NULL, worker, &results[i]);
    }
    for (i = 0; i < THREADS; ++i)
        pthread_join(threads[i], NULL);
    for (i = 0; i < THREADS; ++i) {
        CHECK(results[i].first_failure == GM_OK, "thread %d: an operation failed: %s", i,
              gm_status_string(results[i].first_failure));
        CHECK(results[i].mismatches == 0, "thread %d: %d results differ from the single-threaded ones", i,
              results[i].mismatches);
        CHECK(results[i].messages == 0, "thread %d: %d messages were not its own", i, results[i].messages);
        CHECK(!with_nvrtc || results[i].images == 3, "thread %d: %d of 3 racing compiles gave an image", i,
              results[i].images);
    }
    gm_cache_clear();
    rmdir(dir);
    for (op = 0; op < OPS; ++op)
        free(expected[op]);
    gm_free(&src);
    pthread_barrier_destroy(&start);
    return t_summary("threads");
}
