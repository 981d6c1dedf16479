#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""numpy arrays through gpumat on the CPU path, without a copy: a u8 BGR
(H, W, 3) frame, and an ROI of it, into normalised RGB f32 (3, H, W) blobs
that numpy allocated, checked bit for bit against the same arithmetic in
numpy; then an f16 image that gpumat allocates, handed to numpy through
DLPack. Host images run on the CPU path with or without a GPU. Exits 0 with
a SKIP line when numpy (1.23 or later) is missing.
Run: make python && python3 examples/python/numpy_cpu.py build/libgpumat.so"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpumat as gm  # noqa: E402

try:
    import numpy as np
except ImportError as e:
    print("numpy_cpu: SKIP: %s (Debian's python3-numpy, or pip install numpy)" % e)
    sys.exit(0)
if not hasattr(np, "from_dlpack"):
    print("numpy_cpu: SKIP: numpy %s has no from_dlpack (1.23 or later has)" % np.__version__)
    sys.exit(0)

lib = gm.Library(sys.argv[1] if len(sys.argv) > 1 else "build/libgpumat.so")
H, W = 480, 643
MEAN, STD = (123.675, 116.28, 103.53), (58.395, 57.12, 57.375)


def numpy_blob(bgr):
    """What gpumat computes for u8 -> f32: in float, (x - mean) times
    scalefactor / std (a double, rounded to float), channels swapped."""
    rgb = bgr[:, :, ::-1].transpose(2, 0, 1).astype(np.float32)
    mean = np.array(MEAN, np.float32).reshape(3, 1, 1)
    scale = (1.0 / np.array(STD, np.float64)).astype(np.float32).reshape(3, 1, 1)
    return (rgb - mean) * scale


frame = np.random.default_rng(2024).integers(0, 256, (H, W, 3), dtype=np.uint8)

# 1. The whole frame into a (3, H, W) blob: both are numpy's memory.
blob = np.empty((3, H, W), dtype=np.float32)
src, dst = lib.from_dlpack(frame, gm.HWC), lib.from_dlpack(blob, gm.CHW)
assert src.mat.where == gm.HOST and src.data == frame.ctypes.data, "the frame was copied"
assert dst.data == blob.ctypes.data, "the blob was copied"
lib.blob_from_image(src, dst, 1.0, MEAN, STD, swap_rb=True)
assert np.array_equal(blob, numpy_blob(frame)), "blob_from_image differs from numpy"

# 2. An ROI (a strided numpy view: rows 3 * W bytes apart) into a slice of a batch.
roi = frame[100:340, 50:370]
batch = np.zeros((2, 3, 240, 320), dtype=np.float32)
lib.blob_from_image(lib.from_dlpack(roi, gm.HWC), lib.from_dlpack(batch[1], gm.CHW), 1.0, MEAN, STD,
                    swap_rb=True)
assert np.array_equal(batch[1], numpy_blob(roi)), "blob of an ROI differs from numpy"
assert not batch[0].any(), "wrote outside its destination"

# 3. gpumat allocates (host memory), numpy takes the image over (MOVE): f16 of the blob.
half = lib.alloc_host(W, H, gm.F16, 3, gm.CHW)
lib.convert(dst, half)
ptr = half.data
h = np.from_dlpack(lib.exporter(half, move=True))
assert h.ctypes.data == ptr and h.shape == (3, H, W) and h.dtype == np.float16, "f16 export"
assert np.array_equal(h, blob.astype(np.float16)), "f32 -> f16 differs from numpy"
del h  # numpy frees what gpumat allocated, through the export's deleter

print("numpy_cpu: OK: numpy u8 (%d, %d, 3) -> f32 (3, %d, %d) and an ROI into a batch, bit-identical to numpy; "
      "an f16 image gpumat allocated, read by numpy without a copy" % (H, W, H, W))
