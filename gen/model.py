# SPDX-License-Identifier: MIT
"""The data model the generator expands: dtypes, channel counts, layouts, and
the one naming scheme every generated C symbol, kernel and file uses."""

# name, C type, size in bytes. The position is the gm_dtype value and matches
# OpenCV's depth codes (CV_8U = 0 ... CV_16F = 7, CV_16BF = 8 as in OpenCV 5).
DTYPES = [
    ("u8", "uint8_t", 1),
    ("s8", "int8_t", 1),
    ("u16", "uint16_t", 2),
    ("s16", "int16_t", 2),
    ("s32", "int32_t", 4),
    ("f32", "float", 4),
    ("f64", "double", 8),
    ("f16", "uint16_t", 2),
    ("bf16", "uint16_t", 2),
]
DTYPE_NAMES = [d[0] for d in DTYPES]
CHANNELS = [1, 2, 3, 4]
LAYOUTS = ["hwc", "chw"]  # interleaved, planar

# Channel counts blob_from_image accepts (OpenCV's blobFromImage: 1, 3 or 4).
BLOB_CHANNELS = [1, 3, 4]
BLOB_OUT = ["f32", "f16"]


def wide(src, dst):
    """True where OpenCV's convertTo computes src -> dst in double (its
    convert_scale table); everything else is computed in float. f64 -> f16 is
    double as in OpenCV 4.x (cvtScale64f16f uses cvt_64f; tests/oracle.cpp
    shows float gives different f16 bits), although OpenCV 5 moved it to float.
    Pairs with bf16 (no OpenCV 4 type) follow OpenCV 5: float."""
    return (dst == "f64" or (dst == "s32" and src in ("s32", "f64")) or (dst == "f32" and src == "f64")
            or (dst == "f16" and src == "f64"))


def enum(dtype):
    return "GM_" + dtype.upper()


def view(dtype, channels, layout):
    """Typed view name: view('u8', 3, 'hwc') -> 'u8c3_hwc'."""
    return "%sc%d_%s" % (dtype, channels, layout)


def name(op, *parts):
    """Every generated symbol: name('convert', 'u8c3_hwc', 'f32c3_hwc') ->
    'gm_convert_u8c3_hwc_f32c3_hwc'."""
    return "_".join(("gm", op) + parts)


def specs():
    for s in DTYPE_NAMES:
        for d in DTYPE_NAMES:
            for c in CHANNELS:
                yield s, d, c


# The kernel families: each is a template (templates/<family>.cu, whose entry
# macro GM__ENTRY_<FAMILY> turns a row into a kernel) and the rows below.
FAMILIES = ["xform", "xform_fast", "resize", "prep", "twice", "fill", "overlay", "blend", "yuv", "yuv_from", "prep_yuv",
            "prep_double", "prep_yuv_double", "warp", "prep_warp", "prep_yuv_warp"]

# How the runner (include/gpumat/impl/run.h) carries out a plan of each
# family: the function that sizes its launch (gm__grid_<name>) and the CPU
# loop that runs it on host memory (gm__cpu_run_<name>; None where the
# planner never picks the family for host memory).
FAMILY_RUNNERS = {"xform": ("xform", "xform"), "xform_fast": ("fast", None), "resize": ("resize", "resize"),
                  "prep": ("prep", "prep"), "twice": ("twice", None), "fill": ("fill", None),
                  "overlay": ("overlay", "overlay"), "blend": ("blend", "blend"), "yuv": ("yuv", "yuv"),
                  "yuv_from": ("yuv", "yuv"), "prep_yuv": ("prep", "prep"), "prep_double": ("prep", "prep"),
                  "prep_yuv_double": ("prep", "prep"), "warp": ("warp", "warp"), "prep_warp": ("prep", "prep_warp"),
                  "prep_yuv_warp": ("prep", "prep_warp")}
assert sorted(FAMILY_RUNNERS) == sorted(FAMILIES)

