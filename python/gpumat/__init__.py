# SPDX-License-Identifier: MIT
"""gpumat for Python: every gpumat operation on numpy, torch and CuPy arrays
(anything with DLPack, the CUDA array interface or numpy's array interface)
without a copy, over the C library's shared object through ctypes.

    import gpumat as gm
    blob, geometry = gm.preprocess(frame, size=(640, 640), fit=gm.FIT_LETTERBOX,
                                   pad=114, swap_rb=True, scale=1 / 255)

Host arrays run on the CPU path, device arrays on the GPU; results are the
caller's dst, or a new gpumat.Image that numpy.asarray, torch.from_dlpack
and cupy.asarray take as it is. Constants are the C names without GM_
(gpumat.U8, gpumat.INTER_LINEAR, gpumat.FIT_LETTERBOX); gpumat.capi holds
the C declarations themselves and gpumat.lib the loaded library, for
anything the Pythonic layer does not wrap."""
from . import _capi as capi
from ._image import Image, alloc, dtype_of, image, wrap
from ._lib import Error, check
from ._lib import dll as lib
from ._ops import *  # noqa: F401,F403
from ._ops import __all__ as _ops_all
from ._runtime import *  # noqa: F401,F403
from ._runtime import __all__ as _runtime_all
from ._prep import (Frame, Overlay, alloc_frame, box_to_source, frame, geometry_of, preprocess, preprocess_batch,
                    preprocess_yuv, preprocess_yuv_batch, rect_to_source_cv, yuv_convert, yuv_from_image)

for _enum in capi.ENUMS.values():
    for _name, _value in _enum.items():
        globals()[_name[3:]] = _value
for _name in capi.DEFINES:
    globals()[_name[3:]] = getattr(capi, _name)

__version__ = lib.gm_version().decode()


def version():
    """The C library's version."""
    return __version__


__all__ = ["Error", "Frame", "Image", "Overlay", "alloc", "alloc_frame", "box_to_source", "capi", "check",
           "dtype_of", "frame", "geometry_of", "image", "lib", "preprocess", "preprocess_batch", "preprocess_yuv",
           "preprocess_yuv_batch", "rect_to_source_cv", "version", "wrap", "yuv_convert",
           "yuv_from_image"] + _ops_all + _runtime_all
