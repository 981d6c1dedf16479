# SPDX-License-Identifier: MIT
"""Every wrapped operation on numpy arrays (the CPU path), bit for bit
against opencv-python-headless 4.10 where OpenCV has the operation (and
gpumat equals it: gpumat/warp.h's and prep.h's release tables) or numpy's
own arithmetic, on random data, odd sizes and strided views; and that
arrays are written in place and exported without a copy."""
import weakref

import cv2
import numpy as np
import pytest

import gpumat as gm

DTYPES = [np.uint8, np.uint16, np.float32]
# The wheels resize u16 and f32 by IPP, which OpenCV's own arithmetic (and
# gpumat's, the C oracle's Debian 4.6 build has no IPP) is not.
cv2.ipp.setUseIPP(False)


def random_image(rng, h, w, c, dtype):
    shape = (h, w) if c == 1 else (h, w, c)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


def as_image(img, c):
    """gpumat's 1-channel results come back (H, W, 1)."""
    a = np.asarray(img)
    return a.reshape(a.shape[:2]) if c == 1 and a.ndim == 3 else a


@pytest.mark.parametrize("interp,cv", [(gm.INTER_LINEAR, cv2.INTER_LINEAR), (gm.INTER_NEAREST, cv2.INTER_NEAREST),
                                       (gm.INTER_AREA, cv2.INTER_AREA),
                                       (gm.INTER_LINEAR_EXACT, cv2.INTER_LINEAR_EXACT)])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("c", [1, 3, 4])
def test_resize(rng, interp, cv, dtype, c):
    for _ in range(3):
        h, w = rng.integers(3, 90, 2)
        src = random_image(rng, h + 7, w + 5, c, dtype)[3:3 + h, 2:2 + w]  # a strided view
        size = tuple(int(v) for v in rng.integers(1, 120, 2))
        want = cv2.resize(src, size, interpolation=cv)
        assert np.array_equal(as_image(gm.resize(src, size=size, interp=interp), c), want)
        dst = np.zeros_like(want)
        assert gm.resize(src, dst, interp=interp) is dst and np.array_equal(dst, want)
    fx = float(rng.uniform(0.3, 2.5))
    assert np.array_equal(as_image(gm.resize(src, fx=fx, fy=fx, interp=interp), c),
                          cv2.resize(src, None, fx=fx, fy=fx, interpolation=cv))


@pytest.mark.parametrize("interp,cv", [(gm.INTER_LINEAR, cv2.INTER_LINEAR), (gm.INTER_NEAREST, cv2.INTER_NEAREST),
                                       (gm.INTER_CUBIC, cv2.INTER_CUBIC)])
