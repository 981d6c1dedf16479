#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes gpumat as one header for projects that vendor a single file: every
`#include "..."` of include/gpumat.h inlined where it first appears (relative
to the including file, as the compiler resolves it), later ones dropped (the
headers are guarded or included once), system includes kept.
Usage: python3 gen/single.py OUT.h   (what `make single` runs)"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include")
LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def inline(path, seen, out):
    path = os.path.normpath(path)
    if path in seen:
        return
    seen.add(path)
    rel = os.path.relpath(path, ROOT)
    out.append("/* ---- %s ---- */\n" % rel)
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = LOCAL_INCLUDE.match(line)
            if m:
                inline(os.path.join(os.path.dirname(path), m.group(1)), seen, out)
            else:
                out.append(line)


def version():
    with open(os.path.join(ROOT, "gpumat.h"), encoding="utf-8") as f:
        v = dict(re.findall(r"#define GPUMAT_VERSION_(MAJOR|MINOR) (\d+)", f.read()))
    return "%s.%s" % (v["MAJOR"], v["MINOR"])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = ["/* gpumat %s as a single header, made by gen/single.py from include/.\n"
           " * Do not edit; the library's own files are in include/. Use it as gpumat.h:\n"
           " * #define GPUMAT_IMPLEMENTATION in exactly one file before including it. */\n" % version()]
    inline(os.path.join(ROOT, "gpumat.h"), set(), out)
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.writelines(out)
    os.replace(tmp, sys.argv[1])


if __name__ == "__main__":
    main()
