# SPDX-License-Identifier: MIT
"""The operations: each takes images (see gpumat.image), passes them to the C
function of the same name, and returns dst: the caller's array when one was
given, else a new gpumat.Image in the source's kind of memory."""
import ctypes
from ctypes import byref

from . import _capi as C
from ._image import LAYOUTS, Image, alloc, dtype_of, image, stream_of
from ._lib import check, dll, fail


def _flat(values):
    """The numbers of a number, a sequence, nested sequences or an array."""
    if isinstance(values, (int, float)):
        return [values]
    if hasattr(values, "tolist"):
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        return [values]
    if not any(isinstance(v, (list, tuple)) or hasattr(v, "tolist") for v in values):
        return list(values)
    return [v for item in values for v in _flat(item)]


def doubles(values, count, fn, name, ctype=ctypes.c_double):
    """A C array of count numbers from a sequence (nested, or numpy); None
    stays NULL. count None: as many as given."""
    if values is None:
        return None
    flat = _flat(values)
    if count is not None and len(flat) != count:
        fail(C.GM_ERR_ARG, f"{fn}: {name} has {len(flat)} numbers, not {count}")
    try:
        return (ctype * len(flat))(*flat)
    except TypeError:
        fail(C.GM_ERR_ARG, f"{fn}: {name} holds something that is not a number")


def _four(values, fn, name, fill=0.0):
    """Up to four per-channel numbers (a scalar is every channel's)."""
    if values is None:
        return None
    flat = _flat(values)
    if len(flat) == 1:
        flat = flat * 4
    elif len(flat) > 4:
        fail(C.GM_ERR_ARG, f"{fn}: {name} has {len(flat)} numbers, more than 4 channels")
    try:
        return _FOUR(*flat, *[fill] * (4 - len(flat)))
    except TypeError:
        fail(C.GM_ERR_ARG, f"{fn}: {name} holds something that is not a number")


_FOUR = ctypes.c_double * 4


def _src(obj, fn, name="src", layout=None, stream=None):
    return image(obj, layout=layout, stream=stream, fn=fn, name=name)


def _dst(dst, like, fn, width, height, dtype, channels, layout, batch=1, stream=None):
    """(the Image to write, what to return): dst viewed, or a new image where
    `like` lies (host memory for host sources)."""
    if dst is not None:
        return image(dst, writable=True, stream=stream, fn=fn, name="dst"), dst
    new = alloc(width, height, dtype, channels, layout, batch, like.where)
    return new, new


def _mats(objs, fn, name, layout=None, stream=None, writable=False):
    """A C array of gm_mat from a list of images, and the Images behind it."""
    if isinstance(objs, (Image,)) or not isinstance(objs, (list, tuple)):
        fail(C.GM_ERR_ARG, f"{fn}: {name} must be a list of images")
    if not objs:
        fail(C.GM_ERR_ARG, f"{fn}: {name} is empty")
    images = [image(o, layout=layout, writable=writable, stream=stream, fn=fn, name=f"{name}[{i}]")
              for i, o in enumerate(objs)]
    return (C.gm_mat * max(len(images), 1))(*[i.mat for i in images]), images


def sync(stream=None):
    """Waits for gpumat's work on stream (gm_sync)."""
    check(dll.gm_sync(stream_of(stream, "gpumat.sync")))


def copy(src, dst=None, where=None, stream=None):
    """src into dst (gm_copy: any pair of host and device memory); dst None:
    a new image in `where` (default: src's)."""
    fn = "gpumat.copy"
    s = _src(src, fn, stream=stream)
    if dst is None:
        out = alloc(s.width, s.height, s.dtype, s.channels, s.layout, s.batch, s.where if where is None else where)
        result = out
    else:
        out, result = _dst(dst, s, fn, 0, 0, 0, 0, 0, stream=stream)
    check(dll.gm_copy(byref(s.mat), byref(out.mat), stream_of(stream, fn)))
    return result


def convert(src, dst=None, alpha=1.0, beta=0.0, dtype=None, stream=None):
    """saturate(src * alpha + beta) into dst's dtype (cv::Mat::convertTo)."""
    fn = "gpumat.convert"
    s = _src(src, fn, stream=stream)
    out, result = _dst(dst, s, fn, s.width, s.height, s.dtype if dtype is None else dtype, s.channels, s.layout,
                       s.batch, stream)
    check(dll.gm_convert(byref(s.mat), byref(out.mat), alpha, beta, stream_of(stream, fn)))
    return result


