#!/usr/bin/env python3
"""bench/bench_torch.py: PyTorch eager and torch.compile on the ops of
bench/bench.cu (and its resize, letterbox and NV12 cases), timed the same way, plus torch's own device-to-device copy as a
cross-check of the copy ceiling. Writes one JSON object per line to the file
named on the command line (bench/report.py merges them).

Usage: python3 bench/bench_torch.py ROWS.jsonl

Timing (as bench.cu): warm-up, then 200 back-to-back calls over 6 rotating
inputs (each output kept alive in one of 6 slots, so outputs rotate too) with
CUDA events around the whole loop, time / 200; latency = median of 50 calls
with events around each. torch.compile: mode default, dynamic=False, one
compiled function per op and size, compiled during the warm-up."""
import json
import math
import statistics
import sys
import time

SETS, CALLS, LAT_CALLS, WARMUP = 6, 200, 50, 12
SIZES = [("320x240", 1, 240, 320), ("1920x1080", 1, 1080, 1920),
         ("3840x2160", 1, 2160, 3840), ("32x640x640", 32, 640, 640)]
MEAN = (123.675, 116.28, 103.53)  # RGB order
STD = (58.395, 57.12, 57.375)
COPY_BYTES = 256 << 20


def make_ops(torch):
    """(name, function, input dtype, input is NCHW, bytes per element read + written)."""
    mean = torch.tensor(MEAN, device="cuda").view(1, 3, 1, 1)
    std = torch.tensor(STD, device="cuda").view(1, 3, 1, 1)

    def blob_f32(x):  # uint8 NHWC BGR -> float32 NCHW RGB, normalised
        return x.permute(0, 3, 1, 2)[:, [2, 1, 0]].float().sub(mean).div(std)

    def blob_f16(x):
        return x.permute(0, 3, 1, 2)[:, [2, 1, 0]].float().sub(mean).div(std).half()

    def convert_u8_f32_c3(x):  # uint8 NHWC -> float32 NHWC, x / 255
        return x.float().div(255)

    def split_f32_c3(x):  # float32 NHWC -> NCHW
        return x.permute(0, 3, 1, 2).contiguous()

    def merge_f32_u8(x):  # float32 NCHW -> uint8 NHWC, x * 255 rounded, saturated
        return x.mul(255).round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).contiguous()

    u8, f32 = torch.uint8, torch.float32
    return [("blob_f32", blob_f32, u8, False, 1 + 4), ("blob_f16", blob_f16, u8, False, 1 + 2),
            ("convert_u8_f32_c3", convert_u8_f32_c3, u8, False, 1 + 4),
            ("split_f32_c3", split_f32_c3, f32, False, 4 + 4), ("merge_f32_u8", merge_f32_u8, f32, True, 4 + 1)]


def time_fn(torch, fn, inputs, latency=True):
    """The timing of bench.cu's time_call: (us per call in a loop, median latency us)."""
    slots = [None] * SETS  # keeps 6 outputs alive so the allocator rotates them too
    for i in range(WARMUP):
        slots[i % SETS] = fn(inputs[i % SETS])
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for i in range(CALLS):
        slots[i % SETS] = fn(inputs[i % SETS])
    b.record()
    b.synchronize()
    us = a.elapsed_time(b) * 1e3 / CALLS
    lat = []
    for i in range(LAT_CALLS if latency else 0):
        a.record()
        slots[i % SETS] = fn(inputs[i % SETS])
        b.record()
        b.synchronize()
        lat.append(a.elapsed_time(b) * 1e3)
    torch.cuda.synchronize()
    return us, statistics.median(lat) if lat else None


