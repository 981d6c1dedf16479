# SPDX-License-Identifier: MIT
"""The wheels make wheel built (tests/python.sh passes their folder): their
names and files, the library inside each (its architecture, only glibc
2.17's libc, libdl, libpthread, libm and loader needed), RECORD's hashes,
and the x86_64 wheel installed into a fresh venv and used with no compiler
on PATH."""
import base64
import hashlib
import os
import platform
import re
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "python"))
import build_backend  # noqa: E402

FOLDER = os.environ.get("GM_WHEELS_BUILT", "")
ARCHS = {"x86_64": (0x3E, "ld-linux-x86-64.so.2"), "aarch64": (0xB7, "ld-linux-aarch64.so.1")}
GLIBC_LIBS = {"libc.so.6", "libdl.so.2", "libpthread.so.0", "libm.so.6"}


def wheel(arch):
    path = os.path.join(FOLDER, f"gpumat-{build_backend.version()}-py3-none-manylinux_2_17_{arch}.whl")
    assert os.path.isfile(path), f"no {path}"
    return path


@pytest.mark.parametrize("arch", ARCHS)
def test_wheel_contents(arch, tmp_path):
    path = wheel(arch)
    assert os.path.getsize(path) < 1.5e6, "the wheel should stay about a megabyte"
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        package = {f"gpumat/{n}" for n in os.listdir(os.path.join(ROOT, "python", "gpumat")) if n.endswith(".py")}
        assert package | {"gpumat/libgpumat.so"} <= names
        info = f"gpumat-{build_backend.version()}.dist-info"
        assert f"Tag: py3-none-manylinux_2_17_{arch}" in z.read(f"{info}/WHEEL").decode()
        for line in z.read(f"{info}/RECORD").decode().split():
            name, digest, size = line.split(",")
            if digest:
                data = z.read(name)
                assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
                    b"=").decode() and int(size) == len(data), name
        lib = tmp_path / "libgpumat.so"
        lib.write_bytes(z.read("gpumat/libgpumat.so"))
    machine, loader = ARCHS[arch]
    assert int.from_bytes(lib.read_bytes()[18:20], "little") == machine
    dynamic = subprocess.run(["readelf", "-dW", str(lib)], check=True, capture_output=True, text=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    assert needed and needed <= GLIBC_LIBS | {loader}, needed
    symbols = subprocess.run(["readelf", "--dyn-syms", "-W", str(lib)], check=True, capture_output=True,
                             text=True).stdout
    versions = {tuple(int(p) for p in v.split(".")) for v in re.findall(r"@GLIBC_([0-9.]+)", symbols)}
    assert versions and max(versions) <= (2, 17), max(versions)


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x86_64 wheel installs on x86_64 machines")
def test_wheel_installs_and_runs_without_a_compiler(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index",
                    wheel("x86_64")], check=True)
    smoke = """
import ctypes, shutil
assert shutil.which("cc") is None and shutil.which("gcc") is None, "a compiler on PATH"
import gpumat as gm
assert gm.lib._name.startswith(gm.__path__[0]), gm.lib._name
src = gm.alloc(37, 23, gm.U8, 3, where=gm.HOST)
gm.fill(src, (10, 20, 30))
out = gm.resize(src, size=(19, 11), interp=gm.INTER_AREA)
row = ctypes.string_at(out.data, 19 * 3)
assert row == bytes([10, 20, 30]) * 19, row
print("smoke: gpumat", gm.version(), "from", gm.lib._name)
"""
    env = {"PATH": str(venv / "bin"), "HOME": str(tmp_path)}
    run = subprocess.run([str(venv / "bin" / "python"), "-c", smoke], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "smoke: gpumat" in run.stdout
