# SPDX-License-Identifier: MIT
"""The GPU path from Python, with torch and CuPy (the device image has
both): arrays in and out without a copy (the data pointer unchanged), work
queued on the caller's stream, results bit-identical to the CPU path on the
same data, DLPack round trips, and refusals. Skipped, visibly, without a
GPU, torch or CuPy."""
import weakref

import numpy as np
import pytest

import gpumat as gm

torch = pytest.importorskip("torch", reason="torch is not installed")
cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
if not torch.cuda.is_available() or gm.path() != gm.DEVICE:
    pytest.skip("no GPU", allow_module_level=True)


def on_gpu(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def host(x):
    """A device result as numpy (torch tensor, CuPy array or gpumat.Image)."""
    torch.cuda.synchronize()
    if isinstance(x, gm.Image):
        copied = gm.copy(x, where=gm.HOST)
        gm.sync()
        return np.asarray(copied)
    if isinstance(x, torch.Tensor):
        return x.cpu().numpy()
    return cupy.asnumpy(x)


def random_u8(rng, *shape):
    return rng.integers(0, 256, shape, dtype=np.uint8)


def test_zero_copy_torch_in_and_out(rng):
    frame = on_gpu(random_u8(rng, 481, 643, 3))
    blob = torch.empty((1, 3, 640, 640), dtype=torch.float16, device="cuda")
    assert gm.image(frame).data == frame.data_ptr() and gm.image(blob).data == blob.data_ptr()
    options = dict(fit=gm.FIT_LETTERBOX, pad=114, swap_rb=True, scale=1 / 255)
    out, g = gm.preprocess(frame, blob, **options)
    assert out is blob
    want, _ = gm.preprocess(host(frame), size=(640, 640), dtype=gm.F16, **options)
    assert np.array_equal(host(blob)[0], np.asarray(want))
    channels_last = torch.zeros((1, 3, 33, 47), device="cuda").to(memory_format=torch.channels_last)
    assert gm.image(channels_last).layout == gm.HWC


def test_exports_keep_the_pointer(rng):
    src = cupy.asarray(random_u8(rng, 50, 70, 3))
    assert gm.image(src).data == src.data.ptr
    out = gm.convert(src, alpha=2.0, beta=-1.0, dtype=gm.F32)
    via_cai, via_dlpack, via_torch = cupy.asarray(out), cupy.from_dlpack(out), torch.from_dlpack(out)
    assert via_cai.data.ptr == via_dlpack.data.ptr == via_torch.data_ptr() == out.data
    want = np.asarray(gm.convert(host(src), alpha=2.0, beta=-1.0, dtype=gm.F32))
    alive = weakref.ref(out)
    del out
    assert alive() is not None, "the exports keep the image"
    assert np.array_equal(host(via_torch), want) and np.array_equal(host(via_dlpack), want)
    assert gm.image(via_torch).data == via_torch.data_ptr(), "torch's view of gpumat's image, back in gpumat"
    del via_cai, via_dlpack, via_torch
    assert alive() is None, "the image goes with its last export"


def test_caller_stream_is_honoured(rng):
    src = on_gpu(random_u8(rng, 1080, 1920, 3))
    dst = torch.full((540, 960, 3), 7, dtype=torch.uint8, device="cuda")
    gm.resize(src, size=(960, 540), interp=gm.INTER_AREA)  # compiles the kernel before the timing matters
    gm.sync()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(200_000_000)  # the stream is busy for about 0.1 s
        gm.resize(src, dst, interp=gm.INTER_AREA, stream=s)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # a read that does not wait for s
        snapshot = dst.clone()
    side.synchronize()
    assert not s.query() and (snapshot == 7).all(), "the resize did not wait for the caller's stream"
    s.synchronize()
    assert np.array_equal(host(dst), np.asarray(gm.resize(host(src), size=(960, 540), interp=gm.INTER_AREA)))
    for stream in (s.cuda_stream, cupy.cuda.Stream(non_blocking=True)):
        out = gm.resize(src, size=(640, 360), stream=stream)
        gm.sync(stream)
        assert np.array_equal(host(out), np.asarray(gm.resize(host(src), size=(640, 360))))


def test_every_operation_equals_the_cpu_path(rng):
    frame = random_u8(rng, 241, 319, 3)
    d = on_gpu(frame)
    M = gm.rotation_matrix((160, 120), 25.0, 0.8)
    pairs = [
        (lambda x: gm.warp_affine(x, M, dsize=(112, 112), interp=gm.INTER_CUBIC, border=gm.BORDER_REFLECT)),
        (lambda x: gm.split(x)),
        (lambda x: gm.merge(gm.split(x))),
        (lambda x: gm.blob_from_image(x, scalefactor=1 / 255, mean=(1, 2, 3), swap_rb=True, dtype=gm.F16)),
        (lambda x: gm.add_weighted(x, 0.25, x, 0.5, 3.0)),
        (lambda x: gm.preprocess_batch(x, crops=[(0, 0, 100, 80), (50, 60, 200, 150), (10, 5, 9, 300 - 100)],
                                       size=(64, 64), fit=gm.FIT_LETTERBOX, pad=114)[0]),
        (lambda x: gm.preprocess(x, size=(56, 56), fit=gm.FIT_WARP, warp=M, border=gm.BORDER_REPLICATE)[0]),
    ]
    for i, op in enumerate(pairs):
        assert np.array_equal(host(op(d)), np.asarray(op(frame))), f"operation {i}"
    nv12 = random_u8(rng, 240 * 3 // 2, 320)
    f_gpu, f_cpu = gm.frame(on_gpu(nv12), 320, 240), gm.frame(nv12, 320, 240)
    assert np.array_equal(host(gm.yuv_convert(f_gpu, rgb=True)), np.asarray(gm.yuv_convert(f_cpu, rgb=True)))
    a, b = gm.preprocess_yuv(f_gpu, size=(96, 64))[0], gm.preprocess_yuv(f_cpu, size=(96, 64))[0]
    assert np.array_equal(host(a), np.asarray(b))
    target_gpu, target_cpu = torch.zeros((360, 318), dtype=torch.uint8, device="cuda"), np.zeros((360, 318), np.uint8)
    gm.yuv_from_image(d[:240, :318], gm.frame(target_gpu, 318, 240))
    gm.yuv_from_image(frame[:240, :318], gm.frame(target_cpu, 318, 240))
    assert np.array_equal(host(target_gpu), target_cpu)
    sprite = random_u8(rng, 20, 30, 4)
    drawn_gpu, drawn_cpu = d.clone(), frame.copy()
    gm.Overlay().draw(drawn_gpu, [(sprite, 10, 7), (on_gpu(sprite), 300, 230)])
    gm.Overlay().draw(drawn_cpu, [(sprite, 10, 7), (sprite, 300, 230)])
    assert np.array_equal(host(drawn_gpu), drawn_cpu)
    gm.fill(d[10:20, 30:40], (1, 2, 3))
    frame[10:20, 30:40] = (1, 2, 3)
    assert np.array_equal(host(d), frame)


def test_bf16_through_dlpack():
    t = torch.randn((17, 23, 3), device="cuda").to(torch.bfloat16)
    out = gm.convert(t, dtype=gm.F32)
    assert np.array_equal(host(out), t.float().cpu().numpy())


def test_refusals(rng):
    src = on_gpu(random_u8(rng, 20, 30, 3))
    dst = torch.zeros((10, 15, 3), dtype=torch.uint8)  # host memory
    with pytest.raises(gm.Error) as e:
        gm.resize(src, dst)
    assert e.value.status == gm.ERR_LOCATION and "gm_resize" in e.value.message
    assert (dst == 0).all()
    with pytest.raises(gm.Error) as e:
        gm.resize(src, size=(5, 5), stream=object())
    assert e.value.status == gm.ERR_ARG and "stream" in e.value.message


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="a stream of another device needs two GPUs")
def test_stream_of_another_device(rng):
    src = on_gpu(random_u8(rng, 20, 30, 3))
    dst = torch.full((10, 15, 3), 9, dtype=torch.uint8, device="cuda:0")
    with cupy.cuda.Device(1):
        cupy_stream = cupy.cuda.Stream()
    for other in (torch.cuda.Stream(device=1), cupy_stream):
        with pytest.raises(gm.Error) as e:
            gm.resize(src, dst, stream=other)
        assert e.value.status == gm.ERR_ARG and "stream is on device 1" in e.value.message, e.value.message
    assert (dst == 9).all()


def test_views_of_torch_tensors_are_kept_while_valid(rng):
    from gpumat import _image
    t = on_gpu(random_u8(rng, 30, 40, 3))
    first = gm.image(t)
    assert gm.image(t).mat is first.mat, "the same tensor on the same stream is described once"
    writable = gm.image(t, writable=True).mat
    assert writable is not first.mat and gm.image(t).mat is writable
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        assert gm.image(t).mat is not gm.image(t).mat, "another stream than gpumat's: DLPack's wait every time"
    assert gm.image(t[:, :20]).width == 20
    t.resize_(10, 10, 3)  # the same tensor, at the same address, of another shape
    assert (gm.image(t).width, gm.image(t).height) == (10, 10)
    assert id(t) in _image._views
    ident = id(t)
    del t, first
    assert ident not in _image._views, "a dead tensor's view is let go"
    out = torch.zeros((30, 40, 3), dtype=torch.uint8, device="cuda")
    for _ in range(3):  # a loop's calls, each on the tensors of the last
        src = on_gpu(random_u8(rng, 30, 40, 3))
        gm.convert(src, out)
        assert torch.equal(out, src)