class Rows:
    """Appends rows to the output file as they come, so a crash keeps what ran."""

    def __init__(self, path, device):
        self.f = open(path, "w")
        self.device = device

    def emit(self, op, size, impl, us=None, latency_us=None, nbytes=None, note="", **extra):
        gbps = nbytes / (us * 1e3) if us and nbytes else None
        row = dict(section=extra.pop("section", "op"), op=op, size=size, impl=impl, us=us, gbps=gbps,
                   pct_of_copy=None, latency_us=latency_us, bytes=nbytes, device=self.device, note=note, **extra)
        self.f.write(json.dumps(row) + "\n")
        self.f.flush()
        print(f"{row['section']:8} {op:18} {size:12} {impl:16} {us or float('nan'):10.2f} us "
              f"{gbps or float('nan'):8.1f} GB/s  lat {latency_us or float('nan'):8.2f} us  {note}", flush=True)


def random_input(torch, dtype, nchw, n, h, w):
    shape = (n, 3, h, w) if nchw else (n, h, w, 3)
    if dtype == torch.uint8:
        return torch.randint(0, 256, shape, dtype=dtype, device="cuda")
    return torch.rand(shape, dtype=dtype, device="cuda") * 2 - 0.5  # [-0.5, 1.5), as bench.cu


def max_diff(torch, a, b):
    return (a.double() - b.double()).abs().max().item()


def bench_copy(torch, rows):
    src = [torch.randint(0, 256, (COPY_BYTES,), dtype=torch.uint8, device="cuda") for _ in range(SETS)]
    dst = [torch.empty_like(s) for s in src]
    us, lat = time_fn(torch, lambda i: dst[i].copy_(src[i]), list(range(SETS)))
    rows.emit("copy", "256MiB", "torch copy_", us, lat, 2 * COPY_BYTES, "cross-check of the ceiling", section="copy")


def bench_ops(torch, rows, only):
    for name, fn, dtype, nchw, elem_bytes in make_ops(torch):
        for size, n, h, w in SIZES:
            if only and only not in f"{name} {size}":
                continue
            nbytes = n * h * w * 3 * elem_bytes
            try:
                inputs = [random_input(torch, dtype, nchw, n, h, w) for _ in range(SETS)]
                eager_out = fn(inputs[0])
            except Exception as e:  # e.g. out of memory: report and go on
                rows.emit(name, size, "torch eager", nbytes=nbytes, note=f"error: {type(e).__name__}: {e}"[:600])
                continue
            for impl in ("torch eager", "torch.compile"):
                try:
                    f, note = fn, ""
                    if impl == "torch.compile":
                        f = torch.compile(fn, dynamic=False)  # one compiled function per op and size
                        t0 = time.perf_counter()
                        diff = max_diff(torch, f(inputs[0]), eager_out)  # compiles here
                        note = f"compile + first call {time.perf_counter() - t0:.1f} s; max diff vs eager {diff:g}"
                    us, lat = time_fn(torch, f, inputs)
                    rows.emit(name, size, impl, us, lat, nbytes, note)
                except Exception as e:
                    rows.emit(name, size, impl, nbytes=nbytes, note=f"error: {type(e).__name__}: {e}"[:600])
            del inputs, eager_out
            torch.cuda.empty_cache()


