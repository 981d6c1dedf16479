# SPDX-License-Identifier: MIT
"""The process-wide calls: the device, the CPU path's threads, the kernel
catalogue and its JIT (warm-up, compile, the disk cache, the log hook),
OpenCV type codes."""
import ctypes
from ctypes import byref

from . import _capi as C
from ._image import dtype_of
from ._lib import check, dll, fail


def path():
    """Where operations on auto-allocated images run: DEVICE or HOST (gm_path)."""
    return dll.gm_path()


def device():
    """(name, (major, minor)) of the CUDA device; gpumat.Error saying why
    where none is usable."""
    major, minor, name = ctypes.c_int(), ctypes.c_int(), ctypes.create_string_buffer(256)
    check(dll.gm_device(byref(major), byref(minor), name, len(name)))
    return name.value.decode(), (major.value, minor.value)


def set_threads(n):
    """The CPU path's threads (0: one per core; gm_set_threads)."""
    check(dll.gm_set_threads(n))


def threads():
    return dll.gm_threads()


def kernels():
    """The names of every kernel of the catalogue, by index."""
    return [dll.gm_kernel_name(i).decode() for i in range(dll.gm_kernel_count())]


def kernel_index(name):
    """The catalogue index of a kernel name; gpumat.Error if there is none."""
    index = dll.gm_kernel_find(name.encode())
    if index < 0:
        fail(C.GM_ERR_ARG, f"gpumat.kernel_index: no kernel {name!r}")
    return index


def kernels_for(src, dst, channels):
    """The catalogue indexes an operation from src's dtype to dst's with
    that many channels may use (gm_kernels_for), for warmup()."""
    found = (ctypes.c_int * 64)()
    n = dll.gm_kernels_for(dtype_of(src, "gpumat.kernels_for: src"), dtype_of(dst, "gpumat.kernels_for: dst"),
                           channels, found, len(found))
    if n == 0:
        check(C.GM_ERR_ARG)
    return list(found[:n])


def warmup(kernels=None, device=0):
    """Compiles or reads, and loads, the kernels (indexes; None: all), so
    the first frame pays nothing (gm_warmup)."""
    chosen = None if kernels is None else (ctypes.c_int * max(len(kernels), 1))(*kernels)
    check(dll.gm_warmup(chosen, 0 if kernels is None else len(kernels), device))


def compile_kernel(index, arch):
    """Compiles one kernel with NVRTC for sm_<arch> without a GPU; returns
    the image's size in bytes (gm_kernel_compile)."""
    size = ctypes.c_size_t()
    check(dll.gm_kernel_compile(index, arch, byref(size)))
    return size.value


def cache_dir():
    """The kernel disk cache's folder (gm_cache_dir)."""
    path = ctypes.create_string_buffer(4096)
    check(dll.gm_cache_dir(path, len(path)))
    return path.value.decode()


def cache_clear():
    check(dll.gm_cache_clear())


def release_context():
    """Forgets the current CUDA context (gm_release_context)."""
    check(dll.gm_release_context())


_logs = []  # every hook installed: C may still be calling an old one on another thread


def set_jit_log(fn):
    """fn(event name, kernel, ms, detail) for every JIT event (a compile, a
    cache hit, ...; gm_jit_set_log); None turns it off."""
    if fn is None:
        dll.gm_jit_set_log(C.gm_jit_log_fn(), None)
        return

    def hook(event, kernel, ms, detail, user):
        fn(dll.gm_jit_event_name(event).decode(), (kernel or b"").decode(), ms, (detail or b"").decode())

    _logs.append(C.gm_jit_log_fn(hook))
    dll.gm_jit_set_log(_logs[-1], None)


def cv_type(dtype, channels):
    """OpenCV's type code (CV_8UC3 = 16, ...); gpumat.Error where it has none."""
    code = dll.gm_cv_type(dtype_of(dtype, "gpumat.cv_type: dtype"), channels)
    if code < 0:
        fail(C.GM_ERR_TYPE, f"gpumat.cv_type: no OpenCV type for {channels} channels of dtype {dtype!r}")
    return code


def from_cv_type(code):
    """(dtype, channels) of an OpenCV type code."""
    dtype, channels = ctypes.c_int(), ctypes.c_int()
    check(dll.gm_from_cv_type(code, byref(dtype), byref(channels)))
    return dtype.value, channels.value


def dtype_size(dtype):
    return dll.gm_dtype_size(dtype_of(dtype))


def dtype_name(dtype):
    return dll.gm_dtype_name(dtype_of(dtype)).decode()


__all__ = ["cache_clear", "cache_dir", "compile_kernel", "cv_type", "device", "dtype_name", "dtype_size",
           "from_cv_type", "kernel_index", "kernels", "kernels_for", "path", "release_context", "set_jit_log",
           "set_threads", "threads", "warmup"]