def transform(src, dst, map=None, pre=None, scale=None, offset=None, stream=None):
    """gm_transform: destination channel c = saturate((src[map[c]] + pre[c])
    * scale[c] + offset[c]), or the constant offset[c] where map[c] < 0."""
    fn = "gpumat.transform"
    if dst is None:
        fail(C.GM_ERR_ARG, f"{fn}: dst is needed (its dtype, channels and layout say what to make)")
    s = _src(src, fn, stream=stream)
    out, result = _dst(dst, s, fn, 0, 0, 0, 0, 0, stream=stream)
    x = dll.gm_xform_identity()
    for field, values in (("map", map), ("pre", pre), ("scale", scale), ("offset", offset)):
        if values is not None:
            flat = _flat(values)
            if len(flat) > 4:
                fail(C.GM_ERR_ARG, f"{fn}: {field} has {len(flat)} entries, more than 4 channels")
            try:
                getattr(x, field)[:len(flat)] = [int(v) if field == "map" else float(v) for v in flat]
            except (TypeError, ValueError):
                fail(C.GM_ERR_ARG, f"{fn}: {field} holds something that is not a number")
    check(dll.gm_transform(byref(s.mat), byref(out.mat), byref(x), stream_of(stream, fn)))
    return result


def _relayout(name, src, dst, layout, stream):
    fn = f"gpumat.{name}"
    s = _src(src, fn, stream=stream)
    out, result = _dst(dst, s, fn, s.width, s.height, s.dtype, s.channels, layout, s.batch, stream)
    check(getattr(dll, f"gm_{name}")(byref(s.mat), byref(out.mat), stream_of(stream, fn)))
    return result


def split(src, dst=None, stream=None):
    """An interleaved image into a planar one (gm_split; cv::split)."""
    return _relayout("split", src, dst, C.GM_CHW, stream)


def merge(src, dst=None, stream=None):
    """A planar image into an interleaved one (gm_merge; cv::merge)."""
    return _relayout("merge", src, dst, C.GM_HWC, stream)


def split_planes(src, planes=None, stream=None):
    """An interleaved image into one 1-channel image a channel (gm_split_planes)."""
    fn = "gpumat.split_planes"
    s = _src(src, fn, stream=stream)
    if planes is None:
        planes = [alloc(s.width, s.height, s.dtype, 1, C.GM_HWC, s.batch, s.where) for _ in range(s.channels)]
    mats, _ = _mats(planes, fn, "planes", stream=stream, writable=True)
    if len(planes) != s.channels:
        fail(C.GM_ERR_ARG, f"{fn}: {len(planes)} planes for {s.channels} channels")
    check(dll.gm_split_planes(byref(s.mat), mats, stream_of(stream, fn)))
    return planes


def merge_planes(planes, dst=None, stream=None):
    """1-channel images into one interleaved image (gm_merge_planes)."""
    fn = "gpumat.merge_planes"
    mats, images = _mats(planes, fn, "planes", stream=stream)
    first = images[0]
    out, result = _dst(dst, first, fn, first.width, first.height, first.dtype, len(images), C.GM_HWC, first.batch,
                       stream)
    check(dll.gm_merge_planes(mats, len(images), byref(out.mat), stream_of(stream, fn)))
    return result


def _blob_dst(dst, first, count, fn, dtype, stream):
    return _dst(dst, first, fn, first.width, first.height, dtype, first.channels, C.GM_CHW, count, stream)


def blob_from_image(src, dst=None, scalefactor=1.0, mean=None, std=None, swap_rb=False, dtype=C.GM_F32,
                    stream=None):
    """cv::dnn::blobFromImage's arithmetic, (x - mean) * scalefactor / std,
    into a planar (C, H, W) image (gm_blob_from_image)."""
    fn = "gpumat.blob_from_image"
    s = _src(src, fn, stream=stream)
    out, result = _blob_dst(dst, s, 1, fn, dtype, stream)
    check(dll.gm_blob_from_image(byref(s.mat), byref(out.mat), scalefactor, _four(mean, fn, "mean"),
                                 _four(std, fn, "std", 1.0), int(swap_rb), stream_of(stream, fn)))
    return result


