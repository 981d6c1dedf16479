/* test_typed: the generated typed layer (gpumat/gen/views.h) on the CPU path. Every typed operation (convert,
 * split, merge, blob) refuses a view whose descriptor holds another dtype, channel count or layout than its type
 * says (GM_ERR_TYPE, the message naming the typed function and the argument, nothing written; a 1-channel view is
 * either layout), and with the right views writes the untyped call's bytes on random data; every view's alloc,
 * alloc_host, alloc_device, free, wrap and roi; blob mean/std arrays of exactly the channel count (the ASan build
 * test_typed_asan catches a read past them). Names are built here by the preprocessor, apart from the generator.
 * tests/typed_compile.sh checks the compile-time side. Alone: make build/test_typed && ./build/test_typed */
#include "gpumat.h"
#include "check.h"

#include <string.h>

/* ------------------------------------------------- the type matrix, again */

/* Each list calls X(name, enum, ...) per entry; nested loops use distinct
 * copies, as a macro cannot expand inside itself. */
#define DTYPES_A(X, ...)                                                                                       \
    X(u8, GM_U8, __VA_ARGS__) X(s8, GM_S8, __VA_ARGS__) X(u16, GM_U16, __VA_ARGS__) X(s16, GM_S16, __VA_ARGS__) \
    X(s32, GM_S32, __VA_ARGS__) X(f32, GM_F32, __VA_ARGS__) X(f64, GM_F64, __VA_ARGS__)                        \
    X(f16, GM_F16, __VA_ARGS__) X(bf16, GM_BF16, __VA_ARGS__)
#define DTYPES_B(X, ...)                                                                                       \
    X(u8, GM_U8, __VA_ARGS__) X(s8, GM_S8, __VA_ARGS__) X(u16, GM_U16, __VA_ARGS__) X(s16, GM_S16, __VA_ARGS__) \
    X(s32, GM_S32, __VA_ARGS__) X(f32, GM_F32, __VA_ARGS__) X(f64, GM_F64, __VA_ARGS__)                        \
    X(f16, GM_F16, __VA_ARGS__) X(bf16, GM_BF16, __VA_ARGS__)
#define BLOB_OUT(X, ...) X(f32, GM_F32, __VA_ARGS__) X(f16, GM_F16, __VA_ARGS__)
#define CHANNELS(X, ...) X(1, __VA_ARGS__) X(2, __VA_ARGS__) X(3, __VA_ARGS__) X(4, __VA_ARGS__)
#define BLOB_CHANNELS(X, ...) X(1, __VA_ARGS__) X(3, __VA_ARGS__) X(4, __VA_ARGS__)
#define LAYOUTS(X, ...) X(hwc, GM_HWC, __VA_ARGS__) X(chw, GM_CHW, __VA_ARGS__)

/* F(s, S, d, D, n, l, L) for each typed convert: s -> d, n channels, layout l. */
#define CONVERT_L(l, L, n, d, D, s, S, F) F(s, S, d, D, n, l, L)
#define CONVERT_N(n, d, D, s, S, F) LAYOUTS(CONVERT_L, n, d, D, s, S, F)
#define CONVERT_D(d, D, s, S, F) CHANNELS(CONVERT_N, d, D, s, S, F)
#define CONVERT_S(s, S, F) DTYPES_B(CONVERT_D, s, S, F)
#define ALL_CONVERT(F) DTYPES_A(CONVERT_S, F)

/* F(d, D, n) for each dtype and channel count (split and merge). */
#define SAME_N(n, d, D, F) F(d, D, n)
#define SAME_D(d, D, F) CHANNELS(SAME_N, d, D, F)
#define ALL_SAME(F) DTYPES_A(SAME_D, F)

/* F(s, S, d, D, n, l, L) for each typed blob: s (interleaved) -> d, layout l. */
#define BLOB_L(l, L, d, D, n, s, S, F) F(s, S, d, D, n, l, L)
#define BLOB_D(d, D, n, s, S, F) LAYOUTS(BLOB_L, d, D, n, s, S, F)
#define BLOB_N(n, s, S, F) BLOB_OUT(BLOB_D, n, s, S, F)
#define BLOB_S(s, S, F) BLOB_CHANNELS(BLOB_N, s, S, F)
#define ALL_BLOB(F) DTYPES_A(BLOB_S, F)

