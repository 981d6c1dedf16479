#!/bin/sh
# Runs the demo (what `make` runs) into a temporary folder and checks what it
# tells a new user: it exits 0; it names the path that ran (GPU with the
# device's name, or CPU with the reason); with a GPU, that GPU and CPU agreed
# bit for bit; the three PGM planes it wrote, by full path, exist as 640x360
# images; and the README sections it points to exist.
# Run alone: make build/demo && sh tests/demo_check.sh build
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0
pass() { P=$((P+1)); }
fail() { echo "FAIL $*"; F=$((F+1)); }

if "$B/demo" "$T" > "$T/out.txt" 2>&1; then pass; else fail "demo exited non-zero"; fi
cat "$T/out.txt"

# Which path ran, and the result line that goes with it.
if grep -Eq '^path: GPU, .+ \(sm_[0-9]+\)$' "$T/out.txt"; then
    if grep -q '^GPU and CPU results agreed bit for bit' "$T/out.txt"; then pass
    else fail "GPU path without the 'GPU and CPU results agreed bit for bit' line"; fi
elif grep -Eq '^path: CPU, no usable GPU: .+ \(.+\)$' "$T/out.txt"; then
    if grep -q '^CPU path only, no GPU result to compare with' "$T/out.txt"; then pass
    else fail "CPU path without the 'CPU path only' line"; fi
else
    fail "no 'path: GPU, NAME (sm_XY)' or 'path: CPU, no usable GPU: WHY (DETAIL)' line"
fi

# The planes, by the full paths the demo printed.
dir=$(cd "$T" && pwd -P)
for c in r g b; do
    f=$(sed -n "s|^wrote \(/.*/blob_$c\.pgm\) (.*)\$|\1|p" "$T/out.txt")
    if [ "$f" != "$dir/blob_$c.pgm" ]; then
        fail "no 'wrote $dir/blob_$c.pgm' line (got '$f')"
    elif [ "$(head -c 15 "$f")" = "$(printf 'P5\n640 360\n255\n')" ] &&
         [ "$(wc -c < "$f")" -eq $((15 + 640 * 360)) ]; then pass
    else fail "$f missing or malformed"; fi
done

# What to read next: the examples and README sections it names exist.
if grep -q '^next: ' "$T/out.txt"; then pass; else fail "no 'next:' line"; fi
for e in $(sed -n '/^next: /,$p' "$T/out.txt" | grep -oE 'examples/[a-z_/]+(\.c)?' | sort -u); do
    if [ -e "$e" ]; then pass; else fail "the demo names $e, which does not exist"; fi
done
for s in "Quick start" "CPU-only use" "The typed layer"; do
    if ! grep -q "\"$s\"" "$T/out.txt"; then fail "the demo does not point to the README section \"$s\""
    elif grep -q "^## $s\$" README.md; then pass
    else fail "the demo points to the README section \"$s\", which README.md lacks"; fi
done
if grep -q '^demo: OK$' "$T/out.txt"; then pass; else fail "no 'demo: OK' line"; fi

echo "demo: $P passed, $F failed, 0 skipped"
[ "$F" -eq 0 ]
