#!/bin/sh
# The typed layer's compile-time side (tests/test_typed.c has the run-time
# one): handing a typed function the wrong view type (or a bare NULL, or a
# const view to write) is a compile error as C11 and C17 with gcc and clang and
# as C++17 with g++ and clang++; the right types compile clean with -Wall
# -Wextra -Werror -pedantic as C99, C11, C17 and C++17 and run, also through
# (name)(...) and function pointers; as C99 the wrong type only warns, and the
# call returns GM_ERR_TYPE naming the function and the argument. And a program
# passing `const double mean[3]` (and std[3]) to every blob function compiles
# clean with gcc -O2 -Wall -Wextra -Werror (no array-size parameters left).
# The programs that run keep their GPUMAT_IMPLEMENTATION to declarations
# (-DGPUMAT_NO_IMPLEMENTATION) and link make lib's BUILD/libgpumat.a: the
# implementation's own compile in each language is headers.sh's.
# Run alone: make build/libgpumat.a && sh tests/typed_compile.sh build
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
WARN="-Wall -Wextra -Werror -pedantic"
pass() { P=$((P+1)); }
fail() { echo "FAIL $*"; F=$((F+1)); }
LIB=${1:-build}/libgpumat.a
if [ ! -f "$LIB" ]; then
    fail "no $LIB: make lib first"; echo "typed_compile: $P passed, $F failed, $S skipped"; exit 1
fi
LIBS="-DGPUMAT_NO_IMPLEMENTATION -x none $LIB -ldl -lpthread -lm" # -x none: the library is no source

# CASE n: one wrong call; WANT: what it returns at run time (cases 1-4).
cat > "$T/wrong.c" <<'EOF'
#ifdef RUN
#define GPUMAT_IMPLEMENTATION
#endif
#include "gpumat.h"
#include <stdio.h>
#include <string.h>
static gm_u8c3_hwc a;
static gm_u8c3_chw p;
static gm_f32c3_hwc fh;
static gm_f32c3_chw fp;
int call(void);
int call(void)
{
    const gm_f32c3_chw* cfp = &fp;
    (void)p, (void)cfp;
#if CASE == 1
#define WANT "gm_blob_u8c3_hwc_f32c3_chw: dst holds f32 x3 HWC; a gm_f32c3_chw is f32 x3 CHW"
    return gm_blob_u8c3_hwc_f32c3_chw(&a, &fh, 1.0, NULL, NULL, 0, NULL);
#elif CASE == 2
#define WANT "gm_convert_u8c3_hwc_f32c3_hwc: src holds f32 x3 HWC; a gm_u8c3_hwc is u8 x3 HWC"
    return gm_convert_u8c3_hwc_f32c3_hwc(&fh, &fh, 1.0, 0.0, NULL);
#elif CASE == 3
#define WANT "gm_split_u8c3_hwc: dst holds u8 x3 HWC; a gm_u8c3_chw is u8 x3 CHW"
    return gm_split_u8c3_hwc(&a, &a, NULL);
#elif CASE == 4
#define WANT "gm_merge_u8c3_chw: src holds u8 x3 HWC; a gm_u8c3_chw is u8 x3 CHW"
    return gm_merge_u8c3_chw(&a, &a, NULL);
#elif CASE == 5
    return gm_f32c3_chw_alloc_host(&fh, 4, 4, 0);
#elif CASE == 6
    return gm_u8c3_hwc_roi(&a, &p, 0, 0, 1, 1);
#elif CASE == 7
    gm_f32c3_chw_free(&fh);
    return 0;
#elif CASE == 8
    return gm_blob_u8c3_hwc_f32c3_chw(&a, cfp, 1.0, NULL, NULL, 0, NULL);
#elif CASE == 9
    return gm_split_u8c3_hwc(NULL, &p, NULL);
#endif
}
#ifdef RUN
int main(void)
{
    gm_status s;
    if (gm_alloc_host(&a.m, 8, 4, GM_U8, 3, GM_HWC, 0) != GM_OK || gm_alloc_host(&p.m, 8, 4, GM_U8, 3, GM_CHW, 0) != GM_OK ||
        gm_alloc_host(&fh.m, 8, 4, GM_F32, 3, GM_HWC, 0) != GM_OK ||
        gm_alloc_host(&fp.m, 8, 4, GM_F32, 3, GM_CHW, 0) != GM_OK)
        return 2;
    s = (gm_status)call();
    printf("%s: %s\n", gm_status_string(s), gm_last_error());
    return s == GM_ERR_TYPE && strcmp(gm_last_error(), WANT) == 0 ? 0 : 1;
}
#endif
EOF
# the type a case hands over wrongly, for the error message to name
wrong_type() {
    case $1 in 1|5|7) echo gm_f32c3_hwc;; 2) echo gm_f32c3_hwc;; 3|4) echo gm_u8c3_hwc;; 6) echo gm_u8c3_chw;;
               8) echo gm_f32c3_chw;; 9) echo void;; esac
}
for cc in gcc clang g++ clang++; do
    if ! command -v $cc > /dev/null; then echo "SKIP $cc not installed"; S=$((S+1)); continue; fi
    case $cc in g++|clang++) stds="c++17"; lang="-x c++"; cases="1 2 3 4 5 6 7 8";;
                *) stds="c11 c17"; lang="-x c"; cases="1 2 3 4 5 6 7 8 9";; esac
    for std in $stds; do
        for n in $cases; do
            if $cc $lang -std=$std -DCASE=$n -Iinclude -fsyntax-only "$T/wrong.c" 2> "$T/err"; then
                fail "$cc -std=$std case $n: the wrong view type compiled"
            elif grep -q "$(wrong_type $n)" "$T/err"; then pass
            else fail "$cc -std=$std case $n: the error does not name $(wrong_type $n):"; head -5 "$T/err"
            fi
        done
    done
