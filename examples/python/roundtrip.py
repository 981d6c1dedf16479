# SPDX-License-Identifier: MIT
"""Round trips torch and CuPy tensors through gpumat without a copy: each
import and export is checked to keep the same device pointer, and each
result against torch's own arithmetic. Exits 0 with a SKIP line when torch,
CuPy or a GPU is missing.
Run: make python && python3 examples/python/roundtrip.py build/libgpumat.so"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpumat as gm  # noqa: E402


def skip(why):
    print("python: SKIP: %s" % why)
    sys.exit(0)


try:
    import torch
    import cupy
except ImportError as e:
    skip("%s (the round trip needs torch and cupy)" % e)
if not torch.cuda.is_available():
    skip("no GPU")

lib = gm.Library(sys.argv[1] if len(sys.argv) > 1 else "build/libgpumat.so")
H, W = 480, 643  # an odd width: gpumat's own images get padded rows
MEAN, STD = (123.675, 116.28, 103.53, 0), (58.395, 57.12, 57.375, 1)
checks = []


def same_pointer(what, a, b):
    assert a == b, "%s: %#x != %#x (a copy was made)" % (what, a, b)
    checks.append(what)


# 1. torch in and out: a BGR u8 frame into a preallocated (1, 3, H, W) f32 blob
frame = torch.randint(0, 256, (H, W, 3), dtype=torch.uint8, device="cuda")
blob = torch.empty((1, 3, H, W), dtype=torch.float32, device="cuda")
torch.cuda.synchronize()
src, dst = lib.from_dlpack(frame, gm.HWC), lib.from_dlpack(blob, gm.CHW)
same_pointer("torch frame -> gpumat", src.data, frame.data_ptr())
same_pointer("torch blob -> gpumat", dst.data, blob.data_ptr())
lib.blob_from_image(src, dst, 1.0, MEAN, STD, swap_rb=True)
lib.sync()
mean, std = (torch.tensor(v[:3], dtype=torch.float64, device="cuda").view(3, 1, 1) for v in (MEAN, STD))
want = ((frame.flip(-1).permute(2, 0, 1).double() - mean) / std).float()
assert torch.allclose(blob[0], want, atol=1e-5), "blob_from_image differs from torch"

# 2. a channels_last torch tensor is interleaved memory: it imports as HWC
nhwc = torch.empty((1, 3, H, W), dtype=torch.float32, device="cuda").to(memory_format=torch.channels_last)
cl = lib.from_dlpack(nhwc, gm.CHW)
assert cl.mat.layout == gm.HWC
same_pointer("torch channels_last -> gpumat", cl.data, nhwc.data_ptr())
lib.convert(src, cl, 1.0 / 255)
lib.sync()
assert torch.allclose(nhwc[0], frame.permute(2, 0, 1).float() / 255, atol=1e-6), "convert into channels_last"

# 3. gpumat out to torch: a padded f16 image that torch takes over (MOVE)
half = lib.alloc(W, H, gm.F16, 3, gm.CHW)
lib.convert(dst, half)
t = torch.from_dlpack(lib.exporter(half, move=True))
same_pointer("gpumat f16 -> torch", t.data_ptr(), half.data)
assert t.shape == (3, H, W) and t.stride(1) * 2 == half.mat.pitch and not t.is_contiguous()
assert torch.allclose(t.float(), blob[0], atol=4e-3), "f16 export"
del t  # torch frees what gpumat allocated, through the export's deleter
torch.cuda.synchronize()

# 4. CuPy in, gpumat out to CuPy through __cuda_array_interface__ and DLPack
cu = cupy.random.randint(0, 256, (H, W, 3), dtype=cupy.uint8)
cupy.cuda.Device().synchronize()
cin = lib.from_dlpack(cu, gm.HWC)
same_pointer("cupy -> gpumat", cin.data, cu.data.ptr)
out = lib.alloc(W, H, gm.F32, 3, gm.HWC)
lib.convert(cin, out, 2.0, -1.0)
lib.sync()
via_cai = cupy.asarray(lib.cuda_array(out))
same_pointer("gpumat -> cupy (CUDA array interface)", via_cai.data.ptr, out.data)
via_dlpack = cupy.from_dlpack(lib.exporter(out))
same_pointer("gpumat -> cupy (DLPack)", via_dlpack.data.ptr, out.data)
assert bool((via_cai == cu.astype(cupy.float32) * 2 - 1).all()), "convert through CuPy"
assert bool((via_dlpack == via_cai).all())
del via_cai, via_dlpack
out.free()

print("python: OK: torch and CuPy tensors through gpumat zero-copy, %d pointer checks: %s"
      % (len(checks), "; ".join(checks)))
