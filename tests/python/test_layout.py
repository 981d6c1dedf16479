# SPDX-License-Identifier: MIT
"""The generated binding against the C: sizeof and every offsetof of each
public struct, each enum constant and #define, compiled from the headers by
the C compiler; the function list against the headers' GM_API lines; and
the committed python/gpumat/_capi.py against what gen/binding.py makes now."""
import ctypes
import os
import re
import subprocess
import sys

from conftest import ROOT

import gpumat
from gpumat import capi

sys.path.insert(0, os.path.join(ROOT, "gen"))
import binding  # noqa: E402


def c_facts(tmp_path):
    """What a C program built against the headers prints: {key: number}."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <gpumat.h>", "int main(void) {"]
    for struct in capi.STRUCTS:
        name = struct.__name__
        lines.append(f'printf("sizeof {name} %zu\\n", sizeof({name}));')
        for field, _ in struct._fields_:
            lines.append(f'printf("offsetof {name}.{field} %zu\\n", offsetof({name}, {field}));')
    for enum, members in capi.ENUMS.items():
        lines.append(f'printf("sizeof {enum} %zu\\n", sizeof({enum}));')
        for const in members:
            lines.append(f'printf("value {const} %lld\\n", (long long){const});')
    for name in capi.DEFINES:
        if isinstance(getattr(capi, name), tuple):
            lines.append(f"{{ static const double v[] = {name}; for (size_t i = 0; i < sizeof v / sizeof *v; i++) "
                         f'printf("value {name}[%zu] %.17g\\n", i, v[i]); }}')
        else:
            lines.append(f'printf("value {name} %.17g\\n", (double)({name}));')
    lines += ["return 0;", "}"]
    src, exe = tmp_path / "facts.c", tmp_path / "facts"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c99", "-Wall", "-Werror", "-DGPUMAT_NO_IMPLEMENTATION",
                    "-I", os.path.join(ROOT, "include"), str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {k: float(v) for k, v in (line.rsplit(" ", 1) for line in out.splitlines())}


def python_facts():
    facts = {}
    for struct in capi.STRUCTS:
        facts[f"sizeof {struct.__name__}"] = ctypes.sizeof(struct)
        for field, _ in struct._fields_:
            facts[f"offsetof {struct.__name__}.{field}"] = getattr(struct, field).offset
    for enum, members in capi.ENUMS.items():
        facts[f"sizeof {enum}"] = ctypes.sizeof(ctypes.c_int)
        facts.update({f"value {c}": v for c, v in members.items()})
    for name in capi.DEFINES:
        value = getattr(capi, name)
        if isinstance(value, tuple):
            facts.update({f"value {name}[{i}]": v for i, v in enumerate(value)})
        else:
            facts[f"value {name}"] = value
    return facts


def header_names(pattern):
    """Names the public headers declare by a pattern (and gen/dtypes.h; the
    typed views of gen/views.h are C's alone)."""
    folder = os.path.join(ROOT, "include", "gpumat")
    found = set()
    for path in [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".h")] + [
            os.path.join(folder, "gen", "dtypes.h")]:
        with open(path) as f:
            found |= set(re.findall(pattern, f.read(), re.M))
    return found


def test_structs_enums_and_defines_match_the_c(tmp_path):
    c, py = c_facts(tmp_path), python_facts()
    assert {s.__name__ for s in capi.STRUCTS} == header_names(r"^typedef struct (gm_[a-z0-9][a-z0-9_]*) \{")
    assert set(capi.ENUMS) == header_names(r"^typedef enum (gm_[a-z0-9_]+) \{")
    assert set(c) == set(py)
    wrong = {k: (c[k], py[k]) for k in c if c[k] != py[k]}
    assert not wrong, f"C and Python disagree (C, Python): {wrong}"


def test_every_gm_api_function_is_bound():
    declared = header_names(r"^GM_API [^(]*?\b(gm_[a-z0-9][a-z0-9_]*)\(")
    assert declared and declared == set(capi.FUNCTIONS)
    for name in declared:
        assert getattr(gpumat.lib, name).argtypes is not None


def test_committed_binding_is_current():
    with open(os.path.join(ROOT, "python", "gpumat", "_capi.py")) as f:
        assert f.read() == binding.generate(), "python/gpumat/_capi.py is stale: run make gen"


def test_constants_without_prefix():
    assert (gpumat.U8, gpumat.F32, gpumat.HWC, gpumat.CHW) == (capi.GM_U8, capi.GM_F32, capi.GM_HWC, capi.GM_CHW)
    assert gpumat.INTER_AREA == capi.GM_INTER_AREA and gpumat.FIT_LETTERBOX == capi.GM_FIT_LETTERBOX
    assert len(gpumat.ARCFACE_112) == 10
