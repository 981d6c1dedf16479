# SPDX-License-Identifier: MIT
"""The implementation reads top down: gpumat.h includes its files in one
order, and no file names a function, macro or type that a later file
defines, so each file needs only what comes before it (no cycles, no
forward declarations). A macro's body is exempt (it is expanded where it is
used), and so is impl/internal.h, which declares internals for the tests.
Run alone: python3 tests/layers_check.py"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EXEMPT = {"gpumat/impl/internal.h"}


def read(path):
    with open(os.path.join(ROOT, "include", path)) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)  # strings (the kernel source) name nothing
    lines, out, in_macro = text.split("\n"), [], False
    for line in lines:  # macro bodies blanked, their names kept
        m = re.match(r"\s*#\s*define\s+(\w+)", line)
        if m or in_macro:
            out.append("#define " + m.group(1) if m else "")
            in_macro = line.rstrip().endswith("\\")
        else:
            out.append(line)
    return "\n".join(out)


def defined(text):
    names = set(re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M))
    names |= set(re.findall(r"^(?:static|GM_API|GM__INTERNAL)\b[^;{=]*?\b(gm_\w+)\s*\([^;]*?\)\s*\{", text, re.M | re.S))
    names |= set(re.findall(r"\}\s*(gm_\w+)\s*;", text))  # typedef struct ... { } name;
    names |= set(re.findall(r"^typedef\b[^;{]*?\b(gm_\w+)\s*;", text, re.M))
    return names


def main():
    with open(os.path.join(ROOT, "include", "gpumat.h")) as f:
        head = f.read()
    start = head.index("#define GPUMAT_IMPLEMENTED")
    order = re.findall(r'^#include "(gpumat/[^"]+)"', head[start:], re.M)
    texts = [read(p) for p in order]
    first = {}
    for i, t in enumerate(texts):
        for n in defined(t):
            first.setdefault(n, i)
    passed = failed = 0
    for i, (path, text) in enumerate(zip(order, texts)):
        if path in EXEMPT:
            continue
        later = sorted(n for n in set(re.findall(r"\b(?:gm|GM)_\w+", text)) if first.get(n, -1) > i)
        for n in later:
            print("FAIL layers: %s names %s, which the later %s defines" % (path, n, order[first[n]]))
        failed += len(later)
        passed += not later
    print("layers: %d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
