# SPDX-License-Identifier: MIT
"""oracle_pip: the CPU path against the cv2 module of an opencv-python-headless
wheel, bit for bit: gm_blob_from_image(s)_with_params and gm_preprocess
(stretch, letterbox, crop-centre; NCHW and NHWC; f32) against
cv2.dnn.blobFromImage(s)WithParams, each with the gm_blob_arith that
gpumat/prep.h's table names for that release and layout, and
gm_blob_from_image against cv2.dnn.blobFromImage where the release's NCHW
is GM_BLOB_FLOAT. Random images of odd sizes, several means and scales.
And gm_warp_affine / gm_warp_perspective against cv2.warpAffine /
warpPerspective where gpumat/warp.h says the release computes what they do:
GM_WARP_OPENCV4 for 4.x but LINEAR with a transparent border from 4.9 on;
in OpenCV 5 GM_WARP_OPENCV5 for NEAREST and LINEAR (its float warp of u8,
u16 and f32 with 1, 3 or 4 channels, and what still takes the 4.x path:
2 channels, s16, f64), where the CPU has AVX2.
Drives BUILD/libgpumat.so through ctypes; needs numpy and cv2 importable
(tests/run.sh puts each wheel that tests/opencv_wheels.sh installed on
PYTHONPATH). Alone: PYTHONPATH=DIR python3 tests/oracle_pip.py BUILD/libgpumat.so"""
import ctypes as C
import importlib.metadata
import sys

import cv2
import numpy as np

HWC, CHW = 0, 1
U8, F32 = 0, 5
FLOAT, DOUBLE = 0, 1  # gm_blob_arith
STRETCH, LETTERBOX, CROP_CENTER = 0, 1, 2  # gm_fit
OPENCV_DNN = 1  # gm_letterbox_rule


class Mat(C.Structure):  # gm_mat
    _fields_ = [("data", C.c_void_p), ("width", C.c_int64), ("height", C.c_int64), ("channels", C.c_int32),
                ("batch", C.c_int32), ("dtype", C.c_int), ("layout", C.c_int), ("pitch", C.c_int64),
                ("plane_pitch", C.c_int64), ("batch_pitch", C.c_int64), ("where", C.c_int),
                ("device", C.c_int32), ("owned", C.c_void_p)]


class Desc(C.Structure):  # gm_desc
    _fields_ = [("width", C.c_int64), ("height", C.c_int64), ("channels", C.c_int32), ("batch", C.c_int32),
                ("dtype", C.c_int), ("layout", C.c_int), ("pitch", C.c_int64), ("plane_pitch", C.c_int64),
                ("batch_pitch", C.c_int64)]


class Prep(C.Structure):  # gm_prep; check_layouts() proves the fields' places
    _fields_ = [("fit", C.c_int), ("rule", C.c_int), ("interp", C.c_int), ("top_left", C.c_int),
                ("no_upscale", C.c_int), ("stride", C.c_int), ("pad", C.c_double * 4), ("swap_rb", C.c_int),
                ("channel_map", C.c_void_p), ("mean", C.c_double * 4), ("scale", C.c_double * 4),
                ("divide", C.c_int), ("arith", C.c_int), ("warp", C.c_void_p), ("perspective", C.c_int),
                ("inverse", C.c_int), ("border", C.c_int)]


class WarpParams(C.Structure):  # gm_warp_params
    _fields_ = [("interp", C.c_int), ("border", C.c_int), ("value", C.c_double * 4), ("inverse", C.c_int),
                ("per_item", C.c_int), ("mode", C.c_int)]


# numpy's dtypes as gm_dtype; gm_interp's LINEAR, NEAREST and CUBIC and cv2's numbers for them
WARP_DTYPES = {np.uint8: 0, np.uint16: 2, np.int16: 3, np.float32: 5, np.float64: 6}
WARP_INTERPS = ((0, 1), (1, 0), (4, 2))  # (gm_interp, cv2 INTER_*)
TRANSPARENT = 5
OPENCV4, OPENCV5 = 0, 1  # gm_warp_mode


class BlobParams(C.Structure):  # gm_blob_params
    _fields_ = [("scale", C.c_double * 4), ("mean", C.c_double * 4), ("swap_rb", C.c_int), ("divide", C.c_int),
                ("arith", C.c_int)]


