/* SPDX-License-Identifier: MIT */
/* The pre-process kernel of 4:2:0 frames with the product in double
 * (GM_BLOB_DOUBLE): templates/prep_yuv.cu's kernel with A = 1, in rows of
 * their own as templates/prep_double.cu's. */
#define GM__ENTRY_PREP_YUV_DOUBLE(name, S, D, C, LS, LD, P, R, B, I) \
    GM__PREP_ENTRY(name, GM__PREP_YUV_BLOCKS(I), (gm__prep_yuv<D, I, 1>))