# What a resize kernel computes (templates/resize.inc): cv::resize's
# algorithms, which the host picks from the interpolation and the scales as
# cv::resize does (INTER_AREA is area_fast for integer factors, area for
# other downscales, linear with area coefficients for upscales). cubic:
# the warps' INTER_CUBIC (no resize takes it yet); float_nearest and
# float_linear: the warps' OpenCV 5 mode (GM_WARP_OPENCV5), positions and
# weights in float.
SAMPLERS = ["nearest", "linear", "area_fast", "area", "linear_exact", "cubic", "float_nearest", "float_linear"]
RESIZE_SAMPLERS = SAMPLERS[:5]
# The dtypes of linear_exact's fixed point (OpenCV's resize_bitExact; floating
# dtypes run linear instead, as OpenCV does).
EXACT_DTYPES = ["u8", "s8", "u16", "s16", "s32"]

# The pre-process (gm_preprocess, templates/prep.inc): the source dtypes and
# channel counts of camera frames and decoded images, and the dtypes networks
# take. Destination channels and layout are launch arguments.
PREP_SRC = ["u8", "u16", "f32"]
PREP_DST = ["u8", "f16", "bf16", "f32"]
# The samplers the pre-process takes 4:2:0 frames by (templates/prep_yuv.cu):
# those reading at most 2x2 taps, each converted to BGR (the 2x2 mean is
# LINEAR's reroute at half the size).
PREP_YUV_SAMPLERS = ["nearest", "linear", "area_fast", "linear_exact"]

# The destinations of the pre-process whose product is in double
# (gm_blob_arith GM_BLOB_DOUBLE, OpenCV 4.8-4.10's blobFromImage): OpenCV's
# CV_32F, and f16 as that value rounded. Rows of their own (prep_double,
# prep_yuv_double), so that the float rows compile as they would without.
PREP_DOUBLE_DST = ["f16", "f32"]

# How the warps sample (templates/warp.inc): cv::remap's interpolations.
WARP_SAMPLERS = ["nearest", "linear", "cubic"]
# The warps' OpenCV 5 mode: the samplers, and what takes them: the dtypes
# and channel counts OpenCV 5.0 warps in float (u8, u16, f32; 1, 3 or 4
# channels), and f16 and bf16 as f32 holds them. The rest of that mode is
# the 4.x rows, which OpenCV 5.0 also runs there.
FLOAT_WARP_SAMPLERS = ["float_nearest", "float_linear"]
FLOAT_WARP_DTYPES = ["u8", "u16", "f32", "f16", "bf16"]
FLOAT_WARP_CHANNELS = [1, 3, 4]

# The samplers of the warp placement of 4:2:0 frames (templates/prep_warp.inc):
# those reading at most 2x2 taps, each converted to BGR.
PREP_YUV_WARP_SAMPLERS = WARP_SAMPLERS[:2]

# What gm_yuv_convert turns P016 frames into (templates/yuv.cu).
YUV16_DST = ["u8", "u16", "f32"]

# The whole-2x resizes with interleaved channels (templates/twice.cu):
# LINEAR to twice the size, and the 2x2 mean to half of it (for u8 OpenCV's
# integer one, which has no 2 channels); u8 in packed integer lanes, the
# floating dtypes in float.
TWICE_SAMPLERS = ["linear", "area_fast"]
TWICE_DTYPES = ["u8", "f32", "f16", "bf16"]


class Kernel:
    """One row of the catalogue: a kernel specialization, by named fields.
    Fields a family does not use are None (0 in C; layouts -1)."""
    FIELDS = ("family", "src", "dst", "channels", "src_layout", "dst_layout", "pixels", "units", "min_blocks",
              "sampler")

    def __init__(self, family, src, dst, channels, src_layout=None, dst_layout=None, sampler=None):
        self.family, self.src, self.dst, self.channels = family, src, dst, channels
        self.src_layout, self.dst_layout, self.sampler = src_layout, dst_layout, sampler
        fast = family == "xform_fast"
        args = (src, dst, channels, src_layout, dst_layout)
        self.pixels = (pixels_per_unit(*args) if fast else
                       twice_pixels(src, sampler) if family == "twice" else None)
        self.units = units_per_thread(*args) if fast else None
        self.min_blocks = (min_blocks(*args) if fast else
                           twice_min_blocks(src, channels, sampler) if family == "twice" else None)
        if family == "resize":
            self.name = name("resize", src, "c%d" % channels, sampler)
        elif family == "twice":
            self.name = name("resize", src, "c%d" % channels, sampler, "twice")
        elif family == "prep":
            self.name = name("prep", src, dst, "c%d" % channels, sampler)
        elif family == "prep_yuv":
            self.name = name("prep", "yuv", dst, sampler)
        elif family == "prep_double":
            self.name = name("prep", "double", src, dst, "c%d" % channels, sampler)
        elif family == "prep_yuv_double":
            self.name = name("prep", "yuv", "double", dst, sampler)
        elif family == "fill":
            self.name = name("fill", "bytes")
        elif family == "overlay":
            self.name = name("overlay", "u8")
        elif family == "blend":
            self.name = name("blend", "u8")
        elif family == "yuv":
            self.name = name("yuv", "u8") if src == "u8" else name("yuv", "p016", dst)
        elif family == "yuv_from":
            self.name = name("yuv", "from", "u8")
        elif family == "warp":
            self.name = name("warp", src, "c%d" % channels, sampler)
        elif family == "prep_warp":
            self.name = name("prep", "warp", src, dst, "c%d" % channels, sampler)
        elif family == "prep_yuv_warp":
            self.name = name("prep", "yuv", "warp", dst, sampler)
        else:
            self.name = name("xform", src, dst, "c%d" % channels, *((src_layout, dst_layout) if fast else ()))


