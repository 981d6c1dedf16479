# SPDX-License-Identifier: MIT
"""Bad input raises gpumat.Error with the status and a message naming the
function and the argument, and writes nothing."""
import numpy as np
import pytest

import gpumat as gm


def raises(status, words, call):
    with pytest.raises(gm.Error) as e:
        call()
    assert e.value.status == status and e.value.name == next(k for k, v in gm.capi.ENUMS["gm_status"].items()
                                                             if v == status)
    for word in words:
        assert word in e.value.message, f"{word!r} not in {e.value.message!r}"
    return e.value


def test_not_an_image():
    raises(gm.ERR_ARG, ["gpumat.resize", "src", "list"], lambda: gm.resize([[1, 2]], size=(3, 3)))


def test_dtype_gpumat_lacks():
    raises(gm.ERR_TYPE, ["gpumat.convert", "src"], lambda: gm.convert(np.zeros((4, 4, 3), np.uint32)))
    raises(gm.ERR_TYPE, ["gpumat.convert", "src"], lambda: gm.convert(np.zeros((4, 4), np.complex64)))
    raises(gm.ERR_TYPE, ["dtype"], lambda: gm.convert(np.zeros((4, 4), np.uint8), dtype="int64"))


def test_view_gpumat_cannot_describe(rng):
    a = rng.integers(0, 255, (8, 10, 3), dtype=np.uint8)
    raises(gm.ERR_SIZE, ["gpumat.resize: src", "strides"], lambda: gm.resize(a[:, ::2], size=(4, 4)))  # pixels 6 elements apart
    raises(gm.ERR_ARG, ["layout", "gpumat.resize"], lambda: gm.resize(np.zeros((9, 8, 7), np.uint8), size=(4, 4)))


def test_nothing_written_on_error(rng):
    src = rng.integers(0, 255, (20, 30, 3), dtype=np.uint8)
    dst = np.full((10, 10, 3), 7, np.uint8)
    raises(gm.ERR_OVERLAP, ["gm_resize", "overlap"], lambda: gm.resize(src, src[:10, :10]))
    raises(gm.ERR_TYPE, ["gm_resize"], lambda: gm.resize(src, np.zeros((10, 10, 4), np.uint8)))
    raises(gm.ERR_ARG, ["gm_warp_affine", "M"], lambda: gm.warp_affine(src, [1, 0, np.nan, 0, 1, 0], dst=dst))
    raises(gm.ERR_ARG, ["gpumat.warp_affine", "M", "5"], lambda: gm.warp_affine(src, [1, 0, 0, 0, 1], dst=dst))
    batch = np.full((3, 10, 10, 3), 7, np.uint8)
    raises(gm.ERR_ARG, ["gpumat.warp_affine", "M", "6", "18"],
           lambda: gm.warp_affine(src, [1, 0, 0, 0, 1, 0], dst=batch, per_item=True))
    raises(gm.ERR_ARG, ["gpumat.preprocess", "warp", "12"],
           lambda: gm.preprocess(src, dst, fit=gm.FIT_WARP, warp=[1, 0, 0, 0, 1, 0] * 2))
    raises(gm.ERR_ARG, ["channel_map"], lambda: gm.preprocess(src, dst, channel_map=[0, 1]))
    assert (batch == 7).all()
    assert (dst == 7).all()


def test_read_only_destination():
    dst = np.zeros((4, 4, 3), np.uint8)
    dst.flags.writeable = False
    raises(gm.ERR_ARG, ["gpumat.fill", "dst", "read-only"], lambda: gm.fill(dst, 1))
    raises(gm.ERR_ARG, ["gpumat.split_planes", "planes[0]", "read-only"],
           lambda: gm.split_planes(np.zeros((4, 4, 3), np.uint8), [dst[:, :, 0], dst[:, :, 1], dst[:, :, 2]]))
    nv12 = np.zeros((6, 4), np.uint8)
    nv12.flags.writeable = False
    frame = gm.frame(nv12, 4, 4)  # reading a read-only frame is fine
    assert np.asarray(gm.yuv_convert(frame)).shape == (4, 4, 3)
    raises(gm.ERR_ARG, ["gpumat.yuv_from_image", "frame", "read-only"],
           lambda: gm.yuv_from_image(np.zeros((4, 4, 3), np.uint8), frame))
    assert not nv12.any()


def test_frame_larger_than_its_array():
    raises(gm.ERR_SIZE, ["gpumat.frame", "does not fit"], lambda: gm.frame(np.zeros((10, 10), np.uint8), 1920, 1080))
    raises(gm.ERR_SIZE, ["gpumat.frame", "pitch"], lambda: gm.frame(np.zeros((6, 8), np.uint8), 4, 4, pitch=4))


def test_bad_stream_and_options():
    src = np.zeros((4, 4, 3), np.uint8)
    raises(gm.ERR_ARG, ["stream"], lambda: gm.resize(src, size=(2, 2), stream="default"))
    raises(gm.ERR_ARG, ["gm_resize", "interp"], lambda: gm.resize(src, size=(2, 2), interp=99))
    raises(gm.ERR_ARG, ["gpumat.preprocess", "size"], lambda: gm.preprocess(src))
    raises(gm.ERR_ARG, ["gpumat.transform", "dst"], lambda: gm.transform(src, None))
    raises(gm.ERR_ARG, ["gpumat.Overlay.draw", "sprites[0]"], lambda: gm.Overlay().draw(src.copy(), [(src,)]))
    with pytest.raises(TypeError):
        gm.preprocess(src, size=(2, 2), no_such_option=1)
