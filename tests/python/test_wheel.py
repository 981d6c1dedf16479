# SPDX-License-Identifier: MIT
"""The wheels make wheel built (tests/python.sh passes their folder): their
names and files, the library inside each (its architecture, only glibc
2.17's libc, libdl, libpthread, libm and loader needed), RECORD's hashes;
the x86_64 wheel installed into a fresh venv and used with no compiler on
PATH; and the aarch64 wheel's library run under qemu-aarch64, giving the
x86_64 build's bits."""
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
        record = z.read(f"{info}/RECORD").decode().split()
        assert {line.split(",")[0] for line in record} == names, "RECORD lists every file of the wheel"
        for line in record:
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


# A program of CPU-path work on pseudo-random images (resizes, a warp, a
# letterbox, NV12 to BGR) that prints a hash of every result byte.
SMOKE_C = r"""
#include <gpumat.h>
#include <stdio.h>
#include <string.h>
static unsigned long long hash = 1469598103934665603ull;
static void eat(const gm_mat* m)
{
    for (int64_t y = 0; y < m->height; y++)
        for (int64_t i = 0; i < gm_row_bytes(m); i++)
            hash = (hash ^ ((const unsigned char*)m->data)[y * m->pitch + i]) * 1099511628211ull;
}
#define TRY(x) if ((x) != GM_OK) { printf("FAIL %s: %s\n", #x, gm_last_error()); return 1; }
int main(void)
{
    gm_mat src, out, f32;
    TRY(gm_alloc_host(&src, 173, 131, GM_U8, 3, GM_HWC, 0));
    unsigned state = 12345;
    for (int64_t y = 0; y < src.height; y++)
        for (int64_t i = 0; i < gm_row_bytes(&src); i++)
            ((unsigned char*)src.data)[y * src.pitch + i] = (unsigned char)((state = state * 1103515245u + 12345u) >> 16);
    const gm_interp interps[] = {GM_INTER_LINEAR, GM_INTER_NEAREST, GM_INTER_AREA, GM_INTER_LINEAR_EXACT};
    for (int k = 0; k < 4; k++) {
        TRY(gm_alloc_host(&out, 61 + 40 * k, 47 + 30 * k, GM_U8, 3, GM_HWC, 0));
        TRY(gm_resize(&src, &out, interps[k], NULL));
        eat(&out);
        gm_free(&out);
    }
    double M[6];
    TRY(gm_rotation_matrix(86.5f, 65.5f, 33.0, 0.7, M));
    gm_warp_params wp = {GM_INTER_CUBIC, GM_BORDER_REFLECT_101, {0}, 0, 0, GM_WARP_OPENCV4};
    TRY(gm_alloc_host(&out, 112, 112, GM_U8, 3, GM_HWC, 0));
    TRY(gm_warp_affine(&src, &out, M, &wp, NULL));
    eat(&out);
    gm_prep prep;
    memset(&prep, 0, sizeof prep);
    prep.fit = GM_FIT_LETTERBOX;
    prep.pad[0] = prep.pad[1] = prep.pad[2] = 114;
    prep.scale[0] = prep.scale[1] = prep.scale[2] = 1.0 / 255;
    prep.swap_rb = 1;
    TRY(gm_alloc_host(&f32, 96, 96, GM_F32, 3, GM_CHW, 0));
    TRY(gm_preprocess(&src, NULL, &f32, &prep, NULL, NULL));
    eat(&f32);
    gm_yuv frame;
    TRY(gm_yuv_wrap(&frame, GM_YUV_NV12, src.data, 172, 86, src.pitch, 0, GM_HOST));
    gm_mat bgr;
    TRY(gm_alloc_host(&bgr, 172, 86, GM_U8, 3, GM_HWC, 0));
    TRY(gm_yuv_convert(&frame, &bgr, 0, NULL));
    eat(&bgr);
    printf("%s %016llx\n", gm_version(), hash);
    return 0;
}
"""


def test_aarch64_library_gives_the_x86_64_bits(tmp_path):
    import shutil
    qemu, sysroot = shutil.which("qemu-aarch64"), "/usr/aarch64-linux-gnu"
    if not qemu or not os.path.isdir(sysroot):
        if os.environ.get("CI") == "true":
            pytest.fail("qemu-aarch64 or the aarch64 glibc is missing (apt-get install qemu-user libc6-arm64-cross)")
        pytest.skip("no qemu-aarch64 and aarch64 glibc (apt-get install qemu-user libc6-arm64-cross)")
    (tmp_path / "smoke.c").write_text(SMOKE_C)
    with zipfile.ZipFile(wheel("aarch64")) as z:
        (tmp_path / "libgpumat.so").write_bytes(z.read("gpumat/libgpumat.so"))
    include = os.path.join(ROOT, "include")
    subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target", "aarch64-linux-gnu.2.17", "-std=c99",
                    "-DGPUMAT_NO_IMPLEMENTATION", "-I", include, str(tmp_path / "smoke.c"), "-L", str(tmp_path),
                    "-lgpumat", "-o", str(tmp_path / "smoke_arm")], check=True)
    arm = subprocess.run([qemu, "-L", sysroot, "-E", f"LD_LIBRARY_PATH={tmp_path}", str(tmp_path / "smoke_arm")],
                         capture_output=True, text=True)
    native = os.path.join(os.path.dirname(os.environ["GPUMAT_LIBRARY"]), "libgpumat.a")
    subprocess.run(["cc", "-std=c99", "-O2", "-DGPUMAT_NO_IMPLEMENTATION", "-I", include, str(tmp_path / "smoke.c"),
                    native, "-o", str(tmp_path / "smoke_x86"), "-ldl", "-lpthread", "-lm"], check=True)
    x86 = subprocess.run([str(tmp_path / "smoke_x86")], capture_output=True, text=True)
    assert arm.returncode == 0 and x86.returncode == 0, (arm.stdout + arm.stderr, x86.stdout + x86.stderr)
    assert arm.stdout == x86.stdout and arm.stdout.startswith(build_backend.version())