def catalogue():
    """Every kernel that exists, in index order: the generic transform of each
    (source dtype, destination dtype, channels written), whose layouts,
    pitches and channel map are launch arguments; then the fast transform of
    each of those with its layouts fixed. One channel has no layouts: the
    planner runs it as interleaved, so its only fast kernel is hwc -> hwc.
    Then the resize of each dtype and channel count by each sampler, whose
    layouts and pitches are launch arguments; then the pre-process of each
    source dtype, destination dtype, source channel count and sampler (a
    launch carries the items of one sampler). Then the whole-2x resizes.
    Then the fill: one kernel of bytes for every dtype, whose pattern (a
    pixel's bytes, or a plane's element) is a launch argument. Then the
    sprite overlay onto u8 frames of 3 or 4 channels (launch arguments).
    Then gm_add_weighted's blend of u8 rows, any channels and layout. Last,
    gm_yuv_convert's 4:2:0 frames to u8 gray, BGR or BGRA (its P016 frames
    to each dtype of YUV16_DST), and
    gm_yuv_from_image's BGR or BGRA to those frames (the format, channels
    and order are launch arguments). Then the pre-process of 4:2:0 frames
    read as u8 BGR into each destination dtype, by each sampler a frame
    takes. Then both pre-processes again with the product in double, into
    each of PREP_DOUBLE_DST. Then the warps of each dtype and channel count
    by each of WARP_SAMPLERS (affine or perspective, the border and the
    layouts are launch arguments), and by FLOAT_WARP_SAMPLERS those of
    FLOAT_WARP_DTYPES and FLOAT_WARP_CHANNELS. Last, the pre-process's warp
    placement of images by each of WARP_SAMPLERS and of frames by each of
    PREP_YUV_WARP_SAMPLERS (the product's arithmetic an argument)."""
    rows = [Kernel("xform", s, d, c) for s, d, c in specs()]
    rows += [Kernel("xform_fast", s, d, c, ls, ld) for s, d, c in specs() for ls in LAYOUTS for ld in LAYOUTS
             if c > 1 or ls == ld == "hwc"]
    rows += [Kernel("resize", t, t, c, sampler=r) for t in DTYPE_NAMES for c in CHANNELS for r in RESIZE_SAMPLERS
             if r != "linear_exact" or t in EXACT_DTYPES]
    rows += [Kernel("prep", s, d, c, sampler=r) for s in PREP_SRC for d in PREP_DST for c in BLOB_CHANNELS
             for r in RESIZE_SAMPLERS if r != "linear_exact" or s in EXACT_DTYPES]
    rows += [Kernel("twice", t, t, c, sampler=r) for t in TWICE_DTYPES for c in CHANNELS for r in TWICE_SAMPLERS
             if r == "linear" or c != 2 or t != "u8"]
    rows += [Kernel("fill", "u8", "u8", 1)]
    rows += [Kernel("overlay", "u8", "u8", 4)]
    rows += [Kernel("blend", "u8", "u8", 1)]
    rows += [Kernel("yuv", "u8", "u8", 1)]
    rows += [Kernel("yuv", "u16", d, 1) for d in YUV16_DST]
    rows += [Kernel("yuv_from", "u8", "u8", 3)]
    rows += [Kernel("prep_yuv", "u8", d, 3, sampler=r) for d in PREP_DST for r in PREP_YUV_SAMPLERS]
    rows += [Kernel("prep_double", s, d, c, sampler=r) for s in PREP_SRC for d in PREP_DOUBLE_DST for c in BLOB_CHANNELS
             for r in RESIZE_SAMPLERS if r != "linear_exact" or s in EXACT_DTYPES]
    rows += [Kernel("prep_yuv_double", "u8", d, 3, sampler=r) for d in PREP_DOUBLE_DST for r in PREP_YUV_SAMPLERS]
    rows += [Kernel("warp", t, t, c, sampler=r) for t in DTYPE_NAMES for c in CHANNELS
             for r in WARP_SAMPLERS + FLOAT_WARP_SAMPLERS
             if r in WARP_SAMPLERS or (t in FLOAT_WARP_DTYPES and c in FLOAT_WARP_CHANNELS)]
    rows += [Kernel("prep_warp", s, d, c, sampler=r) for s in PREP_SRC for d in PREP_DST for c in BLOB_CHANNELS
             for r in WARP_SAMPLERS]
    rows += [Kernel("prep_yuv_warp", "u8", d, 3, sampler=r) for d in PREP_DST for r in PREP_YUV_WARP_SAMPLERS]
    return rows


