/* SPDX-License-Identifier: MIT */
/* Implementation: gpumat/draw.h. */

/* A fill is a transform whose every channel is a constant: it reads no
 * source, so dst stands in for one (the kernel of dtype -> dtype). Each
 * value is stored once here as setTo stores it and read back; that stored
 * value is exact in float and in double, so the constant path, whichever of
 * the two it works in, writes it unchanged. */
static gm_status gm__fill_ops(const gm_mat* dst, const double* value, gm__ops* d)
{
    static const char fn[] = "gm_fill";
    gm_xform x = gm_xform_identity();
    gm__side side;
    unsigned char stored[8];
    int c;
    gm_status s;
    if ((s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (!value)
        return gm__fail(GM_ERR_ARG, "%s: value is NULL", fn);
    for (c = 0; c < dst->channels; ++c) {
        gm__encode_d(dst->dtype, stored, value[c]);
        x.map[c] = GM_CONST;
        x.offset[c] = gm__decode_d(dst->dtype, stored);
    }
    side = gm__side_of(dst);
    d->op[d->n++] = gm__op_of(fn, &side, &side, dst, &x);
    return GM_OK;
}

GM_API gm_status gm_fill(gm_mat* dst, const double* value, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__fill_ops(dst, value, &d), &d, stream);
}
