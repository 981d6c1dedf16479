/* SPDX-License-Identifier: MIT */
/* gpumat/interop.h: zero-copy exchange with other libraries: DLPack (torch,
 * CuPy, TensorRT glue, ONNX Runtime, JAX) and the CUDA array interface.
 *
 * The gm_dl_* structs have the memory layout of dlpack.h's (DLPack 1.x; the
 * legacy DLManagedTensor of 0.x as well), so a pointer to one can be passed
 * where the other is expected; gpumat does not need dlpack.h. Shapes use
 * DLPack's conventions: an image is (H, W, C) or (C, H, W), a batch (N, H, W,
 * C) or (N, C, H, W), a 2-D (H, W) tensor is one channel; strides count
 * elements, not bytes. */
#ifndef GPUMAT_INTEROP_H
#define GPUMAT_INTEROP_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLDeviceType values gpumat understands (memory it can describe). */
#define GM_DL_CPU 1       /* kDLCPU: pageable host memory, GM_HOST */
#define GM_DL_CUDA 2      /* kDLCUDA: device memory, GM_DEVICE */
#define GM_DL_CUDA_HOST 3 /* kDLCUDAHost: pinned host memory, GM_PINNED */

/* DLDataTypeCode values gpumat understands. */
#define GM_DL_INT 0
#define GM_DL_UINT 1
#define GM_DL_FLOAT 2
#define GM_DL_BFLOAT 4

/* DLManagedTensorVersioned.flags bits. */
#define GM_DL_FLAG_READ_ONLY 1u /* DLPACK_FLAG_BITMASK_READ_ONLY */
#define GM_DL_FLAG_COPIED 2u    /* DLPACK_FLAG_BITMASK_IS_COPIED */

/* The DLPack ABI gpumat's versioned export declares and its import accepts
 * (any minor of this major). */
#define GM_DL_MAJOR 1
#define GM_DL_MINOR 0

typedef struct gm_dl_version { /* DLPackVersion */
    uint32_t major, minor;
} gm_dl_version;

typedef struct gm_dl_device { /* DLDevice */
    int32_t device_type;      /* GM_DL_CPU, GM_DL_CUDA, GM_DL_CUDA_HOST, ... */
    int32_t device_id;        /* CUDA ordinal; 0 for host memory */
} gm_dl_device;

typedef struct gm_dl_dtype { /* DLDataType */
    uint8_t code;            /* GM_DL_INT, GM_DL_UINT, GM_DL_FLOAT, GM_DL_BFLOAT */
    uint8_t bits;
    uint16_t lanes;          /* 1 */
} gm_dl_dtype;

typedef struct gm_dl_tensor { /* DLTensor */
    void* data;
    gm_dl_device device;
    int32_t ndim;
    gm_dl_dtype dtype;
    int64_t* shape;   /* ndim sizes, outermost first */
    int64_t* strides; /* ndim strides in elements; NULL: compact, row-major */
    uint64_t byte_offset;
} gm_dl_tensor;

typedef struct gm_dl_managed { /* DLManagedTensor (legacy, DLPack 0.x) */
    gm_dl_tensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(struct gm_dl_managed* self);
} gm_dl_managed;

typedef struct gm_dl_managed_versioned { /* DLManagedTensorVersioned (DLPack 1.x) */
    gm_dl_version version;
    void* manager_ctx;
    void (*deleter)(struct gm_dl_managed_versioned* self);
    uint64_t flags; /* GM_DL_FLAG_* */
    gm_dl_tensor dl_tensor;
} gm_dl_managed_versioned;

/* Options of gm_to_dlpack / gm_to_dlpack_legacy, or-ed together. */
#define GM_DL_EXPORT_READ_ONLY 1u /* mark the tensor read-only (versioned export only) */
#define GM_DL_EXPORT_MOVE 2u      /* the tensor takes m's allocation: its deleter frees it and
                                     *m is left a view (m must own its memory) */

/* Describes m (an image, a batch or a view) as a DLPack tensor without
 * copying: shape (H, W, C) for GM_HWC, (C, H, W) for GM_CHW, with a leading N
 * when m->batch > 1; pitches become element strides (gpumat pitches are
 * always whole elements, so every valid gm_mat can be exported); device
 * kDLCUDA, kDLCUDAHost or kDLCPU from m->where. *out is allocated; calling
 * its deleter once frees it, and frees the image only with
 * GM_DL_EXPORT_MOVE. Without MOVE the memory must outlive the tensor.
 * Bad m, NULL out or unknown flags: a status, *out NULL. */
GM_API gm_status gm_to_dlpack(gm_mat* m, unsigned flags, gm_dl_managed_versioned** out);

/* The same as a legacy DLManagedTensor (what torch.utils.dlpack.from_dlpack
 * and CuPy's fromDlpack take in a "dltensor" capsule). It has no flags:
 * GM_DL_EXPORT_READ_ONLY is GM_ERR_ARG. */
GM_API gm_status gm_to_dlpack_legacy(gm_mat* m, unsigned flags, gm_dl_managed** out);

/* Describes a DLPack tensor as a gm_mat view (nothing copied, nothing owned;
 * the tensor's owner keeps the memory alive and calls its deleter after the
 * view's last use). order says how the shape is ordered: GM_HWC for (H, W,
 * C) / (N, H, W, C), GM_CHW for (C, H, W) / (N, C, H, W); 2-D (H, W) is one
 * channel either way. The strides decide m's memory layout: channels
 * adjacent (stride 1, pixels C apart) give GM_HWC, pixels adjacent give
 * GM_CHW, so torch's channels_last (N, C, H, W) tensors import as
 * interleaved. byte_offset is added to data. For a legacy DLManagedTensor
 * pass &t->dl_tensor.
 * Refused with a status and a message naming the field: ndim outside 2..4,
 * channels outside 1..4, empty or negative sizes, negative strides, pixels
 * that are neither C nor 1 element apart, rows, planes or images that
 * overlap, dtypes gpumat lacks (lanes != 1, bool, complex, fp8, u32, ...),
 * devices other than CPU, CUDA and CUDA host, and for kDLCUDA memory the
 * driver does not know as device memory on device_id (GM_ERR_LOCATION). */
GM_API gm_status gm_from_dlpack(gm_mat* m, const gm_dl_tensor* t, gm_layout order);

/* gm_from_dlpack for a DLPack 1.x managed tensor: refuses another major
 * version (GM_ERR_ARG; the caller should still call its deleter), and a
 * read-only tensor when writable is non-zero. */
GM_API gm_status gm_from_dlpack_versioned(gm_mat* m, const gm_dl_managed_versioned* t, gm_layout order,
                                          int writable);

/* The fields of Python's __cuda_array_interface__ (version 3) for an image:
 * shape and strides as gm_to_dlpack orders them but strides in bytes, a
 * numpy typestr ("|u1", "<i2", "<f4", "<f2", ...), the data pointer and
 * read-only flag. No stream is named: synchronise before handing it over. */
typedef struct gm_cai {
    int32_t ndim;
    int64_t shape[4];
    int64_t strides[4]; /* bytes */
    char typestr[4];    /* NUL-terminated */
    uintptr_t data;
    int32_t read_only;
    int32_t version;    /* 3 */
} gm_cai;

/* Fills *out from m, which must be GPU-accessible (GM_DEVICE or GM_PINNED;
 * GM_ERR_LOCATION for pageable host memory) and not bf16 (numpy has no
 * bf16 typestr: GM_ERR_TYPE). */
GM_API gm_status gm_cai_describe(const gm_mat* m, int read_only, gm_cai* out);

#ifdef __cplusplus
}
#endif

#endif
