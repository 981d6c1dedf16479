# SPDX-License-Identifier: MIT
"""The fused pre-process, 4:2:0 frames and sprite overlays: gm_prep from
keyword arguments, gm_yuv frames from arrays or a decoder's pointer."""
import ctypes
from ctypes import byref

from . import _capi as C
from ._image import Image, alloc, image
from ._lib import Error, check, dll, fail
from ._ops import _dst, _flat, _four, _mats, doubles, stream_of


def prep(fn="gpumat.preprocess", **options):
    """A gm_prep from keyword arguments named as its fields (gpumat/prep.h
    documents each: fit, rule, interp, top_left, no_upscale, stride, pad,
    swap_rb, channel_map, mean, scale, divide, arith, warp, perspective,
    inverse, border), and the arrays it points to, which must live as long
    as the call. Options of numbers and tuples are made once and kept (a
    camera loop passes the same ones every frame); C reads a gm_prep, never
    writes it."""
    try:
        key = (fn, tuple(sorted(options.items())))
        made = _made.get(key)
    except TypeError:  # a list or an array among them
        key = made = None
    if made is None:
        made = _make_prep(fn, options)
        if key is not None:
            if len(_made) >= 256:
                _made.clear()
            _made[key] = made
    return made


_made = {}
_FIELDS = {f for f, _ in C.gm_prep._fields_}


def _make_prep(fn, options):
    unknown = set(options) - _FIELDS
    if unknown:
        raise TypeError(f"{fn}: no option {', '.join(sorted(unknown))} (gm_prep has {', '.join(sorted(_FIELDS))})")
    p, keep = C.gm_prep(), []
    for field, value in options.items():
        if value is None:
            continue
        if field in ("pad", "mean", "scale"):
            setattr(p, field, _four(value, fn, field))
        elif field == "channel_map":
            keep.append(doubles(value, None, fn, "channel_map", ctypes.c_int))
            p.channel_map = ctypes.cast(keep[-1], ctypes.POINTER(ctypes.c_int))
        elif field == "warp":
            keep.append(doubles(value, None, fn, "warp"))
            p.warp = ctypes.cast(keep[-1], ctypes.POINTER(ctypes.c_double))
        else:
            setattr(p, field, int(value))
    return p, keep


def _arrays_fit(fn, options, channels, items):
    """channel_map and warp hold what C will read of them: an entry a
    destination channel, 6 (9) numbers an item."""
    if options.get("channel_map") is not None and len(_flat(options["channel_map"])) < channels:
        fail(C.GM_ERR_ARG, f"{fn}: channel_map has fewer entries than dst's {channels} channels")
    if options.get("warp") is not None:
        need = (9 if options.get("perspective") else 6) * items
        if len(_flat(options["warp"])) != need:
            fail(C.GM_ERR_ARG, f"{fn}: warp has {len(_flat(options['warp']))} numbers, not {need} "
                               f"({items} item(s) of {need // items})")


def rect(r, fn, name="crop"):
    """A gm_rect from (x, y, width, height); None stays None."""
    if r is None or isinstance(r, C.gm_rect):
        return r
    values = _flat(r)
    if len(values) != 4:
        fail(C.GM_ERR_ARG, f"{fn}: {name} must be (x, y, width, height), not {r!r}")
    return C.gm_rect(*(int(v) for v in values))


def _rects(crops, count, fn):
    if crops is None:
        return None
    if len(crops) != count:
        fail(C.GM_ERR_ARG, f"{fn}: {len(crops)} crops for {count} items")
    return (C.gm_rect * max(count, 1))(*[rect(c, fn, f"crops[{i}]") for i, c in enumerate(crops)])


def _prep_dst(dst, like, fn, size, count, dtype, channels, layout, stream):
    if dst is None and size is None:
        fail(C.GM_ERR_ARG, f"{fn}: give dst or size = (width, height)")
    width, height = (int(size[0]), int(size[1])) if dst is None else (0, 0)
    return _dst(dst, like, fn, width, height, dtype, channels, layout, count, stream)


