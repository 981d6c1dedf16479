# SPDX-License-Identifier: MIT
"""The gpumat wheel's PEP 517 backend (pyproject.toml names it), also run
by `make wheel`: compiles the header-only implementation once into
gpumat/libgpumat.so and zips it with the Python package. No compiled CPython
extension, so one py3-none wheel serves every Python 3.

The compiler is `python -m ziglang cc` for <arch>-linux-gnu.2.17 when the
ziglang package is installed (pip install ziglang): a library that needs
only glibc 2.17's libc, libdl, libpthread and libm, tagged
manylinux_2_17_<arch>, for x86_64 and, cross-compiled, aarch64. Without it
(or with GPUMAT_WHEEL_CC set) the wheel is built by that compiler (cc) for
this machine alone and tagged linux_<arch>, as a local build must be.

    python3 python/build_backend.py OUT_DIR [ARCH ...]   (default: this machine's)"""
import base64
import hashlib
import os
import platform
import re
import shlex
import subprocess
import sys
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "gpumat"


def _include():
    """include/ beside the package (an sdist) or in the source tree above it."""
    for d in (os.path.join(HERE, "include"), os.path.join(HERE, "..", "include")):
        if os.path.isfile(os.path.join(d, "gpumat.h")):
            return os.path.abspath(d)
    raise RuntimeError("gpumat build: include/gpumat.h not found beside python/ or above it")


def version():
    with open(os.path.join(_include(), "gpumat.h")) as f:
        return re.search(r'#define GPUMAT_VERSION_STRING "([^"]+)"', f.read()).group(1)


def _project():
    """pyproject.toml's [project] table (tomllib from Python 3.11, else the
    tomli package pyproject.toml asks the build for)."""
    try:
        import tomllib
    except ImportError:
        import tomli as tomllib
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _license():
    """The licence beside the package (an sdist) or in the source tree above it."""
    for path in (os.path.join(HERE, "LICENSE"), os.path.join(HERE, "..", "LICENSE")):
        if os.path.isfile(path):
            return path
    raise RuntimeError("gpumat build: LICENSE not found beside python/ or above it")


def _compiler(arch):
    """(command, platform tag) that builds the library for arch."""
    if os.environ.get("GPUMAT_WHEEL_CC"):
        return shlex.split(os.environ["GPUMAT_WHEEL_CC"]), f"linux_{arch}"
    try:
        import ziglang  # noqa: F401
        return [sys.executable, "-m", "ziglang", "cc", "-target", f"{arch}-linux-gnu.2.17"], f"manylinux_2_17_{arch}"
    except ImportError:
        if arch != platform.machine():
            raise RuntimeError(f"gpumat build: a {arch} wheel needs the ziglang package (pip install ziglang)")
        return ["cc"], f"linux_{arch}"


def build_library(arch, out):
    """libgpumat.so for arch at out; returns the wheel's platform tag."""
    cc, tag = _compiler(arch)
    include = _include()
    subprocess.run(cc + ["-std=c99", "-O2", "-fPIC", "-shared", "-s", "-I", include, "-DGPUMAT_IMPLEMENTATION",
                         "-x", "c", os.path.join(include, "gpumat.h"), "-o", out, "-ldl", "-lpthread", "-lm"],
                   check=True)
    return tag


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {NAME}", f"Version: {version()}", f"Summary: {p['description']}",
             f"License: {p['license']}", f"Requires-Python: {p['requires-python']}"]
    for extra, requirements in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
    return "\n".join(lines) + "\n"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _write_wheel(path, files):
    """files: [(name in the wheel, bytes)]; RECORD added last."""
    info = f"{NAME}-{version()}.dist-info"
    record = [_record_line(n, d) for n, d in files] + [f"{info}/RECORD,,"]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            entry = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            entry.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
        z.writestr(zipfile.ZipInfo(f"{info}/RECORD", (2026, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    arch = (config_settings or {}).get("arch") or os.environ.get("GPUMAT_WHEEL_ARCH") or platform.machine()
    package = os.path.join(HERE, NAME)
    with tempfile.TemporaryDirectory() as tmp:
        lib = os.path.join(tmp, "libgpumat.so")
        tag = build_library(arch, lib)
        files = []
        for name in sorted(os.listdir(package)):
            if name.endswith(".py"):
                with open(os.path.join(package, name), "rb") as f:
                    files.append((f"{NAME}/{name}", f.read()))
        with open(lib, "rb") as f:
            files.append((f"{NAME}/libgpumat.so", f.read()))
    info = f"{NAME}-{version()}.dist-info"
    with open(_license(), "rb") as f:
        files.append((f"{info}/LICENSE", f.read()))
    files.append((f"{info}/METADATA", _metadata().encode()))
    files.append((f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: gpumat build_backend\nRoot-Is-Purelib: false\n"
                                   f"Tag: py3-none-{tag}\n".encode()))
    name = f"{NAME}-{version()}-py3-none-{tag}.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    _write_wheel(os.path.join(wheel_directory, name), files)
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The package, this backend and the C headers it compiles."""
    root = f"{NAME}-{version()}"
    name = f"{root}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for entry in ("pyproject.toml", "build_backend.py", NAME):
            t.add(os.path.join(HERE, entry), f"{root}/{entry}", filter=lambda i: None if "__pycache__" in i.name else i)
        t.add(_include(), f"{root}/include")
        t.add(_license(), f"{root}/LICENSE")
        info = tarfile.TarInfo(f"{root}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        t.addfile(info, __import__("io").BytesIO(data))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[-1].strip())
    for arch in sys.argv[2:] or [platform.machine()]:
        print(os.path.join(sys.argv[1], build_wheel(sys.argv[1], {"arch": arch})))