def geometry_ops(torch):
    """bench.cu's resize and preprocess cases as a torch user writes them:
    (section, op, size, function, input shape NHWC uint8, bytes). bytes: the
    floor bench.cu gives these sizes (the source rows the interpolation reads
    + the destination written): a 2x resize reads every source row, the
    1080p -> 640x360 letterbox rows 3y + 1 and 3y + 2 (720 of 1080)."""
    import torch.nn.functional as F

    def resize(h, w):  # uint8 NHWC -> uint8 NHWC, bilinear in float, rounded back
        def f(x):
            y = F.interpolate(x.permute(0, 3, 1, 2).float(), size=(h, w), mode="bilinear", align_corners=False)
            return y.round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).contiguous()
        return f

    def letterbox(x):  # ultralytics: BGR -> RGB, 1080p -> 640x360, pad 114 to 640x640, / 255, f32 NCHW
        y = F.interpolate(x.permute(0, 3, 1, 2)[:, [2, 1, 0]].float(), size=(360, 640), mode="bilinear",
                          align_corners=False)
        return F.pad(y, (0, 0, 140, 140), value=114.0).mul(1 / 255.0)

    mean = torch.tensor([123.675, 116.28, 103.53], device="cuda").view(1, 3, 1, 1)
    inv_std = 1 / torch.tensor([58.395, 57.12, 57.375], device="cuda").view(1, 3, 1, 1)
    rects = roi_rects()

    def rois(x):  # 64 regions of one 4K BGR frame -> (64, 3, 224, 224) f32 RGB, ImageNet mean and std
        crops = [F.interpolate(x[:, y:y + h, x0:x0 + w].permute(0, 3, 1, 2)[:, [2, 1, 0]].float(), size=(224, 224),
                               mode="bilinear", align_corners=False) for x0, y, w, h in rects]
        return (torch.cat(crops) - mean) * inv_std

    k4, k1 = 3840 * 2160 * 3, 1920 * 1080 * 3
    frame = 720 * 1920 * 3 + 640 * 640 * 3 * 4
    roi_bytes = sum(linear_rows_read(h, 224) * w * 3 + 224 * 224 * 3 * 4 for _, _, w, h in rects)
    return [("resize", "resize_u8_c3_linear", "3840x2160->1920x1080", resize(1080, 1920), (1, 2160, 3840, 3), k4 + k1),
            ("resize", "resize_u8_c3_linear", "1920x1080->3840x2160", resize(2160, 3840), (1, 1080, 1920, 3), k1 + k4),
            ("preprocess", "prep_letterbox_u8_f32", "1 x 1920x1080->640x640", letterbox, (1, 1080, 1920, 3), frame),
            ("preprocess", "prep_letterbox_batch_u8_f32", "32 x 1920x1080->640x640", letterbox, (32, 1080, 1920, 3),
             32 * frame),
            ("preprocess", "prep_rois_u8_f32", "64 x 3840x2160->224x224", rois, (1, 2160, 3840, 3), roi_bytes)]


