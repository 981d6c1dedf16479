/* SPDX-License-Identifier: MIT */
/* gpumat/prep.h: a network's input made in one pass, for one image or a
 * batch: crop -> resize -> place (stretch, letterbox, crop-centre) -> pad
 * -> channel map -> (x - mean) * scale -> dtype and layout; and
 * blobFromImageWithParams' arithmetic without the resize.
 *
 * The result is what OpenCV gives for cv::resize (the crop to the placed
 * size), cv::copyMakeBorder (the pad, in source units) and
 * cv::dnn::blobFromImage (the arithmetic, in float, or in double as some
 * releases compute it: gm_blob_arith) in turn, bit for bit.
 * It runs on the GPU where the images are in device memory, else on the
 * CPU, with the same bits. */
#ifndef GPUMAT_PREP_H
#define GPUMAT_PREP_H

#include "base.h"
#include "yuv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A rectangle of pixels: its top-left pixel and its size. */
typedef struct gm_rect {
    int64_t x, y, width, height;
} gm_rect;

/* How the resized crop is placed in the destination image. */
typedef enum gm_fit {
    GM_FIT_STRETCH = 0,    /* resized to the destination's size (blobFromImage, OpenCV dnn's DNN_PMODE_NULL) */
    GM_FIT_LETTERBOX = 1,  /* scaled to fit inside, aspect kept, the rest padded (rounded by gm_prep.rule) */
    GM_FIT_CROP_CENTER = 2, /* scaled to cover, aspect kept, the centre kept: blobFromImage(crop = true), OpenCV
                               dnn's DNN_PMODE_CROP_CENTER (every rule) */
    GM_FIT_WARP = 3         /* each item warped by its own matrix (gm_prep.warp) into the whole destination:
                               gm_warp_affine (gm_warp_perspective) of the crop, then the blob's arithmetic */
} gm_fit;

/* How a letterbox rounds, as each framework does. With target Wn x Hn and
 * a crop of W x H:
 *   ULTRALYTICS (LetterBox of ultralytics 8.4.183 and later, 8.4.190 read):
 *     r = min(Hn / H, Wn / W) in double, the resized size round(W * r) x
 *     round(H * r) (half to even, at least 1), centred pads round(d - 0.1)
 *     before and round(d + 0.1) after (d half the pad). Releases before
 *     8.4.183 place alike wherever no side rounds to 0 (they have no
 *     "at least 1").
 *   OPENCV_DNN (Image2BlobParams, DNN_PMODE_LETTERBOX): r in float, sizes
 *     truncated, the pad before (Wn - w) / 2 in integers.
 *   DEEPSTREAM (nvinfer maintain-aspect-ratio): the long side fills the
 *     target, the other Wn * H / W (or Hn * W / H) in double, truncated; the
 *     pad before (Wn - w) / 2 in integers (symmetric-padding).
 * The resize then samples at the sizes' own ratios, as all three do.
 *
 * Each rule has the options its framework has, and gm_preprocess (every
 * form) and gm_prep_geometry_of refuse the others with GM_ERR_ARG, as they
 * refuse all three for a stretch or a crop-centre:
 *   top_left    ULTRALYTICS (center=False), DEEPSTREAM (no symmetric-padding)
 *   no_upscale  ULTRALYTICS (scaleup=False)
 *   stride      ULTRALYTICS (auto=True)
 * OpenCV dnn has none of them. */
typedef enum gm_letterbox_rule {
    GM_LETTERBOX_ULTRALYTICS = 0,
    GM_LETTERBOX_OPENCV_DNN = 1,
    GM_LETTERBOX_DEEPSTREAM = 2
} gm_letterbox_rule;

/* The interpolation of gm_prep before gm_interp took its place (0.3.0):
 * the same numbers, kept for one version. */
