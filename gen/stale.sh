#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints what makes the generated headers stale, one item a line, nothing when
# they are current: each generator input whose content no longer matches the
# sha256 its banner records (sha256sum's format), a missing header, or one
# whose banner records no inputs. Content, not file times, which say nothing
# after a clone. Without sha256sum it trusts the committed headers.
# Usage: sh gen/stale.sh HEADER...   (the Makefile runs it on its generated headers)
cd "$(dirname "$0")/.." || exit 1
command -v sha256sum > /dev/null 2>&1 || exit 0
sums='s/^ \* \([0-9a-f]\{64\}\)  /\1  /p'
for h in "$@"; do
    if [ ! -f "$h" ]; then echo "$h (missing)"
    elif [ -z "$(sed -n "$sums" "$h")" ]; then echo "$h (no input hashes in its banner)"; fi
done
sed -n "$sums" "$@" 2> /dev/null | sort -u | sha256sum -c 2> /dev/null | sed -n 's/: FAILED.*//p' | sort -u