def blob_from_images(images, dst=None, scalefactor=1.0, mean=None, std=None, swap_rb=False, dtype=C.GM_F32,
                     stream=None):
    """blob_from_image of a list of same-size images into an (N, C, H, W) batch."""
    fn = "gpumat.blob_from_images"
    mats, imgs = _mats(images, fn, "images", stream=stream)
    out, result = _blob_dst(dst, imgs[0], len(imgs), fn, dtype, stream)
    check(dll.gm_blob_from_images(mats, len(imgs), byref(out.mat), scalefactor,
                                  _four(mean, fn, "mean"), _four(std, fn, "std", 1.0), int(swap_rb),
                                  stream_of(stream, fn)))
    return result


def _blob_params(fn, scale, mean, swap_rb, divide, arith):
    p = C.gm_blob_params(swap_rb=int(swap_rb), divide=int(divide), arith=arith)
    for field, values in (("scale", scale), ("mean", mean)):
        if values is not None:
            getattr(p, field)[:] = list(_four(values, fn, field))
    return p


def blob_from_image_with_params(src, dst=None, scale=None, mean=None, swap_rb=False, divide=False,
                                arith=C.GM_BLOB_FLOAT, dtype=C.GM_F32, stream=None):
    """cv::dnn::blobFromImageWithParams (gm_blob_params: a scale per channel,
    divide by std as torchvision, the product's arithmetic by release)."""
    fn = "gpumat.blob_from_image_with_params"
    s = _src(src, fn, stream=stream)
    out, result = _blob_dst(dst, s, 1, fn, dtype, stream)
    p = _blob_params(fn, scale, mean, swap_rb, divide, arith)
    check(dll.gm_blob_from_image_with_params(byref(s.mat), byref(out.mat), byref(p), stream_of(stream, fn)))
    return result


def blob_from_images_with_params(images, dst=None, scale=None, mean=None, swap_rb=False, divide=False,
                                 arith=C.GM_BLOB_FLOAT, dtype=C.GM_F32, stream=None):
    fn = "gpumat.blob_from_images_with_params"
    mats, imgs = _mats(images, fn, "images", stream=stream)
    out, result = _blob_dst(dst, imgs[0], len(imgs), fn, dtype, stream)
    p = _blob_params(fn, scale, mean, swap_rb, divide, arith)
    check(dll.gm_blob_from_images_with_params(mats, len(imgs), byref(out.mat), byref(p),
                                              stream_of(stream, fn)))
    return result


def _size(size, fn):
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        fail(C.GM_ERR_ARG, f"{fn}: size must be (width, height), not {size!r}")
    return width, height


def resize(src, dst=None, size=None, fx=None, fy=None, interp=C.GM_INTER_LINEAR, stream=None):
    """cv::resize: to dst's size, or size = (width, height), or by the factors
    fx, fy (gm_resize_scale; the size rounded as OpenCV rounds it)."""
    fn = "gpumat.resize"
    s = _src(src, fn, stream=stream)
    if fx is not None or fy is not None:
        if fx is None or fy is None:
            fail(C.GM_ERR_ARG, f"{fn}: fx and fy go together")
        width, height = (round(s.width * fx), round(s.height * fy)) if size is None else _size(size, fn)
    elif dst is None:
        if size is None:
            fail(C.GM_ERR_ARG, f"{fn}: give dst, size or fx and fy")
        width, height = _size(size, fn)
    else:
        width = height = 0
    out, result = _dst(dst, s, fn, width, height, s.dtype, s.channels, s.layout, s.batch, stream)
    if fx is not None:
        check(dll.gm_resize_scale(byref(s.mat), byref(out.mat), fx, fy, interp, stream_of(stream, fn)))
    else:
        check(dll.gm_resize(byref(s.mat), byref(out.mat), interp, stream_of(stream, fn)))
    return result


def fill(dst, value, stream=None):
    """Every pixel of dst set to value (one number a channel; gm_fill)."""
    fn = "gpumat.fill"
    d = image(dst, writable=True, stream=stream, fn=fn, name="dst")
    check(dll.gm_fill(byref(d.mat), _four(value, fn, "value"), stream_of(stream, fn)))
    return dst