/* F(d, D, n, l, L) for each view type. */
#define VIEW_L(l, L, n, d, D, F) F(d, D, n, l, L)
#define VIEW_N(n, d, D, F) LAYOUTS(VIEW_L, n, d, D, F)
#define VIEW_D(d, D, F) CHANNELS(VIEW_N, d, D, F)
#define ALL_VIEWS(F) DTYPES_A(VIEW_D, F)

/* ------------------------------------------- each typed operation, callable */

typedef enum kind { CONVERT, SPLIT, MERGE, BLOB } kind;

/* The arguments besides the views. */
typedef struct params {
    double alpha, beta, scalefactor;
    const double *mean, *std;
    int swap_rb;
} params;

typedef gm_status (*typed_call)(const gm_mat* src, gm_mat* dst, const params* p);

/* One typed operation: its name, a call through it with the descriptors put
 * in its view types, and the views it takes. */
typedef struct tcase {
    const char* name;
    typed_call call;
    kind k;
    gm_dtype sd, dd;
    int channels;
    gm_layout sl, dl;
} tcase;

/* The wrappers: each puts the descriptors in the typed function's view types. */
#define CALL(fn, ST, DT, ...)                               \
    {                                                       \
        ST a;                                               \
        DT b;                                               \
        a.m = *src;                                         \
        b.m = *dst;                                         \
        (void)p;                                            \
        return fn(&a, &b, __VA_ARGS__);                     \
    }
