#!/bin/sh
# Compiles the public headers, alone and with the implementation (also as a
# GM_NO_NVRTC build and a GPUMAT_STATIC one), as C99, C11, C17 and C++17 with gcc
# and clang (-Wall -Wextra -Werror -pedantic), with no CUDA include path;
# GPUMAT_NO_IMPLEMENTATION keeps a file to declarations; the implementation
# refuses -ffast-math and friends (a preprocessor #error: -fsyntax-only
# shows it), the declarations accept them; GM_MALLOC, GM_REALLOC and GM_FREE
# are all or none. Every optimisation level: tests/opt_levels.sh. quick
# (make check) compiles as C99 and C++17 only, leaving out C11 and C17.
# Run alone: sh tests/headers.sh [quick]
STDS="c99 c11 c17 c++17"
[ "${1-}" = quick ] && STDS="c99 c++17"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
# interop.h first: it must stand alone
printf '#include "gpumat/interop.h"\n#include "gpumat.h"\nint gm_t_decl(void);\nint gm_t_decl(void) { gm_u8c3_hwc v; gm_dl_managed_versioned t; (void)v; (void)t; return GM_OK; }\n' > "$T/decl.c"
cp tests/impl_main.c "$T/impl.c"
if grep -rn '#include *[<"]\(cuda\|nvrtc\|cuda_runtime\)' include; then echo "FAIL a header includes a CUDA header"; F=$((F+1)); else P=$((P+1)); fi
for cc in gcc clang; do
    for std in $STDS; do
        case $std in c++*) comp=$( [ $cc = gcc ] && echo g++ || echo clang++ ); lang="-x c++";; *) comp=$cc; lang="-x c";; esac
        if ! command -v $comp > /dev/null; then echo "SKIP $comp not installed"; S=$((S+1)); continue; fi
        for f in decl impl impl_no_nvrtc impl_static; do
            case $f in
                decl) src=decl def= ;; impl) src=impl def= ;;
                impl_no_nvrtc) src=impl def=-DGM_NO_NVRTC ;; impl_static) src=impl def=-DGPUMAT_STATIC ;;
            esac
            # decl and impl are linked below. impl_static is compiled for
            # gcc's unused-function warnings (which -fsyntax-only does not
            # give), at -O1, which drops the unused static functions before
            # code generation (six times quicker than -O0); impl_no_nvrtc
            # needs no object.
            case $f in
                decl|impl) out="-c -o $T/$f-$comp-$std.o" ;;
                impl_static) out="-O1 -c -o $T/$f-$comp-$std.o" ;;
                *) out=-fsyntax-only ;;
            esac
            if $comp $lang -std=$std -Wall -Wextra -Werror -pedantic $def -Iinclude $out "$T/$src.c" 2> "$T/err"; then
                P=$((P+1))
            else
                echo "FAIL $comp -std=$std $def $src.c:"; head -20 "$T/err"; F=$((F+1))
            fi
        done
        if $comp -o "$T/both" "$T/decl-$comp-$std.o" "$T/impl-$comp-$std.o" -ldl -lpthread -lm 2> "$T/err" && "$T/both"; then P=$((P+1)); else echo "FAIL $comp -std=$std link/run"; head -5 "$T/err"; F=$((F+1)); fi
    done
done
# GPUMAT_NO_IMPLEMENTATION: the file that defines GPUMAT_IMPLEMENTATION keeps
# to declarations (no gm_ function defined, gm_alloc_host called) and links
# with an implementation compiled elsewhere; with GPUMAT_STATIC it is an
# #error naming both.
printf '#define GPUMAT_IMPLEMENTATION\n#include "gpumat.h"\nint t_noimpl(void);\nint t_noimpl(void) { gm_mat m; return gm_alloc_host(&m, 3, 2, GM_U8, 3, GM_HWC, 0) == GM_OK ? (gm_free(&m), 0) : 1; }\n' > "$T/noimpl.c"
if gcc -std=c99 -Wall -Wextra -Werror -pedantic -DGPUMAT_NO_IMPLEMENTATION -Iinclude -c "$T/noimpl.c" -o "$T/noimpl.o" 2> "$T/err" &&
   ! nm "$T/noimpl.o" | grep -q ' [TtDdBb] gm_[a-z]' && nm "$T/noimpl.o" | grep -q ' U gm_alloc_host$' &&
   gcc -o "$T/noimpl" "$T/noimpl.o" "$T/impl-gcc-c99.o" -ldl -lpthread -lm 2>> "$T/err" && "$T/noimpl"; then P=$((P+1))