def add_weighted(src1, alpha, src2, beta, gamma=0.0, dst=None, stream=None):
    """saturate(src1 * alpha + src2 * beta + gamma) (cv::addWeighted)."""
    fn = "gpumat.add_weighted"
    a, b = _src(src1, fn, "src1", stream=stream), _src(src2, fn, "src2", stream=stream)
    out, result = _dst(dst, a, fn, a.width, a.height, a.dtype, a.channels, a.layout, a.batch, stream)
    check(dll.gm_add_weighted(byref(a.mat), alpha, byref(b.mat), beta, gamma, byref(out.mat), stream_of(stream, fn)))
    return result


def _warp(name, count, src, M, dsize, dst, interp, border, value, inverse, per_item, mode, stream):
    fn = f"gpumat.{name}"
    s = _src(src, fn, stream=stream)
    if dst is None and dsize is None:
        fail(C.GM_ERR_ARG, f"{fn}: give dst or dsize = (width, height)")
    width, height = _size(dsize, fn) if dst is None else (0, 0)
    out, result = _dst(dst, s, fn, width, height, s.dtype, s.channels, s.layout, s.batch, stream)
    matrices = doubles(M, count * (out.batch if per_item else 1), fn, "M")
    params = C.gm_warp_params(interp=interp, border=border, inverse=int(inverse), per_item=int(per_item), mode=mode)
    if value is not None:
        params.value[:] = list(_four(value, fn, "value"))
    check(getattr(dll, f"gm_{name}")(byref(s.mat), byref(out.mat), matrices, byref(params), stream_of(stream, fn)))
    return result


def warp_affine(src, M, dsize=None, dst=None, interp=C.GM_INTER_LINEAR, border=C.GM_BORDER_CONSTANT, value=None,
                inverse=False, per_item=False, mode=C.GM_WARP_OPENCV4, stream=None):
    """cv::warpAffine by the 2x3 M (per_item: one matrix an item of dst's
    batch), into dst or a new image of dsize = (width, height)."""
    return _warp("warp_affine", 6, src, M, dsize, dst, interp, border, value, inverse, per_item, mode, stream)


def warp_perspective(src, M, dsize=None, dst=None, interp=C.GM_INTER_LINEAR, border=C.GM_BORDER_CONSTANT,
                     value=None, inverse=False, per_item=False, mode=C.GM_WARP_OPENCV4, stream=None):
    """cv::warpPerspective by the 3x3 M; as warp_affine."""
    return _warp("warp_perspective", 9, src, M, dsize, dst, interp, border, value, inverse, per_item, mode, stream)


def _matrix(name, n, *args):
    out = (ctypes.c_double * n)()
    check(getattr(dll, f"gm_{name}")(*args, out))
    return list(out)


def rotation_matrix(center, angle, scale=1.0):
    """cv::getRotationMatrix2D: 6 numbers, row by row."""
    return _matrix("rotation_matrix", 6, float(center[0]), float(center[1]), angle, scale)


def affine_from_points(src, dst):
    """cv::getAffineTransform of three (x, y) points onto three."""
    fn = "gpumat.affine_from_points"
    return _matrix("affine_from_points", 6, doubles(src, 6, fn, "src", ctypes.c_float),
                   doubles(dst, 6, fn, "dst", ctypes.c_float))


def perspective_from_points(src, dst):
    """cv::getPerspectiveTransform of four (x, y) points onto four: 9 numbers."""
    fn = "gpumat.perspective_from_points"
    return _matrix("perspective_from_points", 9, doubles(src, 8, fn, "src", ctypes.c_float),
                   doubles(dst, 8, fn, "dst", ctypes.c_float))


def invert_affine(M):
    """cv::invertAffineTransform."""
    return _matrix("invert_affine", 6, doubles(M, 6, "gpumat.invert_affine", "M"))


def similarity_from_points(src, dst=C.GM_ARCFACE_112):
    """The least-squares similarity mapping the points src onto dst
    (Umeyama; skimage's SimilarityTransform.estimate); dst defaults to
    ArcFace's five 112x112 landmarks."""
    fn = "gpumat.similarity_from_points"
    s, d = doubles(src, None, fn, "src"), doubles(dst, None, fn, "dst")
    if len(s) != len(d) or len(s) % 2:
        fail(C.GM_ERR_ARG, f"{fn}: src and dst must hold the same number of (x, y) points")
    return _matrix("similarity_from_points", 6, s, d, len(s) // 2)


__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "ctypes", "byref", "C", "LAYOUTS", "Image", "alloc", "dtype_of", "image", "stream_of", "check", "dll", "fail",
    "doubles")]
