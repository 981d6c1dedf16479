#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Savant-style loop in Python: NV12 frames as a decoder library hands them
over (an address, a pitch, a coded height of 1088 for 1080 rows), one
letterboxed f16 batch for a detector in one call, the detector's boxes
mapped back to each frame, and drawn on the frames in place (mask sprites
over NV12: no conversion of the frame). On the GPU when there is one, else
the same calls on the CPU path. Checks that each box comes back where the
object was painted and that the outline is drawn and nothing inside it.
Run: make python && python3 examples/python/decoder_frames.py"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpumat as gm  # noqa: E402

try:
    import numpy as np
except ImportError as e:
    print("decoder_frames: SKIP: %s (numpy makes the test pictures)" % e)
    sys.exit(0)

W, H, CODED, PITCH, N = 1920, 1080, 1088, 2048, 4
where = gm.path()  # the decoder's memory: device memory with a GPU, else host memory
rng = np.random.default_rng(7)


def decoder_frame(i, box):
    """A frame in the decoder's layout, made here from a BGR picture with a
    red rectangle at box = (x0, y0, x1, y1): gm.frame is all a real
    decoder's (pointer, pitch, coded height) needs."""
    buffer = gm.alloc(PITCH, CODED * 3 // 2, gm.U8, 1, where=where)
    frame = gm.frame(buffer.data, W, H, gm.YUV_NV12, pitch=PITCH, coded_height=CODED, where=buffer.where)
    picture = np.full((H, W, 3), 90, np.uint8)
    x0, y0, x1, y1 = box
    picture[y0:y1, x0:x1] = (0, 0, 255)
    gm.yuv_from_image(picture if where == gm.HOST else gm.copy(picture, where=gm.DEVICE), frame)
    return buffer, frame


objects = [(int(x), int(y), int(x + w), int(y + h)) for x, y, w, h in
           zip(rng.integers(0, 1400, N), rng.integers(0, 700, N), rng.integers(80, 400, N), rng.integers(80, 300, N))]
objects = [(x0 & ~1, y0 & ~1, x1 & ~1, y1 & ~1) for x0, y0, x1, y1 in objects]  # on chroma's 2x2 blocks
frames = [decoder_frame(i, box) for i, box in enumerate(objects)]

# One call: N frames -> (N, 3, 640, 640) f16, letterboxed as ultralytics does, RGB, / 255.
batch, geometries = gm.preprocess_yuv_batch([f for _, f in frames], size=(640, 640), dtype=gm.F16,
                                            fit=gm.FIT_LETTERBOX, pad=114, swap_rb=True, scale=1 / 255)

# A stand-in for the detector: each object's box in the network's input, where the letterbox put it.
detections = [(g.left + x0 * g.gain_x, g.top + y0 * g.gain_y, g.left + x1 * g.gain_x, g.top + y1 * g.gain_y)
              for g, (x0, y0, x1, y1) in zip(geometries, objects)]

overlay = gm.Overlay()
for (buffer, frame), g, det, obj in zip(frames, geometries, detections, objects):
    x0, y0, x1, y1 = (int(round(v)) for v in gm.box_to_source(g, det))
    assert max(abs(a - b) for a, b in zip((x0, y0, x1, y1), obj)) <= 1, (x0, y0, x1, y1, obj)
    outline = np.zeros((y1 - y0, x1 - x0), np.uint8)  # a 4-pixel frame as a coverage mask
    outline[:4], outline[-4:], outline[:, :4], outline[:, -4:] = 255, 255, 255, 255
    overlay.draw_yuv(frame, [(outline, x0, y0, gm.SPRITE_MASK, (0, 255, 0, 255))])
    gm.sync()
    luma = np.asarray(gm.copy(gm.image(buffer).roi(0, 0, W, H), where=gm.HOST))[:, :, 0]
    before = np.asarray(gm.copy(decoder_frame(0, obj)[0], where=gm.HOST))[:H, :W, 0]
    changed = luma != before
    assert changed[y0:y0 + 4, x0:x1].all() and changed[y1 - 4:y1, x0:x1].all(), "the outline is not drawn"
    assert not changed[y0 + 4:y1 - 4, x0 + 4:x1 - 4].any() and changed.sum() == (outline > 0).sum()

print("decoder_frames: OK: %d NV12 frames (pitch %d, coded height %d, %s memory) -> one (%d, 3, 640, 640) f16 "
      "letterboxed batch; every box mapped back within 1 px and outlined on its frame in place"
      % (N, PITCH, CODED, "device" if where == gm.DEVICE else "host", N))