def _same(k, s, d, c):
    return (k.src, k.dst, k.channels) == (s, d, c)


# What gm_kernels_for(src, dst, channels) lists (include/gpumat/jit.h), in
# this order: for each entry, the rows of its family that an operation of
# those dtypes and channels written may launch, in catalogue order (the
# resizes, whose src is their dst, only where src == dst).
KERNELS_FOR = [
    ("xform", _same),
    ("fill", lambda k, s, d, c: True),  # a transform whose every channel is a constant; gm_fill
    ("xform_fast", _same),  # each layout pair
    # alike interleaved channels run as one; separate planes (src == dst) one at a time
    ("xform_fast", lambda k, s, d, c: c > 1 and k.src_layout == k.dst_layout == "hwc" and _same(k, s, d, 1)),
    ("xform", lambda k, s, d, c: c > 1 and s == d and _same(k, s, d, 1)),
    ("resize", _same),  # by each sampler of the dtype
    ("twice", _same),
    ("prep", _same),  # from channels of src into dst, by each sampler
    ("prep_yuv", lambda k, s, d, c: s == "u8" and c == 3 and k.dst == d),  # frames, read as BGR
    ("overlay", lambda k, s, d, c: s == d == "u8" and c >= 3),
    ("blend", lambda k, s, d, c: s == d == "u8"),
    ("yuv", lambda k, s, d, c: (k.src, k.dst) == (s, d) and c != 2),  # gray, BGR, BGRA; of P016 frames from u16
    ("yuv_from", lambda k, s, d, c: s == d == "u8" and c >= 3),
    ("warp", _same),  # by each sampler
    ("prep_warp", _same),  # the pre-process's warp placement
    ("prep_yuv_warp", lambda k, s, d, c: s == "u8" and c == 3 and k.dst == d),
]


def kernels_for(rows):
    """gm_kernels_for's list of each (src, dst, channels), in that order over
    DTYPE_NAMES, DTYPE_NAMES and CHANNELS: the rows' indexes (KERNELS_FOR)."""
    of = {f: [(i, k) for i, k in enumerate(rows) if k.family == f] for f in FAMILIES}
    return [[i for family, serves in KERNELS_FOR for i, k in of[family] if serves(k, s, d, c)]
            for s in DTYPE_NAMES for d in DTYPE_NAMES for c in CHANNELS]


def size(dtype):
    return DTYPES[DTYPE_NAMES.index(dtype)][2]


def warp_contiguous(k):
    """Whether a warp moves 32 adjacent runs of k bytes each as contiguous
    instructions: k a power of two up to 16, or 16-byte chunks the kernel
    stages through shared memory (up to 128 bytes, templates/xform_fast.cu)."""
    return k in (1, 2, 4, 8, 16) or (k % 16 == 0 and k <= 128)