else echo "FAIL GPUMAT_NO_IMPLEMENTATION: defined functions, or did not link with an implementation:"; head -5 "$T/err"; nm "$T/noimpl.o" 2> /dev/null | grep ' gm_' | head -5; F=$((F+1)); fi
if gcc -std=c99 -DGPUMAT_NO_IMPLEMENTATION -DGPUMAT_STATIC -Iinclude -c "$T/impl.c" -o "$T/both.o" 2> "$T/err"; then
    echo "FAIL GPUMAT_NO_IMPLEMENTATION with GPUMAT_STATIC compiled"; F=$((F+1))
elif grep -q 'GPUMAT_STATIC.*GPUMAT_NO_IMPLEMENTATION' "$T/err"; then P=$((P+1))
else echo "FAIL GPUMAT_NO_IMPLEMENTATION with GPUMAT_STATIC: the error names neither:"; head -3 "$T/err"; F=$((F+1)); fi
# flags that change floating-point results: refused by name in the
# implementation's file, harmless where only the declarations are
for flag in -ffast-math -Ofast -ffinite-math-only -fno-signed-zeros; do
    name=$flag; [ $flag = -Ofast ] && name=-ffast-math
    if gcc -std=c99 $flag -Iinclude -fsyntax-only "$T/impl.c" 2> "$T/err"; then
        echo "FAIL gcc $flag compiled the implementation"; F=$((F+1))
    elif grep -q -- "$name" "$T/err"; then P=$((P+1))
    else echo "FAIL gcc $flag: the error does not name $name:"; head -3 "$T/err"; F=$((F+1)); fi
    if gcc -std=c99 $flag -Wall -Wextra -Werror -Iinclude -c "$T/decl.c" -o "$T/fm.o" 2> "$T/err"; then P=$((P+1))
    else echo "FAIL gcc $flag: the declarations do not compile:"; head -3 "$T/err"; F=$((F+1)); fi
done
if gcc -std=c99 -Ofast -fno-fast-math -Iinclude -fsyntax-only "$T/impl.c"; then P=$((P+1)); else echo "FAIL -Ofast -fno-fast-math refused"; F=$((F+1)); fi
# GM_MALLOC, GM_REALLOC and GM_FREE go together: a partial set is an #error
# naming each one missing (and no other); the whole set compiles.
M='-DGM_MALLOC(n)=malloc(n)' R='-DGM_REALLOC(p,n)=realloc(p,n)' A='-DGM_FREE(p)=free(p)'
allocator() { # MISSING... -- DEFINES...
    missing=
    while [ "$1" != -- ]; do missing="$missing $1"; shift; done
    shift
    if gcc -std=c99 -Wall -Wextra -Werror -pedantic "$@" -Iinclude -fsyntax-only "$T/impl.c" 2> "$T/err"; then
        if [ -z "$missing" ]; then P=$((P+1)); else echo "FAIL allocator $*: compiled without$missing"; F=$((F+1)); fi
        return
    fi
    said=$(grep -o 'GM_[A-Z]* is missing' "$T/err" | sort -u | sed 's/ is missing//' | tr '\n' ' ')
    want=$(for n in $missing; do echo $n; done | sort | tr '\n' ' ')
    if [ -n "$missing" ] && [ "$said" = "$want" ]; then P=$((P+1))
    else echo "FAIL allocator $*: said missing '$said', want '$want':"; head -3 "$T/err"; F=$((F+1)); fi
}
allocator GM_REALLOC GM_FREE -- "$M"
allocator GM_REALLOC -- "$M" "$A"
allocator GM_MALLOC GM_REALLOC -- "$A"
allocator GM_MALLOC -- "$R" "$A"
allocator -- "$M" "$R" "$A"
echo "headers: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
