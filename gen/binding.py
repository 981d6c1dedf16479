#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes python/gpumat/_capi.py, the Python package's ctypes view of the C
API, from the public headers themselves: the C preprocessor expands them
(GM_API, the X-macro enums), this file parses what gpumat's headers
declare, and emits every enum, object-like #define, struct and function.
Hand-declared structs drift from the C; these cannot, and
tests/python/test_layout.py checks sizeof and offsetof of every struct and
every enum value against a C program built from the same headers. The
typed views of gen/views.h are left out: they are C's compile-time types,
and a Python image carries its dtype at run time.

Usage: python3 gen/binding.py [--check]   (make gen runs it; --check: exit 1
when the committed file differs from what the headers give now)."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "python", "gpumat", "_capi.py")
PUBLIC = os.path.join(ROOT, "include", "gpumat")

SCALARS = {
    "int": "c_int", "unsigned": "c_uint", "unsigned int": "c_uint", "char": "c_char",
    "unsigned char": "c_ubyte", "float": "c_float", "double": "c_double", "size_t": "c_size_t",
    "int32_t": "c_int32", "int64_t": "c_int64", "uint8_t": "c_uint8", "uint16_t": "c_uint16",
    "uint32_t": "c_uint32", "uint64_t": "c_uint64", "uintptr_t": "c_size_t",
}


def preprocessed():
    """The declarations of include/gpumat/*.h after the preprocessor, system
    headers left out by the line markers."""
    cc = os.environ.get("CC", "cc")
    text = subprocess.run([cc, "-E", "-DGPUMAT_NO_IMPLEMENTATION", "-I", os.path.join(ROOT, "include"),
                           os.path.join(ROOT, "include", "gpumat.h")],
                          check=True, capture_output=True, text=True).stdout
    keep, out = False, []
    for line in text.splitlines():
        m = re.match(r'# \d+ "([^"]+)"', line)
        if m:
            path = os.path.abspath(m.group(1))
            keep = os.path.dirname(path) == PUBLIC or path == os.path.join(PUBLIC, "gen", "dtypes.h")
        elif keep:
            out.append(line)
    return "\n".join(out)


def declarations(text):
    """Top-level declarations: the text between semicolons outside braces."""
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        elif ch == ";" and depth == 0:
            yield " ".join(text[start:i].split())
            start = i + 1


def defines():
    """Object-like GM_ macros whose value is a number, a list of numbers in
    braces (a tuple here) or another GM_ name, in header order (the
    preprocessor leaves none of them): [(name, Python expression)]."""
    number = r"-?[0-9][0-9.]*"
    found = []
    for name in sorted(os.listdir(PUBLIC)):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(PUBLIC, name)) as f:
            for line in f:
                m = re.match(r"#define (GM_[A-Z0-9_]+) +(.*)$", line.split("/*")[0].strip())
                if not m:
                    continue
                value = m.group(2).strip()
                if re.fullmatch(rf"\(?({number})u?\)?", value):
                    found.append((m.group(1), re.fullmatch(rf"\(?({number})u?\)?", value).group(1)))
                elif re.fullmatch(r"GM_[A-Z0-9_]+", value):
                    found.append((m.group(1), value))
                elif re.fullmatch(rf"\{{\s*{number}(\s*,\s*{number})*\s*\}}", value):
                    found.append((m.group(1), "(" + value.strip("{}").strip() + ",)"))
    return found