def _placed(fn, run, like, dst, crops, count, size, dtype, channels, layout, stream, options):
    """The pre-process's common steps: gm_prep from the options, dst (or a
    new image like `like`'s memory), the arrays' lengths checked, then
    run(crops, dst, prep, geometries, stream), the C call of the source at
    hand. Returns (dst, the count geometries)."""
    p, keep = prep(fn, **options)
    out, result = _prep_dst(dst, like, fn, size, count, dtype, channels, layout, stream)
    _arrays_fit(fn, options, out.channels, count)
    g = (C.gm_prep_geometry * count)()
    check(run(crops, byref(out.mat), byref(p), g, stream_of(stream, fn)))
    return result, list(g)


def preprocess(src, dst=None, crop=None, size=None, dtype=C.GM_F32, layout=C.GM_CHW, channels=None, stream=None,
               **options):
    """gm_preprocess: the crop (x, y, width, height; None: the whole image)
    of src placed into dst (or a new (C, H, W) image of size = (width,
    height)) as the options say (prep()'s keywords: fit, rule, interp, pad,
    swap_rb, mean, scale, warp, ...). Returns (dst, geometry)."""
    fn = "gpumat.preprocess"
    s = image(src, stream=stream, fn=fn, name="src")
    c = rect(crop, fn)
    out, g = _placed(fn, lambda crops, *rest: dll.gm_preprocess(byref(s.mat), crops, *rest), s, dst,
                     byref(c) if c else None, 1, size, dtype, channels or s.channels, layout, stream, options)
    return out, g[0]


def preprocess_batch(srcs, dst=None, crops=None, size=None, dtype=C.GM_F32, layout=C.GM_CHW, channels=None,
                     stream=None, **options):
    """gm_preprocess_batch: item i of dst from srcs[i] and crops[i]; srcs may
    be one image for every crop (a frame's detections). Returns (dst,
    [geometry of each item])."""
    fn = "gpumat.preprocess_batch"
    if not isinstance(srcs, (list, tuple)):
        srcs = [srcs] * (len(crops) if crops is not None else 1)
    mats, images = _mats(srcs, fn, "srcs", stream=stream)
    count = len(images)
    return _placed(fn, lambda crops, *rest: dll.gm_preprocess_batch(mats, crops, count, *rest), images[0], dst,
                   _rects(crops, count, fn), count, size, dtype, channels or images[0].channels, layout, stream,
                   options)


def geometry_of(crop, size, **options):
    """The placement gm_preprocess would make of crop into size = (width,
    height), without running it (gm_prep_geometry_of)."""
    fn = "gpumat.geometry_of"
    p, keep = prep(fn, **options)
    g = C.gm_prep_geometry()
    c = rect(crop, fn)
    if c is None:
        fail(C.GM_ERR_ARG, f"{fn}: crop (x, y, width, height) is needed: the placement depends on its size")
    check(dll.gm_prep_geometry_of(byref(c), int(size[0]), int(size[1]), byref(p), byref(g)))
    return g


def box_to_source(geometry, box, map=None):
    """A box (x0, y0, x1, y1) of the network's output mapped back to the
    source (gm_prep_box_to_source; map: a gm_box_map, gm_prep_box_map)."""
    fn = "gpumat.box_to_source"
    out = (ctypes.c_double * 4)()
    b = doubles(box, 4, fn, "box")
    if map is None:
        dll.gm_prep_box_to_source(byref(geometry), b, out)
    else:
        check(dll.gm_prep_box_map(byref(geometry), map, b, out))
    return list(out)


def rect_to_source_cv(geometry, r):
    """An integer rectangle mapped back as OpenCV dnn maps it."""
    out = dll.gm_prep_rect_to_source_cv(byref(geometry), rect(r, "gpumat.rect_to_source_cv", "r"))
    return (out.x, out.y, out.width, out.height)


class Frame:
    """A 4:2:0 frame (gm_yuv) and the arrays behind its planes; read_only
    where its array is (yuv_from_image and Overlay.draw_yuv refuse it)."""

    def __init__(self, yuv, keep, read_only=False):
        self.yuv, self._keep, self.read_only = yuv, keep, read_only

    width = property(lambda self: self.yuv.y.width)
    height = property(lambda self: self.yuv.y.height)

    def roi(self, x, y, width, height):
        view = C.gm_yuv()
        check(dll.gm_yuv_roi(byref(self.yuv), byref(view), x, y, width, height))
        return Frame(view, self, self.read_only)


