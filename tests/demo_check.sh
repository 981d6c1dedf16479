#!/bin/sh
# Runs the demo (what `make` runs) into a temporary folder: it must exit 0
# (GPU == CPU where there is a GPU) and write three 640x360 PGM planes.
# Run alone: make build/demo && sh tests/demo_check.sh build
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0
if "$B/demo" "$T"; then P=$((P+1)); else echo "FAIL demo exited non-zero"; F=$((F+1)); fi
for c in r g b; do
    if [ "$(head -c 15 "$T/blob_$c.pgm" 2>/dev/null)" = "$(printf 'P5\n640 360\n255\n')" ] &&
       [ "$(wc -c < "$T/blob_$c.pgm")" -eq $((15 + 640 * 360)) ]; then P=$((P+1)); else echo "FAIL blob_$c.pgm missing or malformed"; F=$((F+1)); fi
done
echo "demo: $P passed, $F failed, 0 skipped"
[ "$F" -eq 0 ]
