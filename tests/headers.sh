#!/bin/sh
# Compiles the public headers, alone and with the implementation (also as a
# GM_NO_NVRTC build and a GPUMAT_STATIC one), as C99, C11 and C++17 with gcc
# and clang (-Wall -Wextra -Werror -pedantic), with no CUDA include path; the
# implementation refuses -ffast-math and friends, the declarations accept them;
# GM_MALLOC, GM_REALLOC and GM_FREE are all or none.
# Run alone: sh tests/headers.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
# interop.h first: it must stand alone
printf '#include "gpumat/interop.h"\n#include "gpumat.h"\nint gm_t_decl(void);\nint gm_t_decl(void) { gm_u8c3_hwc v; gm_dl_managed_versioned t; (void)v; (void)t; return GM_OK; }\n' > "$T/decl.c"
printf '#define GPUMAT_IMPLEMENTATION\n#include "gpumat.h"\nint main(void) { gm_mat m; return gm_alloc_host(&m, 3, 2, GM_U8, 3, GM_HWC, 0) == GM_OK ? (gm_free(&m), 0) : 1; }\n' > "$T/impl.c"
if grep -rn '#include *[<"]\(cuda\|nvrtc\|cuda_runtime\)' include; then echo "FAIL a header includes a CUDA header"; F=$((F+1)); else P=$((P+1)); fi
for cc in gcc clang; do
    for std in c99 c11 c++17; do
        case $std in c++*) comp=$( [ $cc = gcc ] && echo g++ || echo clang++ ); lang="-x c++";; *) comp=$cc; lang="-x c";; esac
        if ! command -v $comp > /dev/null; then echo "SKIP $comp not installed"; S=$((S+1)); continue; fi
        for f in decl impl impl_no_nvrtc impl_static; do
            case $f in
                decl) src=decl def= ;; impl) src=impl def= ;;
                impl_no_nvrtc) src=impl def=-DGM_NO_NVRTC ;; impl_static) src=impl def=-DGPUMAT_STATIC ;;
            esac
            if $comp $lang -std=$std -Wall -Wextra -Werror -pedantic $def -Iinclude -c "$T/$src.c" -o "$T/$f.o" 2> "$T/err"; then
                P=$((P+1))
            else
                echo "FAIL $comp -std=$std $def $src.c:"; head -20 "$T/err"; F=$((F+1))
            fi
        done
        if $comp -o "$T/both" "$T/decl.o" "$T/impl.o" -ldl -lpthread -lm 2> "$T/err" && "$T/both"; then P=$((P+1)); else echo "FAIL $comp -std=$std link/run"; head -5 "$T/err"; F=$((F+1)); fi
    done
done
# every optimisation level: some warnings (-Wmaybe-uninitialized) appear only at one
for opt in -O1 -O2 -O3 -Os -Og; do
    for cc in gcc clang; do
        command -v $cc > /dev/null || continue # said once above
        if $cc -std=c99 $opt -Wall -Wextra -Werror -pedantic -Iinclude -c "$T/impl.c" -o "$T/opt.o" 2> "$T/err"; then P=$((P+1))
        else echo "FAIL $cc $opt impl.c:"; head -5 "$T/err"; F=$((F+1)); fi
    done
done
# flags that change floating-point results: refused by name in the
# implementation's file, harmless where only the declarations are
for flag in -ffast-math -Ofast -ffinite-math-only -fno-signed-zeros; do
    name=$flag; [ $flag = -Ofast ] && name=-ffast-math
    if gcc -std=c99 $flag -Iinclude -c "$T/impl.c" -o "$T/fm.o" 2> "$T/err"; then
        echo "FAIL gcc $flag compiled the implementation"; F=$((F+1))
    elif grep -q -- "$name" "$T/err"; then P=$((P+1))
    else echo "FAIL gcc $flag: the error does not name $name:"; head -3 "$T/err"; F=$((F+1)); fi
    if gcc -std=c99 $flag -Wall -Wextra -Werror -Iinclude -c "$T/decl.c" -o "$T/fm.o" 2> "$T/err"; then P=$((P+1))
    else echo "FAIL gcc $flag: the declarations do not compile:"; head -3 "$T/err"; F=$((F+1)); fi
done
if gcc -std=c99 -Ofast -fno-fast-math -Iinclude -c "$T/impl.c" -o "$T/fm.o"; then P=$((P+1)); else echo "FAIL -Ofast -fno-fast-math refused"; F=$((F+1)); fi
# GM_MALLOC, GM_REALLOC and GM_FREE go together: a partial set is an #error
# naming each one missing (and no other); the whole set compiles.
M='-DGM_MALLOC(n)=malloc(n)' R='-DGM_REALLOC(p,n)=realloc(p,n)' A='-DGM_FREE(p)=free(p)'
allocator() { # MISSING... -- DEFINES...
    missing=
    while [ "$1" != -- ]; do missing="$missing $1"; shift; done
    shift
    if gcc -std=c99 -Wall -Wextra -Werror -pedantic "$@" -Iinclude -c "$T/impl.c" -o "$T/al.o" 2> "$T/err"; then
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