def frame(data, width, height, format=C.GM_YUV_NV12, pitch=0, coded_height=0, matrix=C.GM_YUV_BT601,
          range=C.GM_YUV_LIMITED, where=None):
    """A frame in one buffer as a decoder lays it out (gm_yuv_wrap): data is
    an array (a (height * 3 / 2, width) numpy or torch array, as OpenCV's
    single Mat) or an address (then where says which memory)."""
    fn = "gpumat.frame"
    keep, read_only = data, False
    if isinstance(data, int):
        pointer, kind = data, C.GM_DEVICE if where is None else where
    else:
        try:
            img = image(data, writable=True, fn=fn, name="data")
        except Error as e:
            if e.status != C.GM_ERR_ARG or "read-only" not in e.message:
                raise
            img, read_only = image(data, fn=fn, name="data"), True
        if img.channels != 1 or img.batch != 1:
            fail(C.GM_ERR_ARG, f"{fn}: data must be one 2-D array of the frame's rows, not {img!r}")
        pitch = pitch or img.pitch
        rows = (coded_height or height) * 3 // 2
        sample = 2 if format == C.GM_YUV_P016 else 1
        if pitch != img.pitch or width * sample > img.width * dll.gm_dtype_size(img.dtype) or rows > img.height:
            fail(C.GM_ERR_SIZE, f"{fn}: a {width}x{height} frame of {rows} rows of pitch {pitch} does not fit "
                                f"data ({img.height} rows of {img.width * dll.gm_dtype_size(img.dtype)} bytes, "
                                f"{img.pitch} apart)")
        pointer, kind, keep = img.data, img.where, img
    f = C.gm_yuv()
    check(dll.gm_yuv_wrap(byref(f), format, pointer, width, height, pitch, coded_height, kind))
    f.matrix, f.range = matrix, range
    return Frame(f, keep, read_only)


def _frame(obj, fn, name="frame", writable=False):
    if not isinstance(obj, Frame):
        fail(C.GM_ERR_ARG, f"{fn}: {name} is a {type(obj).__name__}, not a gpumat.Frame (gpumat.frame makes one)")
    if writable and obj.read_only:
        fail(C.GM_ERR_ARG, f"{fn}: {name} is read-only")
    return obj


def yuv_convert(frame, dst=None, rgb=False, channels=3, dtype=C.GM_U8, stream=None):
    """cv::cvtColor of a 4:2:0 frame into a gray, BGR (RGB) or BGRA image."""
    fn = "gpumat.yuv_convert"
    f = _frame(frame, fn)
    like = Image(f.yuv.y)
    out, result = _dst(dst, like, fn, f.width, f.height, dtype, channels, C.GM_HWC, f.yuv.y.batch, stream)
    check(dll.gm_yuv_convert(byref(f.yuv), byref(out.mat), int(rgb), stream_of(stream, fn)))
    return result


def yuv_from_image(src, frame, rgb=False, stream=None):
    """A BGR (RGB) or BGRA image into a 4:2:0 frame (cv::cvtColor's
    COLOR_BGR2YUV_I420 family); returns frame."""
    fn = "gpumat.yuv_from_image"
    s = image(src, stream=stream, fn=fn, name="src")
    check(dll.gm_yuv_from_image(byref(s.mat), byref(_frame(frame, fn, writable=True).yuv), int(rgb),
                                stream_of(stream, fn)))
    return frame


def preprocess_yuv(frame, dst=None, crop=None, size=None, dtype=C.GM_F32, layout=C.GM_CHW, channels=3,
                   stream=None, **options):
    """gm_preprocess_yuv: preprocess() of a frame read as its BGR image."""
    fn = "gpumat.preprocess_yuv"
    f = _frame(frame, fn)
    c = rect(crop, fn)
    out, g = _placed(fn, lambda crops, *rest: dll.gm_preprocess_yuv(byref(f.yuv), crops, *rest), Image(f.yuv.y),
                     dst, byref(c) if c else None, 1, size, dtype, channels, layout, stream, options)
    return out, g[0]