def pixels_per_unit(src, dst, channels, ls, ld):
    """P of the fast kernel: the fewest pixels (at most 16) whose destination
    run (interleaved, or each plane) is a multiple of 16 bytes and whose
    source and destination runs are both warp-contiguous, within 320 bytes a
    unit; where none is, the fewest whose destination run is a multiple of 16
    bytes, halved while the unit would hold more than 320 bytes. One channel
    from a 1-byte type to a wider one takes 16, so that a lane loads 16 bytes
    (the destination run, up to 128 bytes, is staged): wide loads are what
    those kernels lack. Measurements: bench/RESULTS.md."""
    srun = size(src) * (channels if ls == "hwc" else 1)
    drun = size(dst) * (channels if ld == "hwc" else 1)
    if channels == 1 and size(src) == 1 and size(dst) > 1:
        return 16
    for p in (1, 2, 4, 8, 16):
        if (p * drun) % 16 == 0 and warp_contiguous(p * srun) and warp_contiguous(p * drun) and \
                p * channels * (size(src) + size(dst)) <= 320:
            return p
    p = 1
    while (p * drun) % 16 and p < 16:
        p *= 2
    while p > 1 and p * channels * (size(src) + size(dst)) > 320:
        p //= 2
    return p


def units_per_thread(src, dst, channels, ls, ld):
    """R of the fast kernel: units a thread keeps in flight, about 256 bytes
    read and written, 1 to 4; up to 8 units of at most 32 bytes, so that a
    thread's fixed work (its task's indices, the parameters) is spread over
    enough pixels. Narrowing conversions from a staged source read at most
    64 bytes a thread: more threads stay resident. One channel from a 1-byte
    type to a 4-byte one takes 2 of its 16-pixel units: a padded row of 1920
    bytes (a 640-pixel 3-channel u8 image, as gm_convert flattens it) is then
    two even tasks rather than a long and a short one (2-byte destinations
    keep 4: they measured slower at 2). Units of 96 bytes or more read and
    written take 1: shorter tasks end the kernel sooner, and at 64 registers
    more threads stay resident. Measurements: bench/RESULTS.md."""
    p = pixels_per_unit(src, dst, channels, ls, ld)
    if channels == 1 and size(src) == 1 and size(dst) == 4:
        return 2
    read, written = p * channels * size(src), p * channels * size(dst)
    r = max(1, min(8 if read + written <= 32 else 4, 256 // (read + written)))
    if read + written >= 96:
        r = 1
    srun = p * size(src) * (channels if ls == "hwc" else 1)
    if srun > 16 and warp_contiguous(srun) and written < read:
        r = max(1, min(r, 64 // read))
    return r


def twice_pixels(src, sampler):
    """Columns a thread of a whole-2x kernel takes (templates/twice.cu): of
    the source when it doubles, of the destination when it halves. 4, but 2
    where a floating dtype doubles: a thread holds two source rows' passes
    in float, and 4 columns of them spilled 44-416 bytes at 80 registers
    from 2 channels on (2 columns: 3 channels spill 56-76 bytes, the rest
    none; bench/RESULTS.md)."""
    return 2 if sampler == "linear" and src != "u8" else 4


def twice_min_blocks(src, channels, sampler):
    """Blocks of 256 threads each multiprocessor must fit for a whole-2x
    kernel (templates/twice.cu), so more loads are in flight: the doubling
    of 1 to 3 channels at 80 registers (u8: 109 unbounded), the halving at
    40 (96); 4 channels spill at 80, so 2 there (bench/RESULTS.md); the
    floating dtypes' halving of 4 channels spilled at 40, so 5 there (48)."""
    if sampler == "area_fast":
        return 5 if channels == 4 and src != "u8" else 6
    return 2 if channels == 4 else 3


def min_blocks(src, dst, channels, ls, ld):
    """Blocks of 256 threads each multiprocessor must fit (the kernel's
    __launch_bounds__): 4, which caps registers at 64 and so keeps half the
    threads resident, where a thread holds little: one unit (R = 1) of at
    most 112 bytes with one destination stream, or two units (R = 2) of at
    most 80; else 2 (at most 128 registers: one block a multiprocessor would
    leave it mostly idle). Beyond those sizes ptxas spills at 64 registers."""
    p = pixels_per_unit(src, dst, channels, ls, ld)
    r = units_per_thread(src, dst, channels, ls, ld)
    stream = p * size(dst) * (channels if ld == "hwc" else 1)
    held = r * p * channels * size(src) + stream
    return 4 if (r == 1 and held <= 112) or (r == 2 and held <= 80) else 2
