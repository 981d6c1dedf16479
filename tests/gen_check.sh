#!/bin/sh
# Checks that the committed generated headers are what gen/gen.py makes now,
# and that two runs give the same bytes. Run alone: sh tests/gen_check.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0
python3 gen/gen.py --out "$T/a" && python3 gen/gen.py --out "$T/b" || { echo "FAIL generator did not run"; F=$((F+1)); }
if diff -r "$T/a" "$T/b" > /dev/null; then P=$((P+1)); else echo "FAIL generator output differs between runs"; F=$((F+1)); fi
if diff -ru include/gpumat/gen "$T/a"; then P=$((P+1)); else echo "FAIL include/gpumat/gen is stale: run make gen and commit"; F=$((F+1)); fi
echo "generator: $P passed, $F failed, 0 skipped"
[ "$F" -eq 0 ]