def preprocess_yuv_batch(frames, dst=None, crops=None, size=None, dtype=C.GM_F32, layout=C.GM_CHW, channels=3,
                         stream=None, **options):
    """gm_preprocess_yuv_batch: item i from frames[i] (or one frame for
    every crop) and crops[i]. Returns (dst, geometries)."""
    fn = "gpumat.preprocess_yuv_batch"
    if not isinstance(frames, (list, tuple)):
        frames = [frames] * (len(crops) if crops is not None else 1)
    fs = [_frame(f, fn, f"frames[{i}]") for i, f in enumerate(frames)]
    count = len(fs)
    if not count:
        fail(C.GM_ERR_ARG, f"{fn}: frames is empty")
    yuvs = (C.gm_yuv * count)(*[f.yuv for f in fs])
    return _placed(fn, lambda crops, *rest: dll.gm_preprocess_yuv_batch(yuvs, crops, count, *rest),
                   Image(fs[0].yuv.y), dst, _rects(crops, count, fn), count, size, dtype, channels, layout, stream,
                   options)


class Overlay:
    """Sprites drawn over frames (gm_overlay): one per thread. draw() takes
    sprites as (image, x, y) with the image an RGBA u8 array, or (image, x,
    y, kind, color) for premultiplied images and masks."""

    def __init__(self):
        self._handle = ctypes.c_void_p()
        check(dll.gm_overlay_create(byref(self._handle)))

    def __del__(self):
        if self._handle and dll is not None:
            dll.gm_overlay_destroy(self._handle)

    def _sprites(self, sprites, fn):
        out, keep = (C.gm_sprite * max(len(sprites), 1))(), []
        for i, sprite in enumerate(sprites):
            given = tuple(sprite)
            if not 3 <= len(given) <= 5:
                fail(C.GM_ERR_ARG, f"{fn}: sprites[{i}] is not (image, x, y[, kind[, color]])")
            img, x, y, kind, color = given + (C.GM_SPRITE_RGBA, (0, 0, 0, 255))[len(given) - 3:]
            keep.append(image(img, fn=fn, name=f"sprites[{i}]"))
            out[i].image, out[i].x, out[i].y, out[i].kind = keep[-1].mat, x, y, kind
            try:
                out[i].color[:] = [int(v) for v in color]
            except (TypeError, ValueError):
                fail(C.GM_ERR_ARG, f"{fn}: sprites[{i}]'s color is not four numbers (R, G, B, A)")
        return out, keep

    def draw(self, frame, sprites, rgb=False, alpha_over=False, stream=None):
        fn = "gpumat.Overlay.draw"
        f = image(frame, writable=True, stream=stream, fn=fn, name="frame")
        table, keep = self._sprites(sprites, fn)
        params = C.gm_overlay_params(rgb=int(rgb), alpha_over=int(alpha_over))
        check(dll.gm_overlay_draw(self._handle, byref(f.mat), table, len(sprites), byref(params),
                                  stream_of(stream, fn)))
        return frame

    def draw_yuv(self, frame, sprites, stream=None):
        fn = "gpumat.Overlay.draw_yuv"
        table, keep = self._sprites(sprites, fn)
        check(dll.gm_overlay_draw_yuv(self._handle, byref(_frame(frame, fn, writable=True).yuv), table, len(sprites),
                                      stream_of(stream, fn)))
        return frame


def alloc_frame(width, height, format=C.GM_YUV_NV12, where=C.GM_AUTO, matrix=C.GM_YUV_BT601,
                range=C.GM_YUV_LIMITED):
    """A new frame in one compact buffer (for yuv_from_image)."""
    sample = 2 if format == C.GM_YUV_P016 else 1
    buffer = alloc(width, height * 3 // 2, C.GM_U16 if sample == 2 else C.GM_U8, 1, C.GM_HWC, 1, where)
    f = frame(buffer, width, height, format, pitch=buffer.pitch, matrix=matrix, range=range)
    return f