def release_arith(version, layout):
    """What gpumat/prep.h says a release computes (the table this file pins)."""
    if version < (4, 8):
        return FLOAT
    if version <= (4, 10):
        return DOUBLE
    return FLOAT if layout == CHW else DOUBLE


def swappable(c, layout):
    """Whether OpenCV takes swapRB for c channels in layout: its NHWC path
    swaps with cvtColor(COLOR_BGR2RGB), which drops a fourth channel, and
    then refuses its own copy (4.10, 5.0)."""
    return c == 3 or (c == 4 and layout == CHW)


class Oracle:
    def __init__(self, lib_path):
        d = self.dll = C.CDLL(lib_path)
        d.gm_last_error.restype = C.c_char_p
        d.gm_wrap.argtypes = [C.POINTER(Mat), C.c_void_p, C.c_int64, C.c_int64, C.c_int, C.c_int, C.c_int, C.c_int64,
                              C.c_int]
        d.gm_wrap_desc.argtypes = [C.POINTER(Mat), C.c_void_p, C.POINTER(Desc), C.c_int]
        d.gm_blob_from_image.argtypes = [C.POINTER(Mat), C.POINTER(Mat), C.c_double, C.c_void_p, C.c_void_p,
                                         C.c_int, C.c_void_p]
        d.gm_blob_from_image_with_params.argtypes = [C.POINTER(Mat), C.POINTER(Mat), C.POINTER(BlobParams),
                                                     C.c_void_p]
        d.gm_blob_from_images_with_params.argtypes = [C.POINTER(Mat), C.c_int, C.POINTER(Mat),
                                                      C.POINTER(BlobParams), C.c_void_p]
        d.gm_preprocess.argtypes = [C.POINTER(Mat), C.c_void_p, C.POINTER(Mat), C.POINTER(Prep), C.c_void_p,
                                    C.c_void_p]
        for f in (d.gm_warp_affine, d.gm_warp_perspective):
            f.argtypes = [C.POINTER(Mat), C.POINTER(Mat), C.c_void_p, C.POINTER(WarpParams), C.c_void_p]
        self.passed = self.failed = self.skipped = 0
        self.version = tuple(int(v) for v in cv2.__version__.split(".")[:2])
        self.layouts = (CHW, HWC) if hasattr(cv2.dnn, "blobFromImageWithParams") else (CHW,)
        self.other_differs = {}  # (what, layout) -> elements the other arithmetic gets wrong

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL %s" % what)

    def error(self):
        return self.dll.gm_last_error().decode()

    def image(self, a, layout):
        """A gm_mat over numpy array a: (H, W, C) interleaved, or (C, H, W) /
        (N, C, H, W) planar, (N, H, W, C) a batch; host memory, compact."""
        m = Mat()
        dtype = U8 if a.dtype == np.uint8 else F32
        if layout == CHW:
            n, c, h, w = a.shape if a.ndim == 4 else (1,) + a.shape
        else:
            n, h, w, c = a.shape if a.ndim == 4 else (1,) + a.shape
        d = Desc(w, h, c, n, dtype, layout if c > 1 else HWC, 0, 0, 0)
        if self.dll.gm_wrap_desc(C.byref(m), a.ctypes.data, C.byref(d), 0) != 0:
            raise RuntimeError("gm_wrap_desc: " + self.error())
        return m

    # ------------------------------------------------------------ layouts

    def check_layouts(self):
        """The ctypes mirrors above against the library's own checks: each
        field set to a value the library refuses, and the refusal must name
        that field (a field out of place names another, or none)."""
        src = np.zeros((4, 4, 3), np.uint8)
        dst = np.zeros((3, 4, 4), np.float32)
        sm, dm = self.image(src, HWC), self.image(dst, CHW)
        cases = [("fit", lambda p: setattr(p, "fit", 7), "prep->fit 7"),
                 ("interp", lambda p: setattr(p, "interp", 9), "prep->interp 9"),
                 ("stride", lambda p: setattr(p, "stride", -1), "prep->stride"),
                 ("pad[2]", lambda p: p.pad.__setitem__(2, float("nan")), "prep->pad[2]"),
                 ("mean[1]", lambda p: p.mean.__setitem__(1, float("inf")), "prep->mean[1]"),
                 ("scale[2]", lambda p: p.scale.__setitem__(2, float("nan")), "prep->scale[2]"),
                 ("arith", lambda p: setattr(p, "arith", 7), "prep->arith 7"),
                 ("divide", lambda p: (setattr(p, "divide", 1), setattr(p, "arith", DOUBLE)), "prep->divide"),
                 ("warp", lambda p: setattr(p, "fit", 3), "prep->warp is NULL"),
                 ("perspective", lambda p: setattr(p, "perspective", 1), "prep->perspective is an option"),
                 ("inverse", lambda p: setattr(p, "inverse", 1), "prep->inverse is an option"),
                 ("border", lambda p: setattr(p, "border", 2), "prep->border is an option")]
        for field, set_bad, named in cases:
            p = Prep()
            set_bad(p)
            s = self.dll.gm_preprocess(C.byref(sm), None, C.byref(dm), C.byref(p), None, None)
            self.check(s != 0 and named in self.error(), "gm_prep.%s out of place: %s" % (field, self.error()))
        cases = [("arith", lambda p: setattr(p, "arith", 7), "params->arith 7"),
                 ("mean[2]", lambda p: p.mean.__setitem__(2, float("nan")), "params->mean[2]"),
                 ("scale[1]", lambda p: p.scale.__setitem__(1, float("inf")), "params->scale[1]"),
                 ("divide", lambda p: (setattr(p, "divide", 1), setattr(p, "arith", DOUBLE)), "params->divide")]
        for field, set_bad, named in cases:
            p = BlobParams()
            set_bad(p)
            s = self.dll.gm_blob_from_image_with_params(C.byref(sm), C.byref(dm), C.byref(p), None)
            self.check(s != 0 and named in self.error(), "gm_blob_params.%s out of place: %s" % (field, self.error()))
        one = self.image(np.zeros((4, 4, 1), np.uint8), HWC)
        p = BlobParams()
        p.swap_rb = 1
        s = self.dll.gm_blob_from_image_with_params(C.byref(one), C.byref(self.image(dst[:1].copy(), CHW)),
                                                    C.byref(p), None)
        self.check(s != 0 and "swap_rb" in self.error(), "gm_blob_params.swap_rb out of place: %s" % self.error())

    # ----------------------------------------------------------- helpers

    def compare(self, what, got, want, layout, arith, other=None):
        """got == want bit for bit; other (the other arithmetic's result) is
        counted where it differs from want, to show that the case tells
        the two apart somewhere."""
        bad = np.count_nonzero(got.view(np.uint32) != want.view(np.uint32))
        self.check(bad == 0, "%s (%s, %s): %d of %d elements differ, first got %r want %r" % (
            what, "NCHW" if layout == CHW else "NHWC", "double" if arith else "float", bad, got.size,
            got.ravel()[np.argmax(got.view(np.uint32).ravel() != want.view(np.uint32).ravel())] if bad else 0,
            want.ravel()[np.argmax(got.view(np.uint32).ravel() != want.view(np.uint32).ravel())] if bad else 0))
        if other is not None:
            key = (what.split(" ")[0], layout)
            self.other_differs[key] = self.other_differs.get(key, 0) + int(
                np.count_nonzero(other.view(np.uint32) != want.view(np.uint32)))

    def cv_params(self, size, mean, scale, swap, layout, mode=None, pad=None):
        p = cv2.dnn.Image2BlobParams()
        p.scalefactor = tuple(scale) + (1.0,) * (4 - len(scale))
        p.size = size
        p.mean = tuple(mean) + (0.0,) * (4 - len(mean))
        p.swapRB = swap
        p.ddepth = cv2.CV_32F
        names = {CHW: "DNN_LAYOUT_NCHW", HWC: "DNN_LAYOUT_NHWC"}
        p.datalayout = getattr(cv2.dnn, names[layout], None) or getattr(cv2, names[layout])
        p.paddingmode = mode if mode is not None else cv2.dnn.DNN_PMODE_NULL
        if pad is not None and hasattr(p, "borderValue"):
            p.borderValue = tuple(pad) + (0.0,) * (4 - len(pad))
        return p

    def gm_blob(self, images, mean, scale, swap, layout, arith, many):
        """gpumat's blob of the list images, (N, C, H, W) or (N, H, W, C) f32."""
        h, w, c = images[0].shape
        out = np.zeros((len(images), c, h, w) if layout == CHW else (len(images), h, w, c), np.float32)
        p = BlobParams()
        for k in range(c):
            p.mean[k], p.scale[k] = mean[k], scale[k]
        p.swap_rb, p.arith = int(swap), arith
        dm = self.image(out, layout)
        if many:
            srcs = (Mat * len(images))(*[self.image(a, HWC) for a in images])
            s = self.dll.gm_blob_from_images_with_params(srcs, len(images), C.byref(dm), C.byref(p), None)
        else:
            s = self.dll.gm_blob_from_image_with_params(C.byref(self.image(images[0], HWC)), C.byref(dm), C.byref(p),
                                                        None)
        if s != 0:
            raise RuntimeError("gm_blob_from_image(s)_with_params: " + self.error())
        return out

    def random_image(self, rng, w, h, c, dtype):
        if dtype == np.uint8:
            return rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        return rng.uniform(-300, 300, (h, w, c)).astype(np.float32)

    def random_arith(self, rng, c, k):
        """Mean and scale of case k: ImageNet's, YOLO's 1/255, and random."""
        if k % 4 == 0:
            mean, scale = [123.675, 116.28, 103.53, 127.5], [1 / 58.395, 1 / 57.12, 1 / 57.375, 1 / 64.0]
        elif k % 4 == 1:
            mean, scale = [0.0] * 4, [1 / 255.0] * 4
        elif k % 4 == 2:
            mean, scale = list(rng.uniform(-20, 280, 4)), [float(rng.choice([0.017, 1 / 127.5, 0.00390625]))] * 4
        else:
            mean, scale = list(rng.integers(0, 256, 4).astype(float)), list(1 / rng.uniform(20, 90, 4))
        return [float(v) for v in mean[:c]], [float(v) for v in scale[:c]]

    # ------------------------------------------------------------- blobs

    def blobs(self, rng):
        sizes = [(1, 1), (7, 5), (33, 17), (640, 3), (129, 65)]
        k = 0
        for dtype in (np.uint8, np.float32):
            for c in (1, 3, 4):
                for w, h in sizes:
                    for layout in self.layouts:
                        k += 1
                        mean, scale = self.random_arith(rng, c, k)
                        swap = swappable(c, layout) and k % 2 == 1
                        many = k % 3 == 0
                        images = [self.random_image(rng, w, h, c, dtype) for _ in range(3 if many else 1)]
                        what = "blob%s %s c%d %dx%d swapRB %d mean %s scale %s" % (
                            "s x3" if many else "", "u8" if dtype == np.uint8 else "f32", c, w, h, swap,
                            np.round(mean, 3).tolist(), np.round(scale, 5).tolist())
                        self.blob_case(what, images, mean, scale, swap, layout, many)
                        if layout == CHW and len(set(scale)) == 1:
                            self.positional_case(what, images, mean, scale[0], swap)

    def blob_case(self, what, images, mean, scale, swap, layout, many):
        arith = release_arith(self.version, layout)
        h, w, _ = images[0].shape
        if self.version == (4, 8) and many and swap and scale[0] != scale[2]:
            self.skipped += 1  # 4.8 swaps the scales again for each image of a batch (4.9 does not)
            return
        if hasattr(cv2.dnn, "blobFromImagesWithParams"):
            p = self.cv_params((w, h), mean, scale, swap, layout)
            want = (cv2.dnn.blobFromImagesWithParams([a.copy() for a in images], p) if many else
                    cv2.dnn.blobFromImageWithParams(images[0].copy(), p))
        elif len(set(scale)) == 1:
            want = cv2.dnn.blobFromImages([a.copy() for a in images], scale[0], (w, h), tuple(mean), swap, False)
        else:
            return  # before 4.8 one scale for every channel: no case
        got = self.gm_blob(images, mean, scale, swap, layout, arith, many)
        other = self.gm_blob(images, mean, scale, swap, layout, 1 - arith, many)
        self.compare(what, got, want, layout, arith, other)

    def positional_case(self, what, images, mean, scale, swap):
        """gm_blob_from_image against cv2.dnn.blobFromImage(s) (NCHW), where
        that release multiplies in float."""
        if release_arith(self.version, CHW) != FLOAT:
            return
        h, w, c = images[0].shape
        want = cv2.dnn.blobFromImages([a.copy() for a in images], scale, (w, h), tuple(mean), swap, False)
        got = np.zeros((len(images), c, h, w), np.float32)
        means = (C.c_double * 4)(*(mean + [0.0] * (4 - c)))
        for i, a in enumerate(images):
            dm = self.image(got[i], CHW)
            if self.dll.gm_blob_from_image(C.byref(self.image(a, HWC)), C.byref(dm), scale, means, None, int(swap),
                                           None) != 0:
                raise RuntimeError("gm_blob_from_image: " + self.error())
        self.compare("gm_blob_from_image " + what, got, want, CHW, FLOAT)

    # ------------------------------------------------------ pre-processes

    def preps(self, rng):
        if not hasattr(cv2.dnn, "blobFromImageWithParams"):  # before 4.8: no padding modes
            return
        modes = [(STRETCH, cv2.dnn.DNN_PMODE_NULL), (LETTERBOX, cv2.dnn.DNN_PMODE_LETTERBOX),
                 (CROP_CENTER, cv2.dnn.DNN_PMODE_CROP_CENTER)]
        k = 0
        for c in (1, 3, 4):
            for fit, mode in modes:
                for layout in self.layouts:
                    for _ in range(3):
                        k += 1
                        w, h = int(rng.integers(3, 300)), int(rng.integers(3, 200))
                        wn, hn = int(rng.integers(8, 160)), int(rng.integers(8, 160))
                        mean, scale = self.random_arith(rng, c, k)
                        pad = [float(v) for v in rng.integers(0, 256, c)]
                        swap = swappable(c, layout) and k % 2 == 0
                        src = self.random_image(rng, w, h, c, np.uint8)
                        what = "preprocess u8 c%d %dx%d -> %dx%d fit %d swapRB %d" % (c, w, h, wn, hn, fit, swap)
                        self.prep_case(what, src, (wn, hn), fit, mode, mean, scale, pad, swap, layout)

    def prep_case(self, what, src, size, fit, mode, mean, scale, pad, swap, layout):
        arith = release_arith(self.version, layout)
        c = src.shape[2]
        p = self.cv_params(size, mean, scale, swap, layout, mode, pad)
        want = cv2.dnn.blobFromImageWithParams(src.copy(), p)
        if not hasattr(p, "borderValue"):
            pad = [0.0] * c  # before 4.10 the letterbox pads with 0
        wn, hn = size
        results = []
        for a in (arith, 1 - arith):
            out = np.zeros((1, c, hn, wn) if layout == CHW else (1, hn, wn, c), np.float32)
            q = Prep()
            q.fit, q.rule, q.swap_rb, q.arith = fit, OPENCV_DNN, int(swap), a
            for i in range(c):
                q.mean[i], q.scale[i], q.pad[i] = mean[i], scale[i], pad[i]
            dm = self.image(out, layout)
            if self.dll.gm_preprocess(C.byref(self.image(src, HWC)), None, C.byref(dm), C.byref(q), None, None) != 0:
                raise RuntimeError("gm_preprocess: " + self.error())
            results.append(out)
        self.compare(what, results[0], want, layout, arith, results[1])

    # -------------------------------------------------------------- warps

    @staticmethod
    def float_warp(dtype, c):
        """Whether OpenCV 5 warps this dtype and channel count in float."""
        return c != 2 and dtype in (np.uint8, np.uint16, np.float32)

    def warp_mode(self, dtype, c, interp, border):
        """The gm_warp_mode that computes this release's warp (gpumat/warp.h's
        table), None where none does: OpenCV 5's float warp (u8, u16, f32; 1,
        3, 4 channels; NEAREST, LINEAR) or its 4.x path, which from 4.9 on
        renormalises LINEAR's weights at a transparent border."""
        if self.version >= (5, 0):
            if interp == 4:
                return None
            if self.float_warp(dtype, c):
                return OPENCV5
        if interp == 0 and border == TRANSPARENT and self.version >= (4, 9):
            return None
        return OPENCV5 if self.version >= (5, 0) else OPENCV4

    def warp_cases(self, rng):
        """Random warps of every dtype OpenCV warps, channel count,
        interpolation and border, affine and perspective, forward and
        inverse; then positions beyond the int range (translations of 1e10,
        a perspective's w near 0 or 0) by every border: (dtype, c, gi, ci,
        border, perspective, inverse, M, src, before, value)."""
        def images(dtype, c, sw, sh, dw, dh):
            if np.issubdtype(dtype, np.integer):
                info = np.iinfo(dtype)
                return (rng.integers(info.min, int(info.max) + 1, (sh, sw, c)).astype(dtype),
                        rng.integers(info.min, int(info.max) + 1, (dh, dw, c)).astype(dtype))
            return rng.uniform(-1000, 1000, (sh, sw, c)).astype(dtype), rng.uniform(-9, 9, (dh, dw, c)).astype(dtype)
        for k in range(900):
            dtype = list(WARP_DTYPES)[k % 5]
            c, (gi, ci), border = 1 + k // 5 % 4, WARP_INTERPS[k // 20 % 3], k // 60 % 6
            sw, sh, dw, dh = (int(v) for v in rng.integers(2, 41, 4))
            perspective, inverse = k % 3 == 0, bool(rng.integers(0, 2))
            if perspective:
                quad = np.float32([[0, 0], [sw, 0], [sw, sh], [0, sh]])
                M = cv2.getPerspectiveTransform(quad, (quad * [dw / sw, dh / sh] +
                                                       rng.uniform(-0.3, 0.3, (4, 2)) * [dw, dh]).astype(np.float32))
            else:
                M = cv2.getRotationMatrix2D((float(rng.uniform(0, sw)), float(rng.uniform(0, sh))),
                                            float(rng.uniform(-180, 180)), dw / sw * float(rng.uniform(0.5, 2)))
                M[:, 2] += rng.uniform(-0.5, 0.5, 2) * [dw, dh]
            value = [float(v) for v in rng.integers(-50, 300, 4)]
            yield (dtype, c, gi, ci, border, perspective, inverse, M) + images(dtype, c, sw, sh, dw, dh) + (value,)
        far = [np.float64([[1, 0, 1e10], [0, 1, 1.5]]), np.float64([[0.5, 0, -1e10], [0, 1, -3e9]]),
               np.float64([[1, 0, 2], [0, 1, 1], [1e-9, 0, 1e-12]]), np.float64([[1, 0, 2], [0, 1, 1], [0, 0, 0]])]
        for k in range(len(WARP_DTYPES) * 2 * 6 * len(far)):
            dtype, (gi, ci), border = list(WARP_DTYPES)[k % 5], WARP_INTERPS[k // 5 % 2], k // 10 % 6
            M, c = far[k // 60], 1 + 2 * (k % 2)
            if self.version >= (5, 0) and border in (2, 4) and self.float_warp(dtype, c):
                continue  # OpenCV 5's float warp reflects INT_MIN a period at a time: seconds a tap
            yield (dtype, c, gi, ci, border, M.shape[0] == 3, True, M) + images(dtype, c, 6, 5, 19, 3) + ([7.0] * 4,)

    def warps(self, rng):
        """gm_warp_affine / gm_warp_perspective against this release for
        warp_cases, where a gpumat mode computes as it does, bit for bit.
        OpenCV 5's float warp on x86 is its AVX2 code's: without AVX2 those
        cases are skipped; where they run, GM_WARP_OPENCV4 must differ from
        it somewhere (else the cases cannot tell the modes apart)."""
        ran = other_differs = 0
        avx2 = cv2.checkHardwareSupport(11) and cv2.useOptimized()  # CV_CPU_AVX2
        for dtype, c, gi, ci, border, perspective, inverse, M, src, before, value in self.warp_cases(rng):
            mode = self.warp_mode(dtype, c, gi, border)
            floating = mode == OPENCV5 and self.float_warp(dtype, c)
            if mode is None:
                continue
            if floating and not avx2:
                self.skipped += 1
                continue
            flags = ci | (cv2.WARP_INVERSE_MAP if inverse else 0)
            warp = cv2.warpPerspective if perspective else cv2.warpAffine
            want = warp(src, M, before.shape[1::-1], dst=before.copy(), flags=flags, borderMode=border,
                        borderValue=value)
            m = np.ascontiguousarray(M, np.float64)
            fn = self.dll.gm_warp_perspective if perspective else self.dll.gm_warp_affine
            got = {}
            for g in (mode, OPENCV4) if floating else (mode,):
                got[g] = before.copy()
                p = WarpParams(gi, border, (C.c_double * 4)(*value), int(inverse), 0, g)
                if fn(C.byref(self.wrap(src)), C.byref(self.wrap(got[g])), m.ctypes.data, C.byref(p), None) != 0:
                    raise RuntimeError("gm_warp: " + self.error())
                got[g] = got[g].reshape(want.shape)
            what = "warp %s %s x%d interp %d border %d%s %dx%d -> %dx%d mode %d M %s" % (
                "perspective" if perspective else "affine", np.dtype(dtype).name, c, gi, border,
                " inverse" if inverse else "", src.shape[1], src.shape[0], before.shape[1], before.shape[0], mode,
                M.tolist())
            self.check(got[mode].tobytes() == want.tobytes(), "%s: %d of %d elements differ" % (
                what, int((got[mode] != want).sum()), want.size))
            if floating:
                other_differs += int((got[OPENCV4] != want).sum())
            ran += 1
        print("oracle_pip: %d warps compared (those OpenCV %s computes as a gpumat mode)" % (ran, cv2.__version__))
        self.check(ran > 0, "no warp compared")
        if self.version >= (5, 0) and avx2:
            print("oracle_pip: GM_WARP_OPENCV4 differs from OpenCV %s's float warp in %d elements" % (
                cv2.__version__, other_differs))
            self.check(other_differs > 0, "the warp cases never tell GM_WARP_OPENCV4 from GM_WARP_OPENCV5")
        elif self.version >= (5, 0):
            print("SKIP oracle_pip: OpenCV %s's float warp (this CPU has no AVX2)" % cv2.__version__)

    def wrap(self, a):
        """A gm_mat over an (H, W, C) interleaved array of a warp dtype."""
        m = Mat()
        h, w, c = a.shape
        d = Desc(w, h, c, 1, WARP_DTYPES[a.dtype.type], HWC, 0, 0, 0)
        if self.dll.gm_wrap_desc(C.byref(m), a.ctypes.data, C.byref(d), 0) != 0:
            raise RuntimeError("gm_wrap_desc: " + self.error())
        return m

    def run(self):
        rng = np.random.default_rng(58)
        try:
            wheel = "opencv-python-headless " + importlib.metadata.version("opencv-python-headless")
        except importlib.metadata.PackageNotFoundError:
            wheel = "not from a wheel"
        print("oracle_pip: OpenCV %s (%s, cv2 from %s), numpy %s" % (cv2.__version__, wheel, cv2.__file__,
                                                                    np.__version__))
        self.check_layouts()
        self.blobs(rng)
        self.preps(rng)
        self.warps(np.random.default_rng(60))
        # a comparison that cannot tell the two arithmetics apart proves nothing
        for (what, layout), n in sorted(self.other_differs.items()):
            print("oracle_pip: %s %s: the other arithmetic differs from OpenCV %s in %d elements" % (
                what, "NCHW" if layout == CHW else "NHWC", cv2.__version__, n))
            self.check(n > 0, "%s %s: the cases never tell GM_BLOB_FLOAT from GM_BLOB_DOUBLE" % (what, layout))
        print("oracle_pip (OpenCV %s): %d passed, %d failed, %d skipped" % (cv2.__version__, self.passed, self.failed,
                                                                       self.skipped))
        return self.failed == 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tests/oracle_pip.py BUILD/libgpumat.so")
    sys.exit(0 if Oracle(sys.argv[1]).run() else 1)