class Model:
    def __init__(self):
        self.enums = []      # (name, [(constant, value)])
        self.structs = []    # (name, [(field, ctype)])
        self.aliases = []    # (name, ctype)
        self.functions = []  # (name, restype, [argtype])
        self.known = {}      # C type name -> ctypes expression

    def ctype(self, spelled):
        """The ctypes expression of a C type as spelled (qualifiers dropped)."""
        t = re.sub(r"\b(const|struct|enum|volatile)\b", " ", spelled)
        stars = t.count("*")
        base = " ".join(t.replace("*", " ").split())
        if base == "void":
            return "None" if stars == 0 else ("c_void_p" if stars == 1 else "POINTER(c_void_p)")
        if base == "char" and stars == 1:
            return "c_char_p"
        expr = SCALARS.get(base) or self.known.get(base)
        if expr is None:
            raise SystemExit(f"gen/binding.py: unknown C type {spelled!r}")
        if expr.startswith("c_void_p") and stars:  # an opaque handle's pointer is a pointer
            return "c_void_p"
        for _ in range(stars):
            expr = f"POINTER({expr})"
        return expr

    def function_pointer(self, ret, params):
        args = [self.param(p, decay=True)[1] for p in split_params(params)]
        return f"CFUNCTYPE({', '.join([self.ctype(ret)] + args)})"

    def param(self, p, decay=False):
        """(name, ctype) of one parameter or field, arrays as pointers when
        `decay` (parameters) and as ctypes arrays otherwise."""
        m = re.match(r"(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", p)
        if m:
            return m.group(2), self.function_pointer(m.group(1), m.group(3))
        m = re.match(r"(.*?)(\w+)\s*((?:\[\s*\w*\s*\])*)$", p)
        spelled, name, dims = m.group(1), m.group(2), m.group(3)
        if not spelled.strip():  # an unnamed parameter: its last word is its type
            spelled, name = p, ""
        expr = self.ctype(spelled)
        for n in reversed(re.findall(r"\[\s*(\w*)\s*\]", dims)):
            expr = f"POINTER({expr})" if n == "" or decay else f"({expr} * {n})"
        return name, expr

    def add(self, decl):
        m = re.match(r"typedef enum (\w+) \{(.*)\} (\w+)$", decl)
        if m:
            value, members = -1, []
            for item in filter(None, (s.strip() for s in m.group(2).split(","))):
                name, _, expr = item.partition("=")
                value = int(expr.strip().rstrip("uU"), 0) if expr.strip() else value + 1
                members.append((name.strip(), value))
            self.enums.append((m.group(3), members))
            self.known[m.group(3)] = "c_int"
            return
        m = re.match(r"typedef struct (\w+) \{(.*)\} (\w+)$", decl)
        if m:
            fields = []
            self.known[m.group(1)] = m.group(3)  # its own fields may point to it
            for line in declarations(m.group(2) + ";"):
                if not line:
                    continue
                if "(" in line:  # a function pointer
                    fields.append(self.param(line))
                    continue
                first, *more = line.split(",")
                base = re.match(r"(.*?)(\**\s*\w+\s*(?:\[\w*\])*)$", first)
                for declarator in [base.group(2)] + more:
                    fields.append(self.param(base.group(1) + " " + declarator.strip()))
            if not m.group(3).startswith("gm__"):
                self.structs.append((m.group(3), fields))
            self.known[m.group(3)] = m.group(3)
            return
        m = re.match(r"typedef struct (\w+) ?(\*?) ?(\w+)$", decl)
        if m:  # an opaque type, or a pointer to one (gm_stream)
            self.known[m.group(3)] = "c_void_p"
            self.aliases.append((m.group(3), "c_void_p"))
            return
        m = re.match(r"typedef (.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", decl)
        if m:
            expr = self.function_pointer(m.group(1), m.group(3))
            self.known[m.group(2)] = m.group(2)
            self.aliases.append((m.group(2), expr))
            return
        m = re.match(r"typedef (\w+) (\w+)$", decl)
        if m:
            self.known[m.group(2)] = self.ctype(m.group(1))
            self.aliases.append((m.group(2), self.known[m.group(2)]))
            return
        m = re.match(r"extern (.*?)\b(gm_\w+)\s*\((.*)\)$", decl)
        if m:
            if m.group(2).startswith("gm__"):  # the typed views' internals, not the API
                return
            params = [] if m.group(3).strip() == "void" else [self.param(p, True)[1] for p in split_params(m.group(3))]
            self.functions.append((m.group(2), self.ctype(m.group(1)), params))
            return
        if decl.startswith("extern") or decl.startswith("typedef"):
            raise SystemExit(f"gen/binding.py: cannot read the declaration {decl[:80]!r}")


def split_params(text):
    """Parameters split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def emit(model, consts):
    lines = ['# SPDX-License-Identifier: MIT',
             '# Generated by gen/binding.py from include/gpumat/*.h: do not edit (make gen).',
             '"""ctypes declarations of the C API: every public enum, constant, struct',
             'and function, read off the headers (gpumat/__init__.py builds on them)."""',
             'from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_int32,',
             '                    c_int64, c_size_t, c_ubyte, c_uint, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)',
             '', '# enums: each constant, and ENUMS[type] = {constant: value}', 'ENUMS = {}']
    for name, members in model.enums:
        for const, value in members:
            lines.append(f"{const} = {value}")
        lines.append(f"ENUMS[{name!r}] = {{{', '.join(f'{c!r}: {v}' for c, v in members)}}}")
    lines += ["", "# object-like #defines (a name's value is the name it stands for)"]
    for name, value in consts:
        lines.append(f"{name} = {value}")
    lines += ["DEFINES = [" + ", ".join(repr(n) for n, _ in consts) + "]", "", "# structs"]
    for name, _ in model.structs:
        lines.append(f"class {name}(Structure):\n    pass\n")
    lines.append("")
    for alias, expr in model.aliases:
        lines.append(f"{alias} = {expr}")
    lines.append("")
    for name, fields in model.structs:
        body = ",\n    ".join(f"({f!r}, {t})" for f, t in fields)
        lines.append(f"{name}._fields_ = [\n    {body},\n]")
    lines.append("STRUCTS = [" + ", ".join(n for n, _ in model.structs) + "]")
    lines += ["", "# functions: name -> (restype, argtypes)", "FUNCTIONS = {"]
    for name, ret, args in model.functions:
        lines.append(f"    {name!r}: ({ret}, [{', '.join(args)}]),")
    lines += ["}", "", "",
              "def bind(dll):",
              '    """Sets every function\'s argtypes and restype on a CDLL of libgpumat."""',
              "    for name, (restype, argtypes) in FUNCTIONS.items():",
              "        fn = getattr(dll, name)",
              "        fn.restype, fn.argtypes = restype, argtypes",
              "    return dll", ""]
    return "\n".join(lines)


def generate():
    model = Model()
    for decl in declarations(preprocessed()):
        if decl:
            model.add(decl)
    return emit(model, defines())


def main(argv):
    text = generate()
    if "--check" in argv:
        with open(OUT) as f:
            if f.read() != text:
                print("gen/binding.py: python/gpumat/_capi.py is stale: run make gen", file=sys.stderr)
                return 1
        return 0
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT + ".tmp", "w", newline="\n") as f:
        f.write(text)
    os.replace(OUT + ".tmp", OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
