#!/bin/sh
# Every heap block the implementation makes goes through GM_MALLOC /
# GM_REALLOC / GM_FREE (gpumat/impl/config.h gives their defaults): no bare
# malloc, calloc, realloc or free call is left in include/gpumat/impl/.
# Run alone: sh tests/alloc_check.sh
P=0 F=0
bare=$(grep -nE '(^|[^A-Za-z0-9_])(malloc|calloc|realloc|free) *\(' include/gpumat/impl/*.h | grep -v '^include/gpumat/impl/config.h:')
if [ -z "$bare" ]; then P=$((P+1))
else echo "FAIL bare allocator calls (use GM_MALLOC / GM_REALLOC / GM_FREE; calloc: GM_MALLOC + memset):"; echo "$bare"; F=$((F+1)); fi
echo "alloc_check: $P passed, $F failed, 0 skipped"
[ "$F" -eq 0 ]