done
# C99: a warning (no -Werror), then GM_ERR_TYPE and the message at run time
for cc in gcc clang; do
    if ! command -v $cc > /dev/null; then echo "SKIP $cc not installed"; S=$((S+1)); continue; fi
    for n in 1 2 3 4; do
        if ! $cc -std=c99 -Wall -DRUN -DCASE=$n -Iinclude "$T/wrong.c" -o "$T/w" $LIBS 2> "$T/err"; then
            fail "$cc -std=c99 case $n did not compile:"; head -5 "$T/err"
        elif ! grep -q "incompatible pointer type" "$T/err"; then
            fail "$cc -std=c99 case $n: no incompatible-pointer warning:"; head -5 "$T/err"
        elif "$T/w" > "$T/out"; then pass
        else fail "$cc -std=c99 case $n at run time: $(cat "$T/out")"
        fi
    done
done

# The right types: every kind of typed function, a const and a plain source,
# (name)(...), function pointers, and a typed NULL; it runs on host memory.
cat > "$T/right.c" <<'EOF'
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include <stdio.h>
#include <string.h>
int main(void)
{
    static const double mean[3] = {1, 2, 3}, std[3] = {4, 5, 6};
    gm_u8c3_hwc a, r;
    gm_u8c3_chw p, q;
    gm_f32c3_hwc fh;
    gm_f32c3_chw fp;
    const gm_u8c3_hwc* ca = &a;
    const gm_u8c3_hwc* none = NULL;
    gm_status (*split)(const gm_u8c3_hwc*, gm_u8c3_chw*, gm_stream) = gm_split_u8c3_hwc;
    gm_status (*blob)(const gm_u8c3_hwc*, gm_f32c3_chw*, double, const double*, const double*, int, gm_stream) =
        gm_blob_u8c3_hwc_f32c3_chw;
    unsigned char pixels[8 * 4 * 3];
    int bad = 0;
    memset(pixels, 7, sizeof pixels);
    bad |= gm_u8c3_hwc_alloc_host(&a, 8, 4, 0) != GM_OK;
    bad |= gm_u8c3_chw_alloc(&p, 8, 4) != GM_OK || p.m.where != gm_path(); /* device memory where a GPU is */
    gm_u8c3_chw_free(&p);
    bad |= gm_u8c3_chw_alloc_host(&p, 8, 4, 0) != GM_OK;
    bad |= gm_f32c3_hwc_alloc_host(&fh, 8, 4, 0) != GM_OK;
    bad |= gm_f32c3_chw_alloc_host(&fp, 8, 4, 0) != GM_OK;
    bad |= gm_u8c3_hwc_wrap(&r, pixels, 8, 4, 0, GM_HOST) != GM_OK;
    bad |= gm_convert_u8c3_hwc_u8c3_hwc(&r, &a, 1.0, 0.0, NULL) != GM_OK;
    bad |= gm_u8c3_hwc_roi(ca, &r, 1, 1, 2, 2) != GM_OK;
    bad |= gm_convert_u8c3_hwc_f32c3_hwc(ca, &fh, 0.5, 1.0, NULL) != GM_OK;
    bad |= gm_convert_u8c3_hwc_f32c3_hwc(&a, &fh, 0.5, 1.0, NULL) != GM_OK;
    bad |= gm_split_u8c3_hwc(&a, &p, NULL) != GM_OK;
    bad |= gm_merge_u8c3_chw(&p, &a, NULL) != GM_OK;
    bad |= gm_blob_u8c3_hwc_f32c3_chw(&a, &fp, 1.0 / 255, mean, std, 1, NULL) != GM_OK;
    bad |= (gm_blob_u8c3_hwc_f32c3_chw)(&a, &fp, 1.0 / 255, mean, std, 1, NULL) != GM_OK;
    bad |= split(&a, &p, NULL) != GM_OK;
    bad |= blob(&a, &fp, 1.0, NULL, NULL, 0, NULL) != GM_OK;
    bad |= gm_split_u8c3_hwc(none, &p, NULL) != GM_ERR_ARG;
    /* a view holding another image: refused at run time */
    q.m = fh.m;
    bad |= split(&a, &q, NULL) != GM_ERR_TYPE;
    printf("%s\n", gm_last_error());
    bad |= strcmp(gm_last_error(), "gm_split_u8c3_hwc: dst holds f32 x3 HWC; a gm_u8c3_chw is u8 x3 CHW") != 0;
    gm_u8c3_hwc_free(&r);
    gm_u8c3_hwc_free(&a);
    gm_u8c3_chw_free(&p);
    gm_f32c3_hwc_free(&fh);
    gm_f32c3_chw_free(&fp);
    bad |= a.m.data != NULL;
    if (gm_f32c3_chw_alloc_device(&fp, 8, 4) == GM_OK) /* where a GPU is */
        gm_f32c3_chw_free(&fp);
    return bad;
}
EOF
for cc in gcc clang; do
    for std in c99 c11 c17 c++17; do
        case $std in c++*) comp=$( [ $cc = gcc ] && echo g++ || echo clang++ ); lang="-x c++";; *) comp=$cc; lang="-x c";; esac
        if ! command -v $comp > /dev/null; then echo "SKIP $comp not installed"; S=$((S+1)); continue; fi
        if ! $comp $lang -std=$std $WARN -Iinclude "$T/right.c" -o "$T/r" $LIBS 2> "$T/err"; then
            fail "$comp -std=$std: the right view types do not compile clean:"; head -10 "$T/err"
        elif "$T/r" > "$T/out"; then pass
        else fail "$comp -std=$std: the right view types at run time: $(cat "$T/out")"
        fi
    done