@pytest.mark.parametrize("border,cvb", [(gm.BORDER_CONSTANT, cv2.BORDER_CONSTANT),
                                        (gm.BORDER_REPLICATE, cv2.BORDER_REPLICATE),
                                        (gm.BORDER_REFLECT_101, cv2.BORDER_REFLECT_101),
                                        (gm.BORDER_WRAP, cv2.BORDER_WRAP)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_warps(rng, interp, cv, border, cvb, dtype):
    src = random_image(rng, 41, 57, 3, dtype)
    M = gm.rotation_matrix((28.5, 20.5), float(rng.uniform(-180, 180)), float(rng.uniform(0.5, 2)))
    M[2] += float(rng.uniform(-10, 10))
    value = [float(v) for v in rng.integers(0, 200, 3)]
    want = cv2.warpAffine(src, np.array(M).reshape(2, 3), (49, 37), flags=cv, borderMode=cvb, borderValue=value)
    got = gm.warp_affine(src, M, dsize=(49, 37), interp=interp, border=border, value=value)
    assert np.array_equal(np.asarray(got), want)
    quad = np.float32([[0, 0], [56, 0], [56, 40], [0, 40]])
    P = gm.perspective_from_points(quad, quad + rng.uniform(-6, 6, (4, 2)).astype(np.float32))
    want = cv2.warpPerspective(src, np.array(P).reshape(3, 3), (49, 37), flags=cv | cv2.WARP_INVERSE_MAP,
                               borderMode=cvb, borderValue=value)
    got = gm.warp_perspective(src, P, dsize=(49, 37), interp=interp, border=border, value=value, inverse=True)
    assert np.array_equal(np.asarray(got), want)


def test_matrices(rng):
    src, dst = rng.uniform(0, 100, (3, 2)).astype(np.float32), rng.uniform(0, 100, (3, 2)).astype(np.float32)
    M = gm.affine_from_points(src, dst)
    assert np.array_equal(np.array(M).reshape(2, 3), cv2.getAffineTransform(src, dst))
    assert np.array_equal(np.array(gm.invert_affine(M)).reshape(2, 3),
                          cv2.invertAffineTransform(np.array(M).reshape(2, 3)))
    assert np.array_equal(np.array(gm.rotation_matrix((10.5, 7.25), 33.0, 1.5)).reshape(2, 3),
                          cv2.getRotationMatrix2D((10.5, 7.25), 33.0, 1.5))
    src4, dst4 = rng.uniform(0, 100, (4, 2)).astype(np.float32), rng.uniform(0, 100, (4, 2)).astype(np.float32)
    assert np.array_equal(np.array(gm.perspective_from_points(src4, dst4)).reshape(3, 3),
                          cv2.getPerspectiveTransform(src4, dst4))


def umeyama(src, dst):
    """A direct float64 least-squares similarity (Umeyama 1991)."""
    ms, md = src.mean(0), dst.mean(0)
    s, d = src - ms, dst - md
    u, sigma, vt = np.linalg.svd(d.T @ s / len(src))
    e = np.diag([1.0, np.sign(np.linalg.det(u) * np.linalg.det(vt))])
    r = u @ e @ vt
    scale = np.trace(np.diag(sigma) @ e) / s.var(0).sum()
    return np.hstack([scale * r, (md - scale * r @ ms)[:, None]])


def test_similarity(rng):
    landmarks = np.array(gm.ARCFACE_112).reshape(5, 2) * rng.uniform(1, 3) + rng.uniform(0, 300, 2)
    landmarks += rng.normal(0, 2, (5, 2))
    M = np.array(gm.similarity_from_points(landmarks)).reshape(2, 3)
    assert np.allclose(M, umeyama(landmarks, np.array(gm.ARCFACE_112).reshape(5, 2)), rtol=0, atol=1e-9)


def test_convert_split_merge(rng):
    src = random_image(rng, 33, 47, 3, np.uint8)[1:, 2:]
    got = np.asarray(gm.convert(src, alpha=1 / 255, beta=0.5, dtype=np.float32))
    # convertTo's float alpha and beta, the product and sum rounded once (as its FMA does)
    assert np.array_equal(got, (src * np.float64(np.float32(1 / 255)) + np.float64(np.float32(0.5))).astype(np.float32))
    planar = gm.split(src)
    assert np.array_equal(np.asarray(planar), src.transpose(2, 0, 1))
    assert np.array_equal(np.asarray(gm.merge(planar)), src)
    planes = gm.split_planes(src)
    assert [np.array_equal(as_image(p, 1), src[:, :, i]) for i, p in enumerate(planes)] == [True] * 3
    assert np.array_equal(np.asarray(gm.merge_planes(planes)), src)
    dst = np.zeros((3,) + src.shape[:2], np.uint16)
    gm.transform(src, dst, map=[2, 1, 0], scale=[2, 3, 4], offset=[1, 0, 0])
    assert np.array_equal(dst, (src[:, :, ::-1].transpose(2, 0, 1) * np.array([2, 3, 4]).reshape(3, 1, 1)
                                + np.array([1, 0, 0]).reshape(3, 1, 1)).astype(np.uint16))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_blob(rng, dtype):
    mean, std = (123.675, 116.28, 103.53), (58.395, 57.12, 57.375)
    images = [random_image(rng, 45, 61, 3, np.uint8) for _ in range(3)]
    src = images[0].astype(dtype)
    # OpenCV 4.10 multiplies by the scale in double (gm_blob_arith GM_BLOB_DOUBLE)
    # a copy: OpenCV 4.10's blobFromImage subtracts the mean inside a float input
    want = cv2.dnn.blobFromImage(src.copy(), 1 / 255, (61, 45), mean, swapRB=True)
    got = gm.blob_from_image_with_params(src, scale=1 / 255, mean=mean, swap_rb=True, arith=gm.BLOB_DOUBLE)
    assert np.array_equal(np.asarray(got), want[0])
    batch = gm.blob_from_images_with_params(images, scale=1 / 255, mean=mean, swap_rb=True, arith=gm.BLOB_DOUBLE)
    assert np.array_equal(np.asarray(batch), cv2.dnn.blobFromImages(images, 1 / 255, (61, 45), mean, swapRB=True))
    float_blob = np.asarray(gm.blob_from_image(src, mean=mean, std=std, swap_rb=True))
    rgb = src[:, :, ::-1].transpose(2, 0, 1).astype(np.float32)
    scale = (1 / np.array(std)).astype(np.float32).reshape(3, 1, 1)
    assert np.array_equal(float_blob, (rgb - np.float32(mean).reshape(3, 1, 1)) * scale)


def ultralytics_letterbox(img, size, pad=114):
    """ultralytics' LetterBox (auto=False, center=True) then /255 RGB CHW."""
    h, w = img.shape[:2]
    r = min(size / h, size / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    dw, dh = (size - nw) / 2, (size - nh) / 2
    if (w, h) != (nw, nh):
        img = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)
    top, bottom, left, right = (int(round(dh - 0.1)), int(round(dh + 0.1)), int(round(dw - 0.1)),
                                int(round(dw + 0.1)))
    img = cv2.copyMakeBorder(img, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(pad, pad, pad))
    return img[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) * np.float32(1 / 255)


def test_preprocess_letterbox(rng):
    frame = random_image(rng, 211, 317, 3, np.uint8)
    options = dict(fit=gm.FIT_LETTERBOX, pad=114, swap_rb=True, scale=1 / 255)
    blob, g = gm.preprocess(frame, size=(96, 96), **options)
    assert np.array_equal(np.asarray(blob), ultralytics_letterbox(frame, 96))
    crops = [(int(x), int(y), int(w), int(h)) for x, y, w, h in zip(rng.integers(0, 150, 5), rng.integers(0, 100, 5),
                                                                   rng.integers(8, 160, 5), rng.integers(8, 110, 5))]
    batch = np.zeros((5, 3, 64, 64), np.float32)
    _, geometries = gm.preprocess_batch(frame, batch, crops=crops, **options)
    for i, (x, y, w, h) in enumerate(crops):
        assert np.array_equal(batch[i], ultralytics_letterbox(frame[y:y + h, x:x + w], 64))
        assert (geometries[i].crop.width, geometries[i].crop.height) == (w, h)
    g2 = gm.geometry_of((0, 0, 317, 211), (96, 96), **options)
    assert (g2.left, g2.top, g2.width, g2.height) == (g.left, g.top, g.width, g.height)
    box = gm.box_to_source(g, (g.left, g.top, g.left + g.width, g.top + g.height))
    assert np.allclose(box, (0, 0, 317, 211), atol=1e-6)


def test_preprocess_warp_equals_warp_then_blob(rng):
    frame = random_image(rng, 150, 200, 3, np.uint8)
    M = gm.rotation_matrix((100, 75), 20.0, 0.5)
    blob, _ = gm.preprocess(frame, size=(56, 56), fit=gm.FIT_WARP, warp=M, swap_rb=True, scale=1 / 255)
    warped = np.asarray(gm.warp_affine(frame, M, dsize=(56, 56)))
    assert np.array_equal(np.asarray(blob), warped[:, :, ::-1].transpose(2, 0, 1).astype(np.float32)
                          * np.float32(1 / 255))


@pytest.mark.parametrize("fmt,code", [(gm.YUV_NV12, cv2.COLOR_YUV2BGR_NV12), (gm.YUV_I420, cv2.COLOR_YUV2BGR_I420),
                                      (gm.YUV_NV21, cv2.COLOR_YUV2BGR_NV21)])
def test_yuv(rng, fmt, code):
    h, w = 46, 62
    buffer = rng.integers(0, 256, (h * 3 // 2, w), dtype=np.uint8)
    f = gm.frame(buffer, w, h, fmt)
    assert np.array_equal(np.asarray(gm.yuv_convert(f)), cv2.cvtColor(buffer, code))
    blob, _ = gm.preprocess_yuv(f, size=(31, 23), fit=gm.FIT_STRETCH)
    bgr = cv2.cvtColor(buffer, code)
    want, _ = gm.preprocess(bgr, size=(31, 23), fit=gm.FIT_STRETCH)
    assert np.array_equal(np.asarray(blob), np.asarray(want))
    out = np.zeros((2, 3, 23, 31), np.float32)
    gm.preprocess_yuv_batch([f, f.roi(2, 4, 40, 30)], out)
    assert np.array_equal(out[0], np.asarray(want))
    assert np.array_equal(out[1], np.asarray(gm.preprocess(bgr[4:34, 2:42], size=(31, 23))[0]))
    if fmt == gm.YUV_I420:
        bgr = random_image(rng, h, w, 3, np.uint8)
        target = np.zeros_like(buffer)
        gm.yuv_from_image(bgr, gm.frame(target, w, h, fmt))
        assert np.array_equal(target, cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420))


def test_fill_add_weighted_overlay(rng):
    a, b = random_image(rng, 30, 41, 3, np.uint8), random_image(rng, 30, 41, 3, np.uint8)
    assert np.array_equal(np.asarray(gm.add_weighted(a, 0.3, b, 0.6, 7.0)), cv2.addWeighted(a, 0.3, b, 0.6, 7.0))
    frame = a.copy()
    gm.fill(frame[5:9, 3:20], (1, 2, 3))
    want = a.copy()
    want[5:9, 3:20] = (1, 2, 3)
    assert np.array_equal(frame, want)
    sprite = random_image(rng, 7, 9, 4, np.uint8)
    frame = a.copy()
    gm.Overlay().draw(frame, [(sprite, 4, 3, gm.SPRITE_RGBA)], rgb=True)
    p, alpha = sprite[:, :, :3].astype(np.int64), sprite[:, :, 3:].astype(np.int64)
    d = a[3:10, 4:13].astype(np.int64)
    want = a.copy()
    want[3:10, 4:13] = (p * alpha + d * (255 - alpha) + 127) // 255
    assert np.array_equal(frame, want)
    mask, color = random_image(rng, 5, 6, 1, np.uint8), (10, 200, 30, 128)
    frame = a.copy()
    gm.Overlay().draw(frame, [(mask, 0, 0, gm.SPRITE_MASK, color)])  # BGR frame: colour R, G, B
    alpha = (mask.astype(np.int64) * 128 + 127) // 255
    want = a.copy()
    want[:5, :6] = (np.array(color[2::-1]) * alpha[:, :, None] + a[:5, :6] * (255 - alpha[:, :, None]) + 127) // 255
    assert np.array_equal(frame, want)


def test_zero_copy_in_and_out(rng):
    src = random_image(rng, 20, 30, 3, np.uint8)
    view = gm.image(src)
    assert view.data == src.ctypes.data and view.where == gm.HOST
    dst = np.zeros((3, 20, 30), np.float32)
    assert gm.image(dst).data == dst.ctypes.data and gm.image(dst).layout == gm.CHW
    out = gm.convert(src, dtype=gm.F32)
    a = np.asarray(out)
    assert a.ctypes.data == out.data and a.flags.writeable
    d = np.from_dlpack(out)
    alive = weakref.ref(out)
    del out, a
    assert alive() is not None, "numpy's view through DLPack keeps the image"
    assert np.array_equal(d, src.astype(np.float32))
    del d
    assert alive() is None, "the image goes with the last view of it"
    b = gm.copy(src)
    assert np.array_equal(np.asarray(b), src) and np.asarray(b).ctypes.data != src.ctypes.data
    assert np.array_equal(np.asarray(gm.image(src).roi(3, 2, 10, 5)), src[2:7, 3:13])


def test_calls_release_the_gil(rng):
    """A long CPU-path call on one thread leaves Python running on another:
    the main thread's longest pause while the call runs is a fraction of the
    call (holding the GIL, it would be all of it)."""
    import threading
    import time
    src = random_image(rng, 2160, 3840, 3, np.uint8)
    M = gm.rotation_matrix((1920, 1080), 10.0, 1.0)
    span = {}

    def warp():
        span["start"] = time.perf_counter()
        gm.warp_affine(src, M, dsize=(3840, 2160), interp=gm.INTER_CUBIC)
        span["end"] = time.perf_counter()

    threads = gm.threads()
    gm.set_threads(1)
    try:
        worker = threading.Thread(target=warp)
        worker.start()
        ticks = []
        while worker.is_alive():
            ticks.append(time.perf_counter())
        worker.join()
    finally:
        gm.set_threads(threads)
    points = [span["start"]] + [t for t in ticks if span["start"] < t < span["end"]] + [span["end"]]
    longest = max(b - a for a, b in zip(points, points[1:]))
    assert longest < 0.5 * (span["end"] - span["start"]), (longest, span["end"] - span["start"])
