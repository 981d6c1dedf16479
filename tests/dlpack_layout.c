/* dlpack_layout: gpumat's gm_dl_* structs against a real dlpack.h: every
 * field's offset and size, struct sizes and alignments, the enum and flag
 * values, and an exported tensor read through dlpack.h's types. The versioned
 * structs are checked only where the header has them (DLPack >= 1.0).
 * Built and run by tests/dlpack_layout.sh, which finds the header:
 *   cc -std=c11 -Iinclude -I<dir> -DGM_DLPACK_HEADER='<dlpack/dlpack.h>' tests/dlpack_layout.c -ldl -lpthread -lm */
#include GM_DLPACK_HEADER
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <stddef.h>
#include <stdalign.h>

#define SAME_STRUCT(ours, theirs) \
    CHECK(sizeof(ours) == sizeof(theirs) && alignof(ours) == alignof(theirs), #ours " vs " #theirs ": size or alignment")
#define SAME_FIELD(ours, f_ours, theirs, f_theirs)                                  \
    CHECK(offsetof(ours, f_ours) == offsetof(theirs, f_theirs) &&                   \
              sizeof(((ours*)0)->f_ours) == sizeof(((theirs*)0)->f_theirs),         \
          #ours "." #f_ours " vs " #theirs "." #f_theirs ": offset or size")

static void legacy_structs(void)
{
    SAME_STRUCT(gm_dl_device, DLDevice);
    SAME_FIELD(gm_dl_device, device_type, DLDevice, device_type);
    SAME_FIELD(gm_dl_device, device_id, DLDevice, device_id);
    SAME_STRUCT(gm_dl_dtype, DLDataType);
    SAME_FIELD(gm_dl_dtype, code, DLDataType, code);
    SAME_FIELD(gm_dl_dtype, bits, DLDataType, bits);
    SAME_FIELD(gm_dl_dtype, lanes, DLDataType, lanes);
    SAME_STRUCT(gm_dl_tensor, DLTensor);
    SAME_FIELD(gm_dl_tensor, data, DLTensor, data);
    SAME_FIELD(gm_dl_tensor, device, DLTensor, device);
    SAME_FIELD(gm_dl_tensor, ndim, DLTensor, ndim);
    SAME_FIELD(gm_dl_tensor, dtype, DLTensor, dtype);
    SAME_FIELD(gm_dl_tensor, shape, DLTensor, shape);
    SAME_FIELD(gm_dl_tensor, strides, DLTensor, strides);
    SAME_FIELD(gm_dl_tensor, byte_offset, DLTensor, byte_offset);
    SAME_STRUCT(gm_dl_managed, DLManagedTensor);
    SAME_FIELD(gm_dl_managed, dl_tensor, DLManagedTensor, dl_tensor);
    SAME_FIELD(gm_dl_managed, manager_ctx, DLManagedTensor, manager_ctx);
    SAME_FIELD(gm_dl_managed, deleter, DLManagedTensor, deleter);
    CHECK(GM_DL_CPU == kDLCPU && GM_DL_CUDA == kDLCUDA && GM_DL_CUDA_HOST == kDLCUDAHost, "device type values");
    CHECK(GM_DL_INT == kDLInt && GM_DL_UINT == kDLUInt && GM_DL_FLOAT == kDLFloat && GM_DL_BFLOAT == kDLBfloat,
          "dtype code values");
}

static void versioned_structs(void)
{
#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
    SAME_STRUCT(gm_dl_version, DLPackVersion);
    SAME_FIELD(gm_dl_version, major, DLPackVersion, major);
    SAME_FIELD(gm_dl_version, minor, DLPackVersion, minor);
    SAME_STRUCT(gm_dl_managed_versioned, DLManagedTensorVersioned);
    SAME_FIELD(gm_dl_managed_versioned, version, DLManagedTensorVersioned, version);
    SAME_FIELD(gm_dl_managed_versioned, manager_ctx, DLManagedTensorVersioned, manager_ctx);
    SAME_FIELD(gm_dl_managed_versioned, deleter, DLManagedTensorVersioned, deleter);
    SAME_FIELD(gm_dl_managed_versioned, flags, DLManagedTensorVersioned, flags);
    SAME_FIELD(gm_dl_managed_versioned, dl_tensor, DLManagedTensorVersioned, dl_tensor);
    CHECK(GM_DL_FLAG_READ_ONLY == DLPACK_FLAG_BITMASK_READ_ONLY && GM_DL_FLAG_COPIED == DLPACK_FLAG_BITMASK_IS_COPIED,
          "flag bits");
    CHECK(GM_DL_MAJOR == DLPACK_MAJOR_VERSION, "gpumat speaks DLPack %d, the header is %d", GM_DL_MAJOR,
          DLPACK_MAJOR_VERSION);
#else
    SKIP("DLManagedTensorVersioned: this dlpack.h is older than 1.0 and has no versioned structs");
#endif
}

/* An exported batch read through dlpack.h's own types. */
static void exported_through_theirs(void)
{
    static float px[2 * 3 * 4 * 5];
    gm_mat m;
    gm_dl_managed* ours = NULL;
    const DLManagedTensor* theirs;
    gm_desc d = {5, 4, 3, 2, GM_F32, GM_CHW, 0, 0, 0};
    if (gm_wrap_desc(&m, px, &d, GM_HOST) != GM_OK || gm_to_dlpack_legacy(&m, 0, &ours) != GM_OK) {
        CHECK(0, "export: %s", gm_last_error());
        return;
    }
    theirs = (const DLManagedTensor*)(const void*)ours;
    CHECK(theirs->dl_tensor.ndim == 4 && theirs->dl_tensor.shape[0] == 2 && theirs->dl_tensor.shape[1] == 3 &&
              theirs->dl_tensor.shape[2] == 4 && theirs->dl_tensor.shape[3] == 5,
          "shape through DLTensor");
    CHECK(theirs->dl_tensor.strides[0] == 60 && theirs->dl_tensor.strides[1] == 20 &&
              theirs->dl_tensor.strides[2] == 5 && theirs->dl_tensor.strides[3] == 1,
          "strides through DLTensor");
    CHECK(theirs->dl_tensor.dtype.code == kDLFloat && theirs->dl_tensor.dtype.bits == 32 &&
              theirs->dl_tensor.device.device_type == kDLCPU && theirs->dl_tensor.data == (void*)px,
          "dtype, device and data through DLTensor");
    ours->deleter(ours);
}

int main(void)
{
    printf("dlpack_layout: against %s\n", GM_DLPACK_WHERE);
    legacy_structs();
    versioned_structs();
    exported_through_theirs();
    return t_summary("dlpack_layout");
}