typedef gm_interp gm_prep_interp;
#define GM_PREP_LINEAR GM_INTER_LINEAR
#define GM_PREP_NEAREST GM_INTER_NEAREST
#define GM_PREP_AREA GM_INTER_AREA
#define GM_PREP_LINEAR_EXACT GM_INTER_LINEAR_EXACT

/* How (x - mean) * scale is computed into a f32 blob, zero the default.
 * OpenCV's releases compute it in two ways (measured bit for bit over every
 * u8 value and random means and scales with the opencv-python-headless
 * wheels 4.6.0.66 to 5.0.0.93; the source of each, modules/dnn/src/
 * dnn_utils.cpp, says why):
 *
 *   release (blobFromImage, ...WithParams)   NCHW           NHWC
 *   4.6, 4.7 (Debian 12's C++ 4.6 too)       GM_BLOB_FLOAT  (no NHWC)
 *   4.8, 4.9, 4.10                           GM_BLOB_DOUBLE GM_BLOB_DOUBLE
 *   4.11, 4.12, 5.0                          GM_BLOB_FLOAT  GM_BLOB_DOUBLE
 *
 * 4.6-4.7 scale with `Mat *= scalefactor` (convertTo, in float); 4.8-4.10,
 * and the NHWC path after them, with cv::multiply by a Scalar, which works
 * in double; from 4.11 NCHW is a loop in float. Every release subtracts in
 * float. An f16 destination (for GM_BLOB_FLOAT also u8 or bf16) stores the
 * f32 value rounded to it. */
typedef enum gm_blob_arith {
    GM_BLOB_FLOAT = 0, /* (x - (float)mean) * (float)scale, in float */
    GM_BLOB_DOUBLE = 1 /* (float)((double)(x - (float)mean) * scale): the difference in float, the product of it
                          and the double scale in double, rounded to float */
} gm_blob_arith;

/* What gm_preprocess does. Zero-initialise it ({0}) and set what differs:
 * every zero is a default (a stretch, linear, no pad, identity channels, no
 * mean, scale 1). */
typedef struct gm_prep {
    gm_fit fit;
    gm_letterbox_rule rule;
    gm_interp interp;
    int top_left;   /* letterbox, ULTRALYTICS or DEEPSTREAM rule: the image at the top left, all pad right and
                       bottom (ultralytics center=False, DeepStream without symmetric-padding); 0: centred */
    int no_upscale; /* letterbox, ULTRALYTICS rule: never enlarge (ultralytics scaleup=False) */
    int stride;     /* letterbox, ULTRALYTICS rule: its auto=True with this stride (YOLO's 32): each axis's
                       pad shrinks to (its size - the resized size) mod stride, and the image, that much
                       larger than the resized crop, is written at the top left of dst (geometry's
                       dst_width x dst_height), the rest of dst left as it was; a batch's items must come
                       to one size (ultralytics takes auto for a batch of one shape only). 0: off */
    double pad[4];  /* the letterbox's pad value, in source units and in SOURCE channel order (pad[k] is source
                       channel k; with swap_rb a BGR source's pad is {B, G, R}), unlike mean and scale: the pad
                       is a source pixel, as cv::copyMakeBorder makes it before blobFromImage, and goes through
                       the channel map, mean and scale as every pixel does (ultralytics: 114, 114, 114) */
    int swap_rb;    /* destination channel 0 reads source channel 2, and 2 reads 0 (BGR <-> RGB) */
    const int* channel_map; /* if not NULL (it wins over swap_rb): destination channel c reads source
                               channel channel_map[c] (dst->channels entries); NULL and no swap_rb: channel c
                               reads c, and a 1-channel source fills every channel */
    double mean[4];  /* subtracted, in DESTINATION channel order (mean[c] for destination channel c) */
    double scale[4]; /* then multiplied by (0 means 1), in destination channel order: 1 / std, or 1 / 255 */
    int divide;      /* (x - mean) / scale instead, in float (torch's (x - mean) / std): scale holds std */
    gm_blob_arith arith; /* the product's arithmetic (above): GM_BLOB_DOUBLE for OpenCV 4.8-4.10, or for NHWC
                            from 4.8 on, into a f32 or f16 dst; not with divide */
    /* GM_FIT_WARP (0.3): each item is the warp of its crop (gpumat/warp.h)
     * into dst's size, the crop's pixel (0, 0) the source's origin, as
     * cv::warpAffine of a cv::Mat ROI reads only the ROI; interp NEAREST,
     * LINEAR or CUBIC (AREA is LINEAR, as OpenCV's warps take it); pad is
     * the constant border's value, and a transparent border leaves dst's
     * value where it leaves the warp's. The warped pixels are
     * gm_warp_affine's bits, then the channel map, mean and scale as for
     * every fit: the same as gm_warp_affine into an image of the source's
     * dtype followed by gm_preprocess's stretch of it at its own size. 4:2:0
     * frames (gm_preprocess_yuv, _yuv_batch) by NEAREST and LINEAR only.
     * The letterbox's options (top_left, no_upscale, stride) are refused. */
    const double* warp; /* count matrices, one an item (gm_preprocess: one), each 6 doubles (2x3) or with
                           perspective 9 (3x3), row by row: gm_warp_affine's M, from the crop to dst */
    int perspective;    /* the matrices are 3x3: gm_warp_perspective's */
    int inverse;        /* the matrices map dst to the crop (cv::WARP_INVERSE_MAP) */
    gm_border border;   /* what a pixel whose taps fall outside the crop takes; GM_BORDER_CONSTANT: pad */
} gm_prep;

