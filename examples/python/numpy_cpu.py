#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""numpy arrays through the gpumat package on the CPU path, without a copy:
a u8 BGR (H, W, 3) frame, and an ROI of it, into normalised RGB f32 (3, H, W)
blobs that numpy allocated, checked bit for bit against the same arithmetic
in numpy; then an f16 image that gpumat allocates, read by numpy through
DLPack. Host arrays run on the CPU path with or without a GPU. Exits 0 with
a SKIP line when numpy (1.23 or later) is missing.
Run: make python && python3 examples/python/numpy_cpu.py"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpumat as gm  # noqa: E402

try:
    import numpy as np
except ImportError as e:
    print("numpy_cpu: SKIP: %s (Debian's python3-numpy, or pip install numpy)" % e)
    sys.exit(0)
if not hasattr(np, "from_dlpack"):
    print("numpy_cpu: SKIP: numpy %s has no from_dlpack (1.23 or later has)" % np.__version__)
    sys.exit(0)

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
src = gm.image(frame)
assert src.where == gm.HOST and src.data == frame.ctypes.data, "the frame was copied"
assert gm.blob_from_image(frame, blob, mean=MEAN, std=STD, swap_rb=True) is blob
assert np.array_equal(blob, numpy_blob(frame)), "blob_from_image differs from numpy"

# 2. An ROI (a strided numpy view: rows 3 * W bytes apart) into a slice of a batch.
roi = frame[100:340, 50:370]
batch = np.zeros((2, 3, 240, 320), dtype=np.float32)
gm.blob_from_image(roi, batch[1], mean=MEAN, std=STD, swap_rb=True)
assert np.array_equal(batch[1], numpy_blob(roi)), "blob of an ROI differs from numpy"
assert not batch[0].any(), "wrote outside its destination"

# 3. gpumat allocates (host memory), numpy views it through DLPack: f16 of the blob.
half = gm.convert(blob, dtype=gm.F16)
h = np.from_dlpack(half)
assert h.ctypes.data == half.data and h.shape == (3, H, W) and h.dtype == np.float16, "f16 export"
del half  # the export keeps gpumat's image alive while numpy holds it
assert np.array_equal(h, blob.astype(np.float16)), "f32 -> f16 differs from numpy"

print("numpy_cpu: OK: numpy u8 (%d, %d, 3) -> f32 (3, %d, %d) and an ROI into a batch, bit-identical to numpy; "
      "an f16 image gpumat allocated, read by numpy without a copy" % (H, W, H, W))
