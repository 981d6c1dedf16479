/* SPDX-License-Identifier: MIT */
/* The warp placement's kernel of 4:2:0 frames (gm_preprocess_yuv with
 * GM_FIT_WARP): templates/prep_warp.cu's, each tap converted to BGR
 * (templates/prep_warp.inc); rows by destination dtype D and sampler I
 * (NEAREST, LINEAR), the frame's layout an argument. */
#define GM__ENTRY_PREP_YUV_WARP(name, S, D, C, LS, LD, P, R, B, I) \
    GM__PREP_ENTRY(name, GM__PREP_WARP_BLOCKS(I), (gm__prep_warp_kernel<GM_U8, D, 3, I, 1>))
