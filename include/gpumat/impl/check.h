/* SPDX-License-Identifier: MIT */
/* Implementation: descriptor arithmetic (overflow-checked) and the checks
 * every function makes of the descriptors it is given. */

#include <stdint.h>
#include <stdio.h>

static int gm__mul(int64_t a, int64_t b, int64_t* r)
{
    if (a < 0 || b < 0 || (b != 0 && a > INT64_MAX / b))
        return 0;
    *r = a * b;
    return 1;
}

static int gm__add(int64_t a, int64_t b, int64_t* r)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b)
        return 0;
    *r = a + b;
    return 1;
}

/* Bytes between horizontally adjacent pixels of one channel. */
static int64_t gm__xstride(const gm_mat* m)
{
    return (int64_t)gm_dtype_size(m->dtype) * (m->layout == GM_HWC ? m->channels : 1);
}

/* Bytes of a row's pixels, -1 on overflow (a bad descriptor). */
static int64_t gm__row_bytes(const gm_mat* m)
{
    int64_t r;
    return gm__mul(m->width, gm__xstride(m), &r) ? r : -1;
}

/* Offset of the last byte + 1, or -1 on overflow. Every term is non-negative,
 * so the last element is at the sum of the largest index times each stride. */
static int64_t gm__span(const gm_mat* m)
{
    int64_t t, span;
    if (!gm__mul(m->width, gm__xstride(m), &span) || !gm__mul(m->height - 1, m->pitch, &t) ||
        !gm__add(span, t, &span))
        return -1;
    if (m->layout == GM_CHW && (!gm__mul(m->channels - 1, m->plane_pitch, &t) || !gm__add(span, t, &span)))
        return -1;
    if (!gm__mul(m->batch - 1, m->batch_pitch, &t) || !gm__add(span, t, &span))
        return -1;
    return span;
}

/* The fields of a descriptor, before any size arithmetic relies on them.
 * Messages name the descriptor as arg ("src") and its fields with the prefix
 * pre ("src->pitch"; just "pitch" where the user passed them as parameters). */
static gm_status gm__check_fields(const char* fn, const char* arg, const char* pre, const gm_mat* m)
{
    if (!m)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, arg);
    if ((unsigned)m->dtype >= GM_DTYPE_COUNT)
        return gm__fail(GM_ERR_TYPE, "%s: %sdtype %d is not a gm_dtype", fn, pre, (int)m->dtype);
    if (m->channels < 1 || m->channels > 4)
        return gm__fail(GM_ERR_TYPE, "%s: %schannels %d is outside 1..4", fn, pre, (int)m->channels);
    if (m->layout != GM_HWC && m->layout != GM_CHW)
        return gm__fail(GM_ERR_TYPE, "%s: %slayout %d is not a gm_layout", fn, pre, (int)m->layout);
    if (m->where != GM_HOST && m->where != GM_PINNED && m->where != GM_DEVICE)
        return gm__fail(GM_ERR_ARG, "%s: %swhere %d is not GM_HOST, GM_PINNED or GM_DEVICE", fn, pre, (int)m->where);
    if (m->width <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %swidth %lld is not positive", fn, pre, (long long)m->width);
    if (m->height <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %sheight %lld is not positive", fn, pre, (long long)m->height);
    if (m->batch <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %sbatch %d is not positive", fn, pre, (int)m->batch);
    return GM_OK;
}

/* Everything gpumat relies on about one descriptor but its data pointer;
 * arg and pre as for gm__check_fields. */
static gm_status gm__check_layout(const char* fn, const char* arg, const char* pre, const gm_mat* m)
{
    int64_t es, row, image, t;
    gm_status s = gm__check_fields(fn, arg, pre, m);
    if (s != GM_OK)
        return s;
    es = (int64_t)gm_dtype_size(m->dtype);
    if (!gm__mul(m->width, gm__xstride(m), &row))
        return gm__fail(GM_ERR_SIZE, "%s: %swidth %lld overflows a row", fn, pre, (long long)m->width);
    if (m->pitch < row)
        return gm__fail(GM_ERR_SIZE, "%s: %spitch %lld is less than a row (%lld bytes)", fn, pre, (long long)m->pitch,
                        (long long)row);
    if (m->pitch % es)
        return gm__fail(GM_ERR_SIZE, "%s: %spitch %lld is not a multiple of the %lld-byte %s element", fn, pre,
                        (long long)m->pitch, (long long)es, gm_dtype_name(m->dtype));
    if (!gm__mul(m->height - 1, m->pitch, &image) || !gm__add(image, row, &image))
        return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    if (m->layout == GM_CHW && m->channels > 1) {
        /* planes one after the other, or rows of all planes side by side */
        int planes_apart = m->plane_pitch >= image;
        int rows_apart = m->plane_pitch >= row && m->pitch / m->channels >= m->plane_pitch;
        if (m->plane_pitch % es || !(planes_apart || rows_apart))
            return gm__fail(GM_ERR_SIZE, "%s: %splane_pitch %lld makes planes overlap", fn, pre,
                            (long long)m->plane_pitch);
        if (!gm__mul(m->channels - 1, m->plane_pitch, &t) || !gm__add(image, t, &image))
            return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    }
    if (m->batch > 1 && (m->batch_pitch < image || m->batch_pitch % es))
        return gm__fail(GM_ERR_SIZE, "%s: %sbatch_pitch %lld is less than one image (%lld bytes)", fn, pre,
                        (long long)m->batch_pitch, (long long)image);
    if (gm__span(m) < 0)
        return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    return GM_OK;
}

/* The data pointer of a descriptor, named data in messages. */
static gm_status gm__check_data(const char* fn, const char* data, const gm_mat* m)
{
    int64_t es = (int64_t)gm_dtype_size(m->dtype);
    if (!m->data)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, data);
    if ((uintptr_t)m->data % (uintptr_t)es)
        return gm__fail(GM_ERR_ARG, "%s: %s %p is not aligned to its %lld-byte %s elements", fn, data, m->data,
                        (long long)es, gm_dtype_name(m->dtype));
    return GM_OK;
}

/* Everything gpumat relies on about one descriptor; arg names it in messages. */
static gm_status gm__check(const char* fn, const char* arg, const gm_mat* m)
{
    char pre[64], data[72];
    gm_status s;
    /* The checks do nothing but fail, so the names are formatted only for a
     * descriptor that fails, checked again to name it: a call with many
     * descriptors (an overlay's sprites) would spend more on names than on
     * its work. */
    if (gm__check_layout(fn, arg, "", m) == GM_OK && gm__check_data(fn, "data", m) == GM_OK)
        return GM_OK;
    snprintf(pre, sizeof pre, "%s->", arg);
    snprintf(data, sizeof data, "%sdata", pre);
    if ((s = gm__check_layout(fn, arg, pre, m)) != GM_OK)
        return s;
    return gm__check_data(fn, data, m);
}


static int gm__on_host(const gm_mat* m) { return m->where != GM_DEVICE; }
