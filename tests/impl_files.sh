#!/bin/sh
# Each public header's functions are defined in the implementation file of
# the same name (include/gpumat/X.h -> include/gpumat/impl/X.h), so a reader
# finds a function where its header suggests. Run alone: sh tests/impl_files.sh
P=0 F=0
for pub in include/gpumat/*.h; do
    impl=include/gpumat/impl/$(basename "$pub")
    for fn in $(grep -hoE '^GM_API [^(]*[ *]gm_[a-z0-9_]+\(' "$pub" | sed -E 's/.*[ *](gm_[a-z0-9_]+)\($/\1/'); do
        if [ -f "$impl" ] && grep -qE "^GM_API [^;]*[ *]$fn\(" "$impl"; then P=$((P+1))
        else echo "FAIL $fn, declared in $pub, is not defined in $impl"; F=$((F+1)); fi
    done
done
echo "impl_files: $P passed, $F failed, 0 skipped"
[ "$F" -eq 0 ]