done

# const double mean[3] / std[3] to every blob function: no -Wstringop-overread
# (gcc 12 at -O2 warns where a parameter is declared as an array of 4)
{
    echo '#include "gpumat.h"'
    echo 'int blobs(const gm_mat* s, gm_mat* d, const gm_mat* images);'
    echo 'int blobs(const gm_mat* s, gm_mat* d, const gm_mat* images)'
    echo '{'
    echo '    const double mean[3] = {123.675, 116.28, 103.53}, std[3] = {58.395, 57.12, 57.375};'
    echo '    int n = gm_blob_from_image(s, d, 1.0, mean, std, 1, NULL);'
    echo '    n += gm_blob_from_images(images, 2, d, 1.0, mean, std, 1, NULL);'
    sed -n 's/^static inline gm_status \(gm_blob_\([a-z0-9]*c[0-9]_hwc\)_\([a-z0-9]*c[0-9]_[hc][wh][cw]\)\)(.*/    n += \1((const gm_\2*)(const void*)s, (gm_\3*)(void*)d, 1.0, mean, std, 0, NULL);/p' \
        include/gpumat/gen/views.h
    echo '    return n;'
    echo '}'
} > "$T/mean3.c"
calls=$(grep -c 'n += gm_blob_[a-z0-9]*c[0-9]_hwc_' "$T/mean3.c")
if [ "$calls" -lt 100 ]; then fail "mean3.c calls only $calls typed blob functions"; else pass; fi
for cc in gcc clang; do
    if ! command -v $cc > /dev/null; then echo "SKIP $cc not installed"; S=$((S+1)); continue; fi
    for std in c99 c11; do
        if $cc -std=$std -O2 $WARN -Iinclude -c "$T/mean3.c" -o "$T/m.o" 2> "$T/err"; then pass
        else fail "$cc -std=$std -O2: mean[3] to the blob functions:"; head -10 "$T/err"
        fi
    done
done
echo "typed_compile: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