/* How a box of the network's output goes back to source pixels
 * (gm_prep_box_map), each as one framework writes it, in double. W x H is
 * the crop, Wn x Hn the image made (geometry's dst_width x dst_height),
 * (x0, y0, x1, y1) the box in its pixels; every result is then moved by
 * the crop's origin. "Clipped": to [0, W] x [0, H] before that move, as
 * ultralytics' scale_boxes clips (its clip_boxes); the others are not.
 *   EXACT: the exact inverse of the sampling, (x - left) / sample_x,
 *     likewise y: what the pixels say. Not clipped.
 *   ULTRALYTICS: scale_boxes(img1_shape=(Hn, Wn), boxes, img0_shape=(H, W))
 *     of ultralytics 8.4.174 and later, its predictor's call (8.4.190 read;
 *     the release whose LetterBox the ULTRALYTICS rule is): the gains
 *     derived again from the two shapes, r = min(Hn / H, Wn / W), per axis
 *     of the rounded sizes, gain_x = w / W with w = max(round(W * r), 1)
 *     (8.4.174-8.4.182 lack the max, which changes nothing their LetterBox
 *     can make), pad_x = round((Wn - w) / 2 - 0.1); (x - pad_x) / gain_x.
 *     Clipped.
 *   ULTRALYTICS_NO_PAD: the same with padding=False, as its SAM predictor
 *     maps after center=False: x / gain_x. Clipped.
 *   ULTRALYTICS_RATIO_PAD: scale_boxes(..., ratio_pad) with the ratio_pad
 *     LetterBox reports for this placement, ((ratio, ratio), (left, top)),
 *     a stretch's ((gain_y, gain_x), (0, 0)), as its validator passes it:
 *     (x - left) / ratio. Clipped. (Before 8.4.124 scale_boxes took
 *     ratio_pad[0][0] for both axes: the same but for a stretch.)
 *   Older releases' scale_boxes, one gain r for both axes, (x - pad_x) / r,
 *     clipped, the pads from the sizes as they computed them:
 *   ULTRALYTICS_8_4_25 (8.4.25 to 8.4.173): pad_x = round((Wn - round(W *
 *     r)) / 2 - 0.1).
 *   ULTRALYTICS_8_0_108 (8.0.108 to 8.4.24: all of 8.1, 8.2 and 8.3):
 *     pad_x = round((Wn - W * r) / 2 - 0.1), of the unrounded size (a whole
 *     1366x768 frame into 640 ends at y1 768.375 before the clip).
 *   ULTRALYTICS_8_0 (8.0.0 to 8.0.107): pad_x = (Wn - W * r) / 2, not
 *     rounded.
 *   DEEPSTREAM: nvinfer's (x - offset_left) / scale_ratio_x + roi_left, the
 *     ratio dest_w / src_w (gain_x here). Not clipped: nvinfer then moves a
 *     box left of or above the frame to 0, keeping its size, among its
 *     detection filters; that is the caller's. nvinfer holds boxes as
 *     float: its results are these to float rounding.
 * ultralytics computes on its tensors (float32, mostly): these are its
 * formulas in double. OpenCV dnn maps integer rectangles only
 * (gm_prep_rect_to_source_cv). */
