#!/bin/sh
# Checks that LICENSE is the MIT licence and that every file under include/,
# templates/ and gen/ (generated headers too) carries an SPDX-License-Identifier:
# MIT line in its first two lines. Run alone: sh tests/licence.sh
P=0 F=0
if head -1 LICENSE | grep -qx "MIT License" && grep -q "^Copyright (c) " LICENSE; then P=$((P+1)); else echo "FAIL LICENSE is not the MIT licence with a copyright line"; F=$((F+1)); fi
for f in $(git ls-files include templates gen 2>/dev/null || find include templates gen -type f); do
    [ -f "$f" ] || continue # listed by a stale index but deleted
    if head -2 "$f" | grep -q "SPDX-License-Identifier: MIT"; then P=$((P+1)); else echo "FAIL $f has no SPDX-License-Identifier: MIT line at its top"; F=$((F+1)); fi
done
echo "licence: $P passed, $F failed, 0 skipped"
[ "$F" -eq 0 ]
