# SPDX-License-Identifier: MIT
"""Round trips torch and CuPy tensors through the gpumat package without a
copy: each import and export keeps the same device pointer, and each result
is checked against torch's own arithmetic. Exits 0 with a SKIP line when
torch, CuPy or a GPU is missing.
Run: make python && python3 examples/python/roundtrip.py"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpumat as gm  # noqa: E402


def skip(why):
    print("python: SKIP: %s" % why)
    sys.exit(0)


try:
    import cupy
    import torch
except ImportError as e:
    skip("%s (the round trip needs torch and cupy)" % e)
if not torch.cuda.is_available() or gm.path() != gm.DEVICE:
    skip("no GPU")

H, W = 480, 643  # an odd width: gpumat's own images get padded rows
MEAN, STD = (123.675, 116.28, 103.53), (58.395, 57.12, 57.375)
checks = []


def same_pointer(what, a, b):
    assert a == b, "%s: %#x != %#x (a copy was made)" % (what, a, b)
    checks.append(what)


# 1. torch in and out: a BGR u8 frame into a preallocated (1, 3, H, W) f32 blob
frame = torch.randint(0, 256, (H, W, 3), dtype=torch.uint8, device="cuda")
blob = torch.empty((1, 3, H, W), dtype=torch.float32, device="cuda")
same_pointer("torch frame -> gpumat", gm.image(frame).data, frame.data_ptr())
same_pointer("torch blob -> gpumat", gm.image(blob).data, blob.data_ptr())
gm.blob_from_image(frame, blob, mean=MEAN, std=STD, swap_rb=True)
mean, std = (torch.tensor(v, dtype=torch.float64, device="cuda").view(3, 1, 1) for v in (MEAN, STD))
want = ((frame.flip(-1).permute(2, 0, 1).double() - mean) / std).float()
assert torch.allclose(blob[0], want, atol=1e-5), "blob_from_image differs from torch"

# 2. a channels_last torch tensor is interleaved memory: it takes an HWC image
nhwc = torch.empty((1, 3, H, W), dtype=torch.float32, device="cuda").to(memory_format=torch.channels_last)
assert gm.image(nhwc).layout == gm.HWC
gm.convert(frame, nhwc, 1.0 / 255)
assert torch.allclose(nhwc[0], frame.permute(2, 0, 1).float() / 255, atol=1e-6), "convert into channels_last"

# 3. gpumat out to torch: a padded f16 image gpumat allocated, which torch views
half = gm.convert(blob, dtype=gm.F16)
t = torch.from_dlpack(half)
same_pointer("gpumat f16 -> torch", t.data_ptr(), half.data)
assert t.shape == (3, H, W) and t.stride(1) * 2 == half.pitch and not t.is_contiguous()
assert torch.allclose(t.float(), blob[0], atol=4e-3), "f16 export"
del half  # the export keeps gpumat's image alive until torch lets it go
assert torch.allclose(t.float(), blob[0], atol=4e-3)
del t

# 4. CuPy in, gpumat out to CuPy through __cuda_array_interface__ and DLPack
cu = cupy.random.randint(0, 256, (H, W, 3), dtype=cupy.uint8)
same_pointer("cupy -> gpumat", gm.image(cu).data, cu.data.ptr)
out = gm.convert(cu, alpha=2.0, beta=-1.0, dtype=gm.F32)
via_cai, via_dlpack = cupy.asarray(out), cupy.from_dlpack(out)
same_pointer("gpumat -> cupy (CUDA array interface)", via_cai.data.ptr, out.data)
same_pointer("gpumat -> cupy (DLPack)", via_dlpack.data.ptr, out.data)
gm.sync()
assert bool((via_cai == cu.astype(cupy.float32) * 2 - 1).all()), "convert through CuPy"
assert bool((via_dlpack == via_cai).all())

print("python: OK: torch and CuPy tensors through gpumat zero-copy, %d pointer checks: %s"
      % (len(checks), "; ".join(checks)))
