#!/bin/sh
# Builds tests/dlpack_layout.c against every real dlpack.h it finds (Debian's
# libdlpack-dev, PyTorch's ATen copy) and runs it; adds up their counts.
# No header at all: SKIP here, FAIL on CI (CI=true installs libdlpack-dev).
# Run alone: sh tests/dlpack_layout.sh build
B=${1:-build}
P=0 F=0 S=0 found=0
# check NAME INCLUDE_DIR HEADER: compile, run, add the summary to the totals.
check() {
    found=1
    if ! ${CC:-cc} -std=c11 -Wall -Wextra -Werror -Iinclude -Itests -I"$2" -DGM_DLPACK_HEADER="<$3>" \
        -DGM_DLPACK_WHERE="\"$2/$3\"" tests/dlpack_layout.c -o "$B/dlpack_layout_$1" -ldl -lpthread -lm; then
        echo "FAIL dlpack_layout: does not build against $2/$3"; F=$((F+1)); return
    fi
    "$B/dlpack_layout_$1" > "$B/dlpack_layout_$1.log" 2>&1
    cat "$B/dlpack_layout_$1.log"
    set -- $(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' "$B/dlpack_layout_$1.log")
    if [ $# -ne 3 ]; then echo "FAIL dlpack_layout: no summary line"; F=$((F+1)); return; fi
    P=$((P+$1)) F=$((F+$2)) S=$((S+$3))
}
mkdir -p "$B"
[ -f /usr/include/dlpack/dlpack.h ] && check debian /usr/include dlpack/dlpack.h
torch_inc=$(python3 -c 'import torch.utils.cpp_extension as c; print(c.include_paths()[0])' 2>/dev/null)
[ -n "$torch_inc" ] && [ -f "$torch_inc/ATen/dlpack.h" ] && check torch "$torch_inc" ATen/dlpack.h
if [ $found -eq 0 ]; then
    if [ "$CI" = "true" ]; then echo "FAIL dlpack_layout: no dlpack.h; CI must install libdlpack-dev"; F=$((F+1))
    else echo "SKIP dlpack_layout: no dlpack.h here (apt install libdlpack-dev, or pip install torch)"; S=$((S+1)); fi
fi
echo "dlpack_layout: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