typedef enum gm_box_map {
    GM_BOX_EXACT = 0,
    GM_BOX_ULTRALYTICS = 1,
    GM_BOX_ULTRALYTICS_NO_PAD = 2,
    GM_BOX_ULTRALYTICS_RATIO_PAD = 3,
    GM_BOX_ULTRALYTICS_8_4_25 = 4,
    GM_BOX_ULTRALYTICS_8_0_108 = 5,
    GM_BOX_ULTRALYTICS_8_0 = 6,
    GM_BOX_DEEPSTREAM = 7
} gm_box_map;

/* Where the resized crop landed, to map the network's boxes back: the
 * crop read, the size of the image made (dst's, or smaller with
 * prep->stride), the resized crop's size and its top-left pixel in the
 * destination (negative where crop-centre cut it), and the gains: resized
 * size / crop size per axis. The fields after fit came in 0.3; a geometry
 * made by hand with them zero maps with GM_BOX_EXACT at gain_x, gain_y. */
typedef struct gm_prep_geometry {
    gm_rect crop;
    int64_t dst_width, dst_height;
    int64_t left, top, width, height;
    double gain_x, gain_y;
    double ratio; /* the placement's one factor: ULTRALYTICS' r (after no_upscale), OPENCV_DNN's and crop-centre's
                     float factor (as a double), DEEPSTREAM's gain of the side that fills the target (Wn / W or
                     Hn / H); a stretch has none and reports 0: its factors are gain_x and gain_y */
    gm_fit fit;
    double sample_x, sample_y; /* the factors the resize sampled at, destination pixels per source pixel:
                                  gain_x and gain_y, but crop-centre's float factor (cv::resize's fx, fy path),
                                  and 1 where the resized crop is the crop's size (cv::resize copies); 0
                                  (a geometry made by hand) means gain_x and gain_y */
    gm_box_map map; /* the mapping gm_prep_box_to_source takes for this placement, its rule's framework's:
                       a letterbox by ULTRALYTICS GM_BOX_ULTRALYTICS (its predictor's), with no_upscale
                       GM_BOX_ULTRALYTICS_RATIO_PAD (its validator's, whose LetterBox has scaleup=False), else
                       with top_left GM_BOX_ULTRALYTICS_NO_PAD; by DEEPSTREAM GM_BOX_DEEPSTREAM; by OPENCV_DNN
                       (OpenCV maps integer rectangles alone), every stretch and every crop-centre
                       GM_BOX_EXACT; a warp's has no mapping (the box functions refuse GM_FIT_WARP: its
                       boxes go back by the inverse of the item's matrix) */
} gm_prep_geometry;

/* The destination image dst (one image: batch 1) from the crop rectangle
 * of src (NULL: the whole image) as prep says (NULL: every default), queued
 * on stream; *geometry
 * (if not NULL) says where the crop landed. src: u8, u16 or f32, 1, 3 or 4
 * channels, any layout and pitches; dst: u8, f16, bf16 or f32 (f32 or f16
 * with prep->arith GM_BLOB_DOUBLE), 1-4
 * channels, interleaved (NHWC) or planar (NCHW), for example one image of a
 * TensorRT binding. Bad input (an empty or out-of-image crop, a channel map
 * outside the source, overlapping src and dst) returns a status and writes
 * nothing. The sampling is cv::resize's of the crop to the placed size
 * (gm_resize's, with its reroutes; GM_FIT_WARP's is the warp's, gm_prep
 * says how); u16 and f32 sources are resized in their dtype, then
 * converted to float for the arithmetic. */