#define DEF_CONVERT(s, S, d, D, n, l, L)                                                      \
    static gm_status convert_##s##_##d##_##n##_##l(const gm_mat* src, gm_mat* dst, const params* p) \
        CALL(gm_convert_##s##c##n##_##l##_##d##c##n##_##l, gm_##s##c##n##_##l, gm_##d##c##n##_##l, p->alpha, p->beta, NULL)
#define DEF_SPLIT(d, D, n)                                                                  \
    static gm_status split_##d##_##n(const gm_mat* src, gm_mat* dst, const params* p)      \
        CALL(gm_split_##d##c##n##_hwc, gm_##d##c##n##_hwc, gm_##d##c##n##_chw, NULL)       \
    static gm_status merge_##d##_##n(const gm_mat* src, gm_mat* dst, const params* p)      \
        CALL(gm_merge_##d##c##n##_chw, gm_##d##c##n##_chw, gm_##d##c##n##_hwc, NULL)
#define DEF_BLOB(s, S, d, D, n, l, L)                                                              \
    static gm_status blob_##s##_##d##_##n##_##l(const gm_mat* src, gm_mat* dst, const params* p)  \
        CALL(gm_blob_##s##c##n##_hwc_##d##c##n##_##l, gm_##s##c##n##_hwc, gm_##d##c##n##_##l, p->scalefactor, \
             p->mean, p->std, p->swap_rb, NULL)
ALL_CONVERT(DEF_CONVERT)
ALL_SAME(DEF_SPLIT)
ALL_BLOB(DEF_BLOB)

#define CASE_CONVERT(s, S, d, D, n, l, L) \
    {"gm_convert_" #s "c" #n "_" #l "_" #d "c" #n "_" #l, convert_##s##_##d##_##n##_##l, CONVERT, S, D, n, L, L},
#define CASE_SPLIT(d, D, n) {"gm_split_" #d "c" #n "_hwc", split_##d##_##n, SPLIT, D, D, n, GM_HWC, GM_CHW},
#define CASE_MERGE(d, D, n) {"gm_merge_" #d "c" #n "_chw", merge_##d##_##n, MERGE, D, D, n, GM_CHW, GM_HWC},
#define CASE_BLOB(s, S, d, D, n, l, L) \
    {"gm_blob_" #s "c" #n "_hwc_" #d "c" #n "_" #l, blob_##s##_##d##_##n##_##l, BLOB, S, D, n, GM_HWC, L},
static const tcase g_cases[] = {ALL_CONVERT(CASE_CONVERT) ALL_SAME(CASE_SPLIT) ALL_SAME(CASE_MERGE)
                                    ALL_BLOB(CASE_BLOB)};

/* What the typed operation promises: the untyped call. */
static gm_status untyped(kind k, const gm_mat* src, gm_mat* dst, const params* p)
{
    switch (k) {
    case CONVERT: return gm_convert(src, dst, p->alpha, p->beta, NULL);
    case SPLIT: return gm_split(src, dst, NULL);
    case MERGE: return gm_merge(src, dst, NULL);
    case BLOB: return gm_blob_from_image(src, dst, p->scalefactor, p->mean, p->std, p->swap_rb, NULL);
    }
    return GM_ERR_ARG;
}

/* ------------------------------------------------------------------ data */

#define W 7
#define H 5

/* A compact host image of random bytes (never all zeros). */
static gm_mat image(gm_dtype dtype, int channels, gm_layout layout)
{
    gm_mat m;
    unsigned char* p;
    int64_t i, n;
    if (gm_alloc_host(&m, W, H, dtype, channels, layout, 0) != GM_OK) {
        printf("gm_alloc_host: %s\n", gm_last_error());
        exit(2);
    }
    p = (unsigned char*)m.data;
    n = gm_span_bytes(&m);
    for (i = 0; i < n; ++i)
        p[i] = (unsigned char)(t_rand() % 255 + 1);
    return m;
}

static int same_bytes(const gm_mat* a, const gm_mat* b)
{
    return gm_span_bytes(a) == gm_span_bytes(b) && memcmp(a->data, b->data, (size_t)gm_span_bytes(a)) == 0;
}

static const char* layout_text(gm_layout l) { return l == GM_HWC ? "HWC" : "CHW"; }

/* ------------------------------------------------------------------ tests */

/* The right views: GM_OK and the untyped call's bytes. */
static void check_right(const tcase* c, const params* p)
{
    gm_mat src = image(c->sd, c->channels, c->sl), dst = image(c->dd, c->channels, c->dl), ref;
    gm_status st, su;
    ref = image(c->dd, c->channels, c->dl);
    memcpy(ref.data, dst.data, (size_t)gm_span_bytes(&dst));
    st = c->call(&src, &dst, p);
    CHECK(st == GM_OK, "%s with its own view types: %s", c->name, gm_last_error());
    su = untyped(c->k, &src, &ref, p);
    CHECK(su == GM_OK, "%s: the untyped call: %s", c->name, gm_last_error());
    CHECK(same_bytes(&dst, &ref), "%s: bytes differ from the untyped call's", c->name);
    gm_free(&src);
    gm_free(&dst);
    gm_free(&ref);
}

/* One argument (is_dst: dst, else src) holding dtype/channels/layout where
 * the view type says otherwise: GM_ERR_TYPE, named, nothing written. A
 * 1-channel image of the other layout is the same view: GM_OK, same bytes. */
static void check_wrong(const tcase* c, const params* p, int is_dst, gm_dtype dtype, int channels, gm_layout layout)
{
    gm_dtype vd = is_dst ? c->dd : c->sd;
    gm_layout vl = is_dst ? c->dl : c->sl;
    int alike = dtype == vd && channels == c->channels && (channels == 1 || layout == vl);
    gm_mat src = is_dst ? image(c->sd, c->channels, c->sl) : image(dtype, channels, layout);
    gm_mat dst = is_dst ? image(dtype, channels, layout) : image(c->dd, c->channels, c->dl);
    gm_mat before = image(dst.dtype, dst.channels, dst.layout);
    gm_dtype stale_dtype;
    int stale_channels;
    char want[160];
    const char* e;
    gm_status st;
    memcpy(before.data, dst.data, (size_t)gm_span_bytes(&dst));
    gm_from_cv_type(-1, &stale_dtype, &stale_channels); /* a stale message, told apart from the call's */
    st = c->call(&src, &dst, p);
    e = gm_last_error();
    if (alike) {
        gm_mat ref = image(dst.dtype, dst.channels, dst.layout);
        memcpy(ref.data, before.data, (size_t)gm_span_bytes(&dst));
        CHECK(st == GM_OK, "%s: a 1-channel %s image is its view too: %s", c->name, layout_text(layout), e);
        CHECK(untyped(c->k, &src, &ref, p) == GM_OK && same_bytes(&dst, &ref), "%s: 1-channel %s: bytes differ",
              c->name, layout_text(layout));
        gm_free(&ref);
    } else {
        /* "<fn>: dst holds f32 x3 HWC; a gm_f32c3_chw is f32 x3 CHW" */
        snprintf(want, sizeof want, "%s: %s holds %s x%d", c->name, is_dst ? "dst" : "src",
                 gm_dtype_name(is_dst ? dst.dtype : src.dtype), (int)(is_dst ? dst.channels : src.channels));
        CHECK(st == GM_ERR_TYPE && strncmp(e, want, strlen(want)) == 0, "%s: %s %s x%d %s: status %d, \"%s\"",
              c->name, is_dst ? "dst" : "src", gm_dtype_name(is_dst ? dst.dtype : src.dtype),
              is_dst ? (int)dst.channels : (int)src.channels, layout_text(layout), (int)st, e);
        snprintf(want, sizeof want, "; a gm_%sc%d_%s is %s x%d", gm_dtype_name(vd), c->channels,
                 vl == GM_HWC ? "hwc" : "chw", gm_dtype_name(vd), c->channels);
        CHECK(strstr(e, want) != NULL, "%s: \"%s\" should say \"%s\"", c->name, e, want);
        CHECK(same_bytes(&dst, &before), "%s: dst written on GM_ERR_TYPE", c->name);
    }
    gm_free(&src);
    gm_free(&dst);
    gm_free(&before);
}

static void test_operations(void)
{
    size_t i;
    int n = 0, arg;
    for (i = 0; i < sizeof g_cases / sizeof *g_cases; ++i) {
        const tcase* c = &g_cases[i];
        params p;
        double *mean = NULL, *std = NULL;
        int k, ch = c->channels;
        memset(&p, 0, sizeof p);
        p.alpha = t_uniform(-3, 3);
        p.beta = t_uniform(-50, 50);
        p.scalefactor = t_uniform(0.001, 2);
        if (c->k == BLOB) { /* exactly ch values each: ASan sees a read past them */
            mean = (double*)malloc((size_t)ch * sizeof *mean);
            std = (double*)malloc((size_t)ch * sizeof *std);
            for (k = 0; k < ch; ++k) {
                mean[k] = t_uniform(0, 255);
                std[k] = t_uniform(0.5, 80);
            }
            p.mean = mean;
            p.std = std;
            p.swap_rb = ch >= 3 && (i & 1);
        }
        check_right(c, &p);
        for (arg = 0; arg < 2; ++arg) {
            gm_dtype d = arg ? c->dd : c->sd;
            gm_layout l = arg ? c->dl : c->sl;
            check_wrong(c, &p, arg, (gm_dtype)((d + 1) % GM_DTYPE_COUNT), ch, l);
            check_wrong(c, &p, arg, d, ch % 4 + 1, l);
            check_wrong(c, &p, arg, d, ch, l == GM_HWC ? GM_CHW : GM_HWC);
        }
        free(mean);
        free(std);
        ++n;
    }
    CHECK(n == 9 * 9 * 4 * 2 + 2 * 9 * 4 + 9 * 3 * 2 * 2, "%d typed operations", n);
}

/* gm_blob_from_images and a typed blob with mean/std of exactly 3 and 1
 * values (heap arrays: the ASan build sees a read past them). */
static void test_exact_mean(void)
{
    double* m3 = (double*)malloc(3 * sizeof *m3);
    double* s3 = (double*)malloc(3 * sizeof *s3);
    double* m1 = (double*)malloc(sizeof *m1);
    double* s1 = (double*)malloc(sizeof *s1);
    gm_mat images[2], batch, one, ref;
    gm_desc d;
    gm_u8c1_hwc g;
    gm_f16c1_chw h;
    int i;
    m3[0] = 123.675, m3[1] = 116.28, m3[2] = 103.53;
    s3[0] = 58.395, s3[1] = 57.12, s3[2] = 57.375;
    m1[0] = 127.5, s1[0] = 64;
    for (i = 0; i < 2; ++i)
        images[i] = image(GM_U8, 3, GM_HWC);
    memset(&d, 0, sizeof d);
    d.width = W, d.height = H, d.channels = 3, d.batch = 2, d.dtype = GM_F32, d.layout = GM_CHW;
    CHECK(gm_alloc_desc(&batch, &d, GM_HOST) == GM_OK, "gm_alloc_desc: %s", gm_last_error());
    CHECK(gm_blob_from_images(images, 2, &batch, 1.0 / 255, m3, s3, 1, NULL) == GM_OK,
          "gm_blob_from_images, mean[3] and std[3]: %s", gm_last_error());
    for (i = 0; i < 2; ++i) {
        gm_mat item;
        ref = image(GM_F32, 3, GM_CHW);
        gm_item(&batch, &item, i);
        CHECK(gm_blob_from_image(&images[i], &ref, 1.0 / 255, m3, s3, 1, NULL) == GM_OK && same_bytes(&item, &ref),
              "gm_blob_from_images item %d = gm_blob_from_image: %s", i, gm_last_error());
        gm_free(&ref);
        gm_free(&images[i]);
    }
    g.m = image(GM_U8, 1, GM_HWC);
    h.m = image(GM_F16, 1, GM_CHW);
    one = image(GM_F16, 1, GM_CHW);
    CHECK(gm_blob_u8c1_hwc_f16c1_chw(&g, &h, 2.0, m1, s1, 0, NULL) == GM_OK &&
              gm_blob_from_image(&g.m, &one, 2.0, m1, s1, 0, NULL) == GM_OK && same_bytes(&h.m, &one),
          "typed and untyped blob, mean[1] and std[1]: %s", gm_last_error());
    gm_free(&g.m);
    gm_free(&h.m);
    gm_free(&one);
    gm_free(&batch);
    free(m3);
    free(s3);
    free(m1);
    free(s1);
}

/* A view's descriptor: the view type's dtype, channels and layout, w x h. */
static int is_view(const gm_mat* m, gm_dtype dtype, int channels, gm_layout layout, int64_t w, int64_t h)
{
    return m->dtype == dtype && m->channels == channels && m->layout == layout && m->width == w && m->height == h &&
           m->batch == 1 && m->data != NULL;
}

static int zeroed(const gm_mat* m)
{
    static const gm_mat zero;
    return memcmp(m, &zero, sizeof zero) == 0;
}

/* alloc_host (pageable), wrap, roi, free, alloc (as gm_alloc: host memory
 * here), alloc_device (as gm_alloc_device: an error without a GPU). */
#define VIEW_FNS(d, D, n, l, L)                                                                                   \
    {                                                                                                           \
        static const char name[] = "gm_" #d "c" #n "_" #l;                                                      \
        gm_##d##c##n##_##l v, r;                                                                                \
        gm_mat m;                                                                                               \
        gm_status s, u;                                                                                         \
        s = gm_##d##c##n##_##l##_alloc_host(&v, W, H, 0);                                                        \
        CHECK(s == GM_OK && is_view(&v.m, D, n, L, W, H) && v.m.where == GM_HOST, "%s_alloc_host: %s", name,     \
              gm_last_error());                                                                                 \
        s = gm_##d##c##n##_##l##_roi(&v, &r, 1, 2, 3, 2);                                                       \
        CHECK(s == GM_OK && is_view(&r.m, D, n, L, 3, 2) && r.m.owned == NULL, "%s_roi: %s", name,            \
              gm_last_error());                                                                                 \
        gm_##d##c##n##_##l##_free(&r);                                                                          \
        CHECK(zeroed(&r.m), "%s_free of a view zeroes it", name);                                               \
        s = gm_##d##c##n##_##l##_wrap(&r, v.m.data, W, H, 0, GM_HOST);                                          \
        CHECK(s == GM_OK && is_view(&r.m, D, n, L, W, H) && r.m.data == v.m.data && r.m.owned == NULL,         \
              "%s_wrap: %s", name, gm_last_error());                                                           \
        gm_##d##c##n##_##l##_free(&v);                                                                          \
        CHECK(zeroed(&v.m), "%s_free zeroes the view", name);                                                   \
        gm_##d##c##n##_##l##_free(NULL);                                                                        \
        s = gm_##d##c##n##_##l##_alloc(&v, W, H);                                                               \
        u = gm_alloc(&m, W, H, D, n, L);                                                                        \
        CHECK(s == u && (s != GM_OK || (is_view(&v.m, D, n, L, W, H) && v.m.where == m.where)),                \
              "%s_alloc: %d, gm_alloc %d: %s", name, (int)s, (int)u, gm_last_error());                         \
        gm_##d##c##n##_##l##_free(&v);                                                                          \
        gm_free(&m);                                                                                            \
        s = gm_##d##c##n##_##l##_alloc_device(&v, W, H);                                                        \
        u = gm_alloc_device(&m, W, H, D, n, L);                                                                 \
        CHECK(s == u && (s != GM_OK || (is_view(&v.m, D, n, L, W, H) && v.m.where == GM_DEVICE)),              \
              "%s_alloc_device: %d, gm_alloc_device %d: %s", name, (int)s, (int)u, gm_last_error());           \
        gm_##d##c##n##_##l##_free(&v);                                                                          \
        gm_free(&m);                                                                                            \
    }

static void test_views(void) { ALL_VIEWS(VIEW_FNS) }

int main(void)
{
    t_seed_from_env("typed");
    test_operations();
    test_exact_mean();
    test_views();
    return t_summary("typed");
}
