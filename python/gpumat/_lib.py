# SPDX-License-Identifier: MIT
"""Finds and loads libgpumat.so, points gpumat at a pip-installed NVRTC, and
turns a failing status into gpumat.Error."""
import ctypes
import glob
import os
import sys

from . import _capi

STATUS_NAMES = {v: k for k, v in _capi.ENUMS["gm_status"].items()}


class Error(Exception):
    """A gpumat call failed: status is the gm_status number, name its
    constant ("GM_ERR_ARG"), message gpumat's own (it names the C function
    and the argument), or the Python layer's for what never reached C."""

    def __init__(self, status, message):
        self.status, self.name, self.message = status, STATUS_NAMES.get(status, str(status)), message
        super().__init__(f"{self.name}: {message}")


def _library_path():
    """GPUMAT_LIBRARY, else the copy inside the package (a wheel), else
    the source tree's build/ (make python)."""
    here = os.path.dirname(os.path.abspath(__file__))
    asked = os.environ.get("GPUMAT_LIBRARY")
    if asked:
        if not os.path.isfile(asked):
            raise ImportError(f"gpumat: GPUMAT_LIBRARY is {asked}, which is not a file")
        return asked
    for path in (os.path.join(here, "libgpumat.so"), os.path.join(here, "..", "..", "build", "libgpumat.so")):
        if os.path.isfile(path):
            return path
    raise ImportError("gpumat: libgpumat.so not found (set GPUMAT_LIBRARY, install the wheel, or run make python)")


def _pip_nvrtc():
    """NVRTC from the nvidia-cuda-nvrtc wheels (CUDA 13's, then 12's), for
    GM_NVRTC_PATH when the caller set none: gpumat's kernels include no
    toolkit header, so the library alone compiles them."""
    for root in sys.path:
        for pattern in ("nvidia/cu13/lib/libnvrtc.so.13", "nvidia/cuda_nvrtc/lib/libnvrtc.so.13",
                        "nvidia/cuda_nvrtc/lib/libnvrtc.so.12"):
            found = sorted(glob.glob(os.path.join(root, pattern)))
            if found:
                return found[0]
    return None


if not os.environ.get("GM_NVRTC_PATH") and _pip_nvrtc():
    os.environ["GM_NVRTC_PATH"] = _pip_nvrtc()

# CDLL (not PyDLL): ctypes releases the GIL for the length of every call.
dll = _capi.bind(ctypes.CDLL(_library_path()))


def check(status):
    if status != _capi.GM_OK:
        raise Error(status, (dll.gm_last_error() or b"").decode(errors="replace"))


def fail(status, message):
    raise Error(status, message)