GM_API gm_status gm_preprocess(const gm_mat* src, const gm_rect* crop, gm_mat* dst, const gm_prep* prep,
                               gm_prep_geometry* geometry, gm_stream stream);

/* count items into the count images of batched dst (dst->batch == count),
 * each from its own source view srcs[i] and crop crops[i] (crops NULL: the
 * whole views) with its own placement, geometry[i]: frames of different
 * sizes, or regions of one frame (pass the same view count times). The
 * sources share dtype and channels. Items sampled alike (gm_resize's
 * reroutes can sample items of one interpolation differently) go to one
 * kernel launch, up to 240 (a frame's detections; GM_FIT_WARP's items,
 * which carry their matrices, up to 153); with NVRTC or a driver before
 * CUDA 12.1, up to 29 (18). */
GM_API gm_status gm_preprocess_batch(const gm_mat* srcs, const gm_rect* crops, int count, gm_mat* dst,
                                     const gm_prep* prep, gm_prep_geometry* geometry, gm_stream stream);

/* gm_preprocess of a 4:2:0 frame (gpumat/yuv.h) read as the BGR image
 * cv::cvtColor makes of it (COLOR_YUV2BGR_NV12 and its kin, by the frame's
 * matrix and range: gm_yuv_convert's image), in one pass and without that
 * image: each pixel the resize reads is converted, then interpolated, so
 * the result is gm_yuv_convert followed by gm_preprocess, bit for bit. The
 * crop is in luma pixels (odd ones too); the source channels are B, G, R
 * (prep->swap_rb for RGB; prep->pad in that order). prep->interp is
 * GM_INTER_LINEAR, _NEAREST or _LINEAR_EXACT (AREA's cells can be wide; it
 * is not taken), of GM_FIT_WARP LINEAR or NEAREST. A gray network input is gm_preprocess of frame->y. */
GM_API gm_status gm_preprocess_yuv(const gm_yuv* frame, const gm_rect* crop, gm_mat* dst, const gm_prep* prep,
                                   gm_prep_geometry* geometry, gm_stream stream);

/* gm_preprocess_batch of count frames, item i from frames[i] (one frame,
 * batch 1) and crops[i] (crops NULL: the whole frames), as
 * gm_preprocess_yuv reads them. Frames go to one launch as images do where
 * they also share their layout: format, matrix, range, chroma pitches, and
 * the chroma's offsets from the luma (a decoder's frames do), up to 240
 * (29 before CUDA 12.1; GM_FIT_WARP 153 and 18). */
GM_API gm_status gm_preprocess_yuv_batch(const gm_yuv* frames, const gm_rect* crops, int count, gm_mat* dst,
                                         const gm_prep* prep, gm_prep_geometry* geometry, gm_stream stream);

/* The placement gm_preprocess would make of crop into a dst_width x
 * dst_height image, without running it. */
GM_API gm_status gm_prep_geometry_of(const gm_rect* crop, int64_t dst_width, int64_t dst_height, const gm_prep* prep,
                                     gm_prep_geometry* geometry);

/* A box of the network's output, box[4] = {x0, y0, x1, y1} in destination
 * pixels, in source pixels, as the rule's framework maps it: by
 * geometry->map (gm_prep_box_map, which names each mapping; a letterbox of
 * the ULTRALYTICS rule is ultralytics' scale_boxes, clipped to the crop).
 * box and out may be one array. A geometry that gm_prep_box_map refuses
 * gives NaN coordinates (gm_last_error says why). The name stays, and the
 * meaning is "as the rule's framework maps" (before 0.3 it was always the
 * per-axis inverse, never clipped): a mapping of one's choice is
 * gm_prep_box_map's argument. */
