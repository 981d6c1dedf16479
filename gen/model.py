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


def spec_index(src, dst, channels):
    """Generic kernel slot: (source dtype, destination dtype, channels
    written). Layouts, pitches and channel maps are launch arguments."""
    return (DTYPE_NAMES.index(src) * len(DTYPES) + DTYPE_NAMES.index(dst)) * len(CHANNELS) + channels - 1


def specs():
    for s in DTYPE_NAMES:
        for d in DTYPE_NAMES:
            for c in CHANNELS:
                yield s, d, c


def kernel_name(src, dst, channels):
    return name("xform", src, dst, "c%d" % channels)


# Fast kernels: transforms that keep the channel count, one per (source dtype,
# destination dtype, channels, source layout, destination layout), numbered
# after the generic ones in the same order as this loop.
def fast_specs():
    for s, d, c in specs():
        for ls in LAYOUTS:
            for ld in LAYOUTS:
                yield s, d, c, ls, ld


def fast_kernel_name(src, dst, channels, ls, ld):
    return name("xform", src, dst, "c%d" % channels, ls, ld)


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
    (the destination run, up to 128 bytes, is staged): on the H200 each of
    those 14 pairs ran 1-7 points of copy faster so, and gm_convert u8 -> f32
    of 3 channels (one channel, three times as wide) at 4K 88.9 -> 91.8."""
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
    64 bytes a thread: in the H200 sweep 99 of 104 of them measured ran faster
    so, by up to 20 points of copy (more threads resident, more waves). One
    channel from a 1-byte type to a 4-byte one takes 2 (of its 16-pixel
    units), not 3: a padded row of 1920 bytes (a 640-pixel 3-channel u8
    image, as gm_convert flattens it) is then two tasks of 64 and 56 units
    rather than 96 and 24; on the H200, gm_convert u8 -> f32 of 3 channels at
    32x640x640 went 91.8 -> 93.5% of copy, at 4K 91.8 -> 90.7 (joined rows,
    where R = 3 has no short tasks). R = 2 for the 2-byte destinations too
    (from 4) measured 4-5 points lower on the 4K sweep, in a run whose
    streaming stores cost those kernels about 0.7 themselves. Units of 96
    bytes or more read and written take 1, not 2: shorter tasks end the
    kernel sooner, and at 64 registers more threads stay resident; on the
    H200 (with the half blocks of grids beyond a wave) gm_split f32 of 3
    channels at 4K went 96.4 -> 96.9% of copy, at 32x640x640 98.5 -> 98.9,
    and the 70 sweep configurations measured that run such kernels moved +0.3
    (median; -1.1 to +2.9)."""
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


def min_blocks(src, dst, channels, ls, ld):
    """Blocks of 256 threads each multiprocessor must fit (the kernel's
    __launch_bounds__): 4, which caps registers at 64 and so keeps half the
    threads resident, where a thread holds little: one unit (R = 1) of at
    most 112 bytes with one destination stream, or two units (R = 2) of at
    most 80; else 2 (at most 128 registers: one block a multiprocessor would
    leave it mostly idle). Beyond those sizes ptxas spills at 64 registers
    (within them a few kernels spill 16 bytes, which cost nothing measurable);
    other kernels moved a few points either way with 4 in the H200 sweep."""
    p = pixels_per_unit(src, dst, channels, ls, ld)
    r = units_per_thread(src, dst, channels, ls, ld)
    stream = p * size(dst) * (channels if ld == "hwc" else 1)
    held = r * p * channels * size(src) + stream
    return 4 if (r == 1 and held <= 112) or (r == 2 and held <= 80) else 2
