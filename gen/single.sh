#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes gpumat as one header for projects that vendor a single file: every
# `#include "..."` of include/gpumat.h inlined where it first appears (relative
# to the including file, as the compiler resolves it), later ones dropped (the
# headers are guarded or included once), system includes kept. POSIX sh and
# awk, so that `make single` needs no Python.
# Usage: sh gen/single.sh VERSION OUT.h   (what `make single` runs)
if [ $# -ne 2 ]; then echo "usage: sh gen/single.sh VERSION OUT.h" >&2; exit 2; fi
case $2 in /*) out=$2 ;; *) out=$(pwd)/$2 ;; esac
cd "$(dirname "$0")/../include" || exit 1
awk -v version="$1" '
# norm(p): p without its "." and "dir/.." steps, as the compiler would open it
function norm(p,    n, i, k, part, kept, q) {
    n = split(p, part, "/")
    k = 0
    for (i = 1; i <= n; i++) {
        if (part[i] == "." || part[i] == "") continue
        if (part[i] == ".." && k > 0 && kept[k] != "..") { k--; continue }
        kept[++k] = part[i]
    }
    q = kept[1]
    for (i = 2; i <= k; i++) q = q "/" kept[i]
    return q
}
function inline(path,    dir, line, inc, r) {
    path = norm(path)
    if (path in seen) return
    seen[path] = 1
    print "/* ---- " path " ---- */"
    dir = path
    if (!sub(/\/[^\/]*$/, "", dir)) dir = "."
    while ((r = (getline line < path)) > 0) {
        if (line ~ /^[ \t]*#[ \t]*include[ \t]+"[^"]+"/) {
            inc = line
            sub(/^[^"]*"/, "", inc)
            sub(/".*/, "", inc)
            inline(dir "/" inc)
        } else {
            print line
        }
    }
    if (r < 0) { print "gen/single.sh: cannot read include/" path > "/dev/stderr"; exit 1 }
    close(path)
}
BEGIN {
    print "/* SPDX-License-Identifier: MIT */"
    print "/* gpumat " version " as a single header, made by gen/single.sh from include/."
    print " * Do not edit; the library\047s own files are in include/. Use it as gpumat.h:"
    print " * #define GPUMAT_IMPLEMENTATION in exactly one file before including it. */"
    inline("gpumat.h")
}' > "$out.tmp" || { rm -f "$out.tmp"; exit 1; }
mv "$out.tmp" "$out"