GM_API void gm_prep_box_to_source(const gm_prep_geometry* geometry, const double box[4], double out[4]);

/* A box, as gm_prep_box_to_source takes it, mapped to source pixels by map
 * (gm_box_map) whatever the rule was: GM_BOX_EXACT for the exact inverse of
 * any placement but a warp. box and out may be one array. Returns
 * GM_ERR_ARG (out untouched) for a NULL argument, a map that is not a
 * gm_box_map, a geometry of GM_FIT_WARP, or one of an empty crop or image
 * or of a factor not above 0. */
GM_API gm_status gm_prep_box_map(const gm_prep_geometry* geometry, gm_box_map map, const double box[4],
                                 double out[4]);

/* OpenCV dnn's integer mapping, for parity with
 * Image2BlobParams::blobRectToImageRect: r in destination pixels to the
 * crop's pixels (plus the crop's origin), as OpenCV computes it from the
 * two sizes alone: its float factor and truncating casts, by its letterbox,
 * crop-centre or stretch branch as geometry->fit says, whatever rule
 * placed the crop, truncations included (OpenCV's mapping is reported wrong:
 * opencv #26085). GM_BOX_EXACT (gm_prep_box_map) is the exact inverse. A
 * GM_FIT_WARP geometry has no such mapping: r comes back as given. */
GM_API gm_rect gm_prep_rect_to_source_cv(const gm_prep_geometry* geometry, gm_rect r);

/* What gm_blob_from_image_with_params does: OpenCV's Image2BlobParams
 * without the resize (gm_preprocess resizes). Zero-initialise it ({0}) and
 * set what differs: every zero is a default (no mean, scale 1, channels in
 * their order, the product in float). */
typedef struct gm_blob_params {
    double scale[4];     /* multiplied by, per destination channel in destination order (Image2BlobParams'
                            scalefactor); 0 means 1; with divide, the divisor (std) */
    double mean[4];      /* subtracted first, in destination channel order, in pixel units */
    int swap_rb;         /* destination channel 0 reads source channel 2, and 2 reads 0 (swapRB) */
    int divide;          /* (x - mean) / scale in float, as torchvision's Normalize divides by std */
    gm_blob_arith arith; /* the product's arithmetic, by the OpenCV release to match (table above); not with
                            divide */
} gm_blob_params;

/* cv::dnn::blobFromImageWithParams without resize: dst[c] = (src[c'] -
 * mean[c]) * scale[c] computed as params->arith says, or (src[c'] -
 * mean[c]) / scale[c] in float with params->divide; c' swaps channels 0 and
 * 2 with swap_rb; params NULL: every default. The images are what
 * gm_blob_from_image takes (src interleaved with 1, 3 or 4 channels, dst
 * GM_CHW or GM_HWC of the same size, channels and batch), and the float
 * product gives its bits for the same scale (scalefactor / std there).
 * With divide, src is u8, u16 or f32 and dst u8, f16, bf16 or f32; with
 * GM_BLOB_DOUBLE dst is f32 or f16 (the pre-process's kernel runs both, at
 * equal sizes); the float product takes any dtypes. A mean or scale that
 * is not finite, or divide with GM_BLOB_DOUBLE: GM_ERR_ARG. */
GM_API gm_status gm_blob_from_image_with_params(const gm_mat* src, gm_mat* dst, const gm_blob_params* params,
                                                gm_stream stream);

/* cv::dnn::blobFromImagesWithParams: count images of one size and type
 * (each batch 1) -> the count images of batched dst, as
 * gm_blob_from_image_with_params makes each. */
GM_API gm_status gm_blob_from_images_with_params(const gm_mat* images, int count, gm_mat* dst,
                                                 const gm_blob_params* params, gm_stream stream);

#ifdef __cplusplus
}
#endif

#endif
