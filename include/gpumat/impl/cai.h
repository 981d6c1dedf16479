/* SPDX-License-Identifier: MIT */
/* Implementation: the CUDA array interface description of an image. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

GM_API gm_status gm_cai_describe(const gm_mat* m, int read_only, gm_cai* out)
{
    static const char fn[] = "gm_cai_describe";
    static const char kinds[] = {'i', 'u', 'f'}; /* numpy kind by DLPack code (int, uint, float) */
    size_t es;
    gm_status s;
    if (!out)
        return gm__fail(GM_ERR_ARG, "%s: out is NULL", fn);
    memset(out, 0, sizeof *out);
    if ((s = gm__check(fn, "m", m)) != GM_OK)
        return s;
    if (m->where == GM_HOST)
        return gm__fail(GM_ERR_LOCATION, "%s: m is pageable host memory, which CUDA cannot address "
                        "(numpy's __array_interface__ describes it)", fn);
    if (gm__dl_codes[m->dtype] == GM_DL_BFLOAT)
        return gm__fail(GM_ERR_TYPE, "%s: m->dtype is bf16, which has no numpy typestr", fn);
    es = gm_dtype_size(m->dtype);
    out->ndim = gm__dims(m, out->shape, out->strides);
    out->typestr[0] = es == 1 ? '|' : '<'; /* CUDA devices are little-endian */
    out->typestr[1] = kinds[gm__dl_codes[m->dtype]];
    out->typestr[2] = (char)('0' + es);     /* 1, 2, 4 or 8 */
    out->data = (uintptr_t)m->data;
    out->read_only = read_only != 0;
    out->version = 3;
    return GM_OK;
}