def yuv_ops(torch):
    """bench.cu's NV12 rows as a torch user writes them, in geometry_ops' form. The frames lie as NVDEC lays
    them out, a batch in one uint8 tensor (n, coded * 3 / 2, pitch): rows pitch apart, the chroma after coded
    rows. The conversion is BT.601 limited range in float, chroma repeated over each 2x2 block: torch's own
    arithmetic, not checked against OpenCV's. bytes: bench.cu's floor for the same rows (the planes' pixels
    and the image; for the letterbox the 360 luma and 360 chroma rows its point path reads, and the
    3 x 640 x 640 f32 written)."""
    import torch.nn.functional as F

    def bgr_planes(buf, w, h, coded):  # (n, h, w) float B, G, R, unrounded
        y = (buf[:, :h, :w].float() - 16) * 1.164383
        uv = buf[:, coded:coded + h // 2, :w].float().unflatten(2, (w // 2, 2)) - 128
        u = uv[..., 0].repeat_interleave(2, 1).repeat_interleave(2, 2)
        v = uv[..., 1].repeat_interleave(2, 1).repeat_interleave(2, 2)
        return y + 2.017232 * u, y - 0.391762 * u - 0.812968 * v, y + 1.596027 * v

    def to_bgr(w, h, coded):  # NV12 -> uint8 NHWC BGR
        def f(buf):
            return torch.stack(bgr_planes(buf, w, h, coded), -1).round().clamp(0, 255).to(torch.uint8)
        return f

    def letterbox(buf):  # 1080p NV12 -> RGB, as u8 values, 640x360 bilinear, pad 114 to 640x640, / 255, f32 NCHW
        b, g, r = bgr_planes(buf, 1920, 1080, 1088)
        rgb = torch.stack((r, g, b), 1).round().clamp(0, 255)
        y = F.interpolate(rgb, size=(360, 640), mode="bilinear", align_corners=False)
        return F.pad(y, (0, 0, 140, 140), value=114.0).mul(1 / 255.0)

    k1, k4 = 1920 * 1080 * 9 // 2, 3840 * 2160 * 9 // 2
    frame = 640 * 640 * 3 * 4 + 2 * 360 * 1920
    return [("yuv", "nv12_to_bgr", "1920x1080", to_bgr(1920, 1080, 1088), (1, 1632, 2048), k1),
            ("yuv", "nv12_to_bgr", "3840x2160", to_bgr(3840, 2160, 2160), (1, 3240, 4096), k4),
            ("yuv", "nv12_to_bgr", "32x1920x1080", to_bgr(1920, 1080, 1088), (32, 1632, 2048), 32 * k1),
            ("preprocess", "prep_letterbox_nv12_f32", "1 x 1920x1080->640x640", letterbox, (1, 1632, 2048), frame),
            ("preprocess", "prep_letterbox_batch_nv12_f32", "32 x 1920x1080->640x640", letterbox, (32, 1632, 2048),
             32 * frame)]


def splitmix64(state):
    """bench.cu's splitmix64: (next state, value)."""
    state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return state, z ^ (z >> 31)


def roi_rects():
    """bench.cu's roi_rects: 64 (x, y, w, h) from seed 1."""
    state, rects = 1, []
    for _ in range(64):
        state, a = splitmix64(state)
        state, b = splitmix64(state)
        w, h = 64 + a % 600, 64 + b % 600
        state, c = splitmix64(state)
        state, d = splitmix64(state)
        rects.append((c % (3840 - w), d % (2160 - h), w, h))
    return rects


def linear_rows_read(n, dn):
    """The source rows cv::resize's LINEAR reads resizing n rows to dn (bench.cu's rows_read)."""
    scale, used = 1 / (dn / n), set()
    for d in range(dn):
        s = math.floor((d + 0.5) * scale - 0.5)
        used.update(min(max(r, 0), n - 1) for r in (s, s + 1))
    return len(used)


def bench_geometry(torch, rows, only):
    for section, name, size, fn, shape, nbytes in geometry_ops(torch) + yuv_ops(torch):
        if only and only not in f"{name} {size}":
            continue
        inputs = [torch.randint(0, 256, shape, dtype=torch.uint8, device="cuda") for _ in range(SETS)]
        eager_out = fn(inputs[0])
        for impl in ("torch eager", "torch.compile"):
            try:
                items = int(size.split(" x ")[0]) if " x " in size else shape[0]
                f, note = fn, "item" if items == 1 else f"{items} items"
                if impl == "torch.compile":
                    f = torch.compile(fn, dynamic=False)
                    diff = max_diff(torch, f(inputs[0]), eager_out)
                    note += f"; max diff vs eager {diff:g}"
                us, lat = time_fn(torch, f, inputs)
                rows.emit(name, size, impl, us, lat, nbytes, note, section=section)
            except Exception as e:
                rows.emit(name, size, impl, nbytes=nbytes, note=f"error: {type(e).__name__}: {e}"[:600], section=section)
        del inputs, eager_out
        torch.cuda.empty_cache()


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: bench_torch.py ROWS.jsonl [CASE]  (CASE: only the ops whose \"op size\" contains it)")
    path, only = sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        device = torch.cuda.get_device_name(0)
    except Exception as e:
        Rows(path, "").emit("*", "*", "torch", note=f"not run: {type(e).__name__}: {e}", section="setup")
        return 1
    dynamo = getattr(torch, "_dynamo", None)
    for knob in ("cache_size_limit", "recompile_limit"):  # 4 sizes per function; stay clear of the limit
        if dynamo is not None and hasattr(dynamo.config, knob):
            setattr(dynamo.config, knob, 64)
    rows = Rows(path, device)
    print(f"torch {torch.__version__} on {device}", flush=True)
    try:
        bench_copy(torch, rows)
    except Exception as e:
        rows.emit("copy", "256MiB", "torch copy_", note=f"error: {type(e).__name__}: {e}"[:600], section="copy")
    torch.cuda.empty_cache()
    bench_ops(torch, rows, only)
    bench_geometry(torch, rows, only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
