/* SPDX-License-Identifier: MIT */
/* The pre-process kernel with the product in double (GM_BLOB_DOUBLE,
 * gpumat/prep.h: OpenCV 4.8-4.10's blobFromImage): templates/prep.cu's
 * kernel, every path of it, with A = 1. Rows of their own (gen/model.py,
 * PREP_DOUBLE_DST), so that the float rows compile as they did and the
 * double ones only where a launch asks for one; the blocks a
 * multiprocessor as the float row's. */
#define GM__ENTRY_PREP_DOUBLE(name, S, D, C, LS, LD, P, R, B, I) \
    GM__PREP_ENTRY(name, (gm__has_tiles<S, I>() ? 3 : 4), (gm__prep<S, D, C, I, 1>))
