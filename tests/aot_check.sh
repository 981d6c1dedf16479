#!/bin/sh
# Ahead of time: `make aot`'s generator embeds the demo's kernels (the list
# gm_kernels_for gives for u8 -> f32 of 3 channels), the demo
# builds with GM_NO_NVRTC and must name neither the NVRTC library nor any
# NVRTC symbol; on a GPU it must run from the embedded CUBIN, from PTX alone
# (driver JIT, archs below the GPU's), and fail naming a kernel left out.
# Without a GPU those two demos are compiled (-fsyntax-only), not built.
# Run alone: make build/aot_compile && sh tests/aot_check.sh build
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
pass() { P=$((P+1)); }
fail() { echo "FAIL $*"; F=$((F+1)); }

# aot NAME ARCHS KERNELS [-fsyntax-only]: the header $T/NAME.h and the demo
# $T/NAME built on it (or only compiled as far as its errors, for a demo
# that will not run: its build is the demo's with other arrays)
aot() {
    out="-o $T/$1"; [ -n "$4" ] && out=$4
    python3 gen/aot.py --compiler "$B/aot_compile" --archs "$2" --kernels "$3" --out "$T/$1.h" > "$T/$1.log" 2>&1 &&
    ${CC:-cc} -std=c99 -O2 -Wall -Wextra -Werror -pedantic -DGM_NO_NVRTC "-DGM_AOT_HEADER=\"$T/$1.h\"" -Iinclude \
        examples/demo.c $out -ldl -lpthread -lm >> "$T/$1.log" 2>&1 || { cat "$T/$1.log"; return 1; }
}

# Making the images needs NVRTC: CI has it; elsewhere its absence is a SKIP.
if ! echo gm_xform_u8_u8_c1 | "$B/aot_compile" "$T" sm_90 > "$T/probe.log" 2>&1 && grep -q "NVRTC" "$T/probe.log" &&
   [ "$CI" != "true" ]; then
    echo "SKIP AOT build and run: $(head -1 "$T/probe.log")"
    echo "aot: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
if aot full "sm_80 sm_90" "for:u8:f32:3"; then pass; else fail "building the AOT demo (sm_80 sm_90, gm_kernels_for's list)"; fi
# Without a GPU the other two demos do not run: compiling them is the check.
mkdir -p "$T/out"
if [ -x "$T/full" ] && "$T/full" "$T/out" > "$T/run.log" 2>&1 && grep -q "CPU path only" "$T/run.log"; then gpu=
else gpu=1; fi
if aot ptx "sm_75" "gm_xform_u8_f32_c3*" ${gpu:--fsyntax-only}; then pass; else fail "building the AOT demo (sm_75 + PTX)"; fi
if aot partial "sm_80 sm_90" "gm_xform_u8_f32_c3" ${gpu:--fsyntax-only}; then pass; else fail "building the AOT demo (generic kernel only)"; fi
if [ -x "$T/full" ]; then
    if grep -a -q -e libnvrtc -e 'nvrtc[A-Z]' "$T/full"; then fail "the GM_NO_NVRTC demo names NVRTC:"; grep -a -o -e 'libnvrtc[^ ]*' -e 'nvrtc[A-Z][A-Za-z]*' "$T/full" | sort -u | head; else pass; fi
    if nm -D "$T/full" 2>/dev/null | grep -qi nvrtc || nm "$T/full" 2>/dev/null | grep -qi nvrtc; then fail "the GM_NO_NVRTC demo has NVRTC symbols"; else pass; fi
fi

# On the GPU: runs that must succeed, and one that must name its missing kernel.
if [ -z "$gpu" ]; then
    echo "SKIP AOT demo on a GPU (embedded CUBIN, PTX only, missing kernel): no GPU here"; S=$((S+1))
else
    for v in full ptx; do
        if GM_CACHE_DIR="$T/cache" "$T/$v" "$T/out" > "$T/$v.run" 2>&1; then pass; else fail "AOT demo ($v) on the GPU:"; cat "$T/$v.run"; fi
    done
    if "$T/partial" "$T/out" > "$T/partial.run" 2>&1; then fail "the demo without its fast kernel ran"; else
        if grep -q "gm_xform_u8_f32_c3_hwc_chw.*not in the ahead-of-time set" "$T/partial.run"; then pass; else fail "missing kernel not named:"; cat "$T/partial.run"; fi
    fi
    if [ -d "$T/cache" ]; then fail "a GM_NO_NVRTC run wrote a disk cache"; else pass; fi
fi
echo "aot: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
