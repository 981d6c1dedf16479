#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpumat's calls from Python against the same calls from C
(bench/python_peer.c, the path to its binary the first argument), on the
device: the per-call cost of a tiny call (16x16), throughput rows of 1080p
and larger (N calls then one sync, the wall time over N, best of five), and
`import gpumat` plus the first call with a warm kernel disk cache. Python's
calls take gpumat.Image objects made once (the fast way), and for the tiny
row also torch tensors wrapped at every call and the raw ctypes function.
Prints one JSON line a measurement.
Run: python3 bench/python.py ./python_peer"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gpumat as gm  # noqa: E402

CALLS = {"tiny": 20000, "letterbox": 2000, "resize": 1000, "nv12": 1000, "blob": 1000}


def rows():
    """name -> (the images, a function doing one call), as python_peer.c's."""
    gray = (114, 114, 114)
    tiny_src, tiny_dst = gm.alloc(16, 16, gm.U8, 3, where=gm.DEVICE), gm.alloc(16, 16, gm.F32, 3, where=gm.DEVICE)
    hd = gm.alloc(1920, 1080, gm.U8, 3, where=gm.DEVICE)
    lb = gm.alloc(640, 640, gm.F32, 3, gm.CHW, where=gm.DEVICE)
    uhd, uhd_half = gm.alloc(3840, 2160, gm.U8, 3, where=gm.DEVICE), gm.alloc(1920, 1080, gm.U8, 3, where=gm.DEVICE)
    nv12 = gm.alloc(3840, 2160 * 3 // 2, gm.U8, 1, where=gm.DEVICE)
    frame = gm.frame(nv12, 3840, 2160, pitch=nv12.pitch)
    bgr, blob = gm.alloc(3840, 2160, gm.U8, 3, where=gm.DEVICE), gm.alloc(3840, 2160, gm.F16, 3, gm.CHW,
                                                                          where=gm.DEVICE)
    for image in (tiny_src, hd, uhd, nv12):
        gm.fill(image, gray[:image.channels])
    return {
        "tiny": lambda: gm.convert(tiny_src, tiny_dst, 1 / 255),
        "letterbox": lambda: gm.preprocess(hd, lb, fit=gm.FIT_LETTERBOX, pad=gray, swap_rb=True, scale=1 / 255),
        "resize": lambda: gm.resize(uhd, uhd_half),
        "nv12": lambda: gm.yuv_convert(frame, bgr),
        "blob": lambda: gm.blob_from_image(uhd, blob, 1 / 255, swap_rb=True),
    }, (tiny_src, tiny_dst)


def timed(call, n):
    best = float("inf")
    for _ in range(5):
        call()
        gm.sync()
        t = time.perf_counter()
        for _ in range(n):
            call()
        gm.sync()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best


def raw_ctypes(tiny):
    import ctypes
    src, dst = tiny
    fn, a, b = gm.lib.gm_convert, ctypes.byref(src.mat), ctypes.byref(dst.mat)
    return lambda: fn(a, b, 1 / 255, 0.0, None)


def main():
    peer = sys.argv[1] if len(sys.argv) > 1 else "./python_peer"
    table, tiny = rows()
    for line in subprocess.run([peer], check=True, capture_output=True, text=True).stdout.splitlines():
        print(line, flush=True)
    for name, call in table.items():
        print(json.dumps({"row": name, "side": "Python, gpumat.Image", "us_per_call": round(timed(call, CALLS[name]), 3)}),
              flush=True)
    print(json.dumps({"row": "tiny", "side": "Python, raw ctypes", "us_per_call": round(timed(raw_ctypes(tiny),
                                                                                             CALLS["tiny"]), 3)}))
    try:
        import torch
        s, d = torch.zeros((16, 16, 3), dtype=torch.uint8, device="cuda"), torch.zeros((16, 16, 3), device="cuda")
        print(json.dumps({"row": "tiny", "side": "Python, torch tensors passed at each call",
                          "us_per_call": round(timed(lambda: gm.convert(s, d, 1 / 255), CALLS["tiny"]), 3)}))
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):  # gpumat on the default stream: DLPack's wait at every call
            print(json.dumps({"row": "tiny", "side": "Python, torch tensors of another stream",
                              "us_per_call": round(timed(lambda: gm.convert(s, d, 1 / 255), CALLS["tiny"] // 10),
                                                   3)}))
        hd, lb = torch.zeros((1080, 1920, 3), dtype=torch.uint8, device="cuda"), torch.zeros(
            (1, 3, 640, 640), device="cuda")
        print(json.dumps({"row": "letterbox", "side": "Python, torch tensors passed at each call", "us_per_call": round(
            timed(lambda: gm.preprocess(hd, lb, fit=gm.FIT_LETTERBOX, pad=(114, 114, 114), swap_rb=True,
                                        scale=1 / 255), CALLS["letterbox"]), 3)}))
    except ImportError:
        pass
    first = ("import time; t = time.perf_counter(); import gpumat as gm; "
             "s = gm.alloc(16, 16, gm.U8, 3, where=gm.DEVICE); gm.fill(s, (1, 2, 3)); "
             "d = gm.convert(s, alpha=2.0, dtype=gm.F32); gm.sync(); print((time.perf_counter() - t) * 1e3)")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    runs = [float(subprocess.run([sys.executable, "-c", first], env=env, check=True, capture_output=True,
                                 text=True).stdout) for _ in range(4)]
    print(json.dumps({"row": "import + first call", "side": "Python", "ms": [round(r, 1) for r in runs],
                      "note": "the first run may fill the disk cache; the others find it warm"}))
    for mode in ("first", "first", "first", "driver", "driver", "driver"):
        print(subprocess.run([peer, mode], check=True, capture_output=True, text=True).stdout.strip())
    alone = [float(subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import gpumat; "
                                   "print((time.perf_counter() - t) * 1e3)"], env=env, check=True,
                                  capture_output=True, text=True).stdout) for _ in range(3)]
    print(json.dumps({"row": "import gpumat", "side": "Python", "ms": [round(r, 1) for r in alone]}))


if __name__ == "__main__":
    main()
