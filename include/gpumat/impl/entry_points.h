/* SPDX-License-Identifier: MIT */
/* Implementation: the entry points gpumat opens in the CUDA driver and in
 * NVRTC, as lists X(T, name, symbol, need, return type, parameter types):
 * the loader (loader.h) makes its tables from them, and the test driver
 * tests/fault_cuda.c its forwarding functions. The types are loader.h's. */

enum { GM__OPTIONAL, GM__REQUIRED };
#define GM__DRIVER_LIST(X, T)                                                                                          \
    X(T, cuInit, cuInit, GM__REQUIRED, int, (unsigned int))                                                            \
    X(T, cuDriverGetVersion, cuDriverGetVersion, GM__REQUIRED, int, (int*))                                            \
    X(T, cuGetErrorName, cuGetErrorName, GM__REQUIRED, int, (gm__CUresult, const char**))                              \
    X(T, cuDeviceGetCount, cuDeviceGetCount, GM__REQUIRED, int, (int*))                                                \
    X(T, cuDeviceGet, cuDeviceGet, GM__REQUIRED, int, (gm__CUdevice*, int))                                            \
    X(T, cuDeviceGetAttribute, cuDeviceGetAttribute, GM__REQUIRED, int, (int*, int, gm__CUdevice))                     \
    X(T, cuDeviceGetName, cuDeviceGetName, GM__REQUIRED, int, (char*, int, gm__CUdevice))                              \
    X(T, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, GM__REQUIRED, int, (gm__CUcontext*, gm__CUdevice))        \
    X(T, cuCtxGetCurrent, cuCtxGetCurrent, GM__REQUIRED, int, (gm__CUcontext*))                                        \
    X(T, cuCtxSetCurrent, cuCtxSetCurrent, GM__REQUIRED, int, (gm__CUcontext))                                         \
    X(T, cuCtxGetDevice, cuCtxGetDevice, GM__REQUIRED, int, (gm__CUdevice*))                                           \
    X(T, cuCtxGetApiVersion, cuCtxGetApiVersion, GM__REQUIRED, int, (gm__CUcontext, unsigned int*))                    \
    X(T, cuMemAlloc, cuMemAlloc_v2, GM__REQUIRED, int, (gm__CUdeviceptr*, size_t))                                     \
    X(T, cuMemFree, cuMemFree_v2, GM__REQUIRED, int, (gm__CUdeviceptr))                                                \
    X(T, cuMemHostAlloc, cuMemHostAlloc, GM__REQUIRED, int, (void**, size_t, unsigned int))                            \
    X(T, cuMemFreeHost, cuMemFreeHost, GM__REQUIRED, int, (void*))                                                     \
    X(T, cuMemcpy2DAsync, cuMemcpy2DAsync_v2, GM__REQUIRED, int, (const gm__memcpy2d*, gm_stream))                     \
    X(T, cuPointerGetAttribute, cuPointerGetAttribute, GM__REQUIRED, int, (void*, int, gm__CUdeviceptr))               \
    X(T, cuStreamSynchronize, cuStreamSynchronize, GM__REQUIRED, int, (gm_stream))                                     \
    X(T, cuEventCreate, cuEventCreate, GM__REQUIRED, int, (gm__CUevent*, unsigned int))                                \
    X(T, cuEventRecord, cuEventRecord, GM__REQUIRED, int, (gm__CUevent, gm_stream))                                    \
    X(T, cuEventSynchronize, cuEventSynchronize, GM__REQUIRED, int, (gm__CUevent))                                     \
    X(T, cuEventDestroy, cuEventDestroy_v2, GM__REQUIRED, int, (gm__CUevent))                                          \
    X(T, cuModuleLoadData, cuModuleLoadData, GM__REQUIRED, int, (gm__CUmodule*, const void*))                          \
    X(T, cuModuleGetFunction, cuModuleGetFunction, GM__REQUIRED, int, (gm__CUfunction*, gm__CUmodule, const char*))    \
    X(T, cuModuleUnload, cuModuleUnload, GM__REQUIRED, int, (gm__CUmodule))                                            \
    X(T, cuFuncGetAttribute, cuFuncGetAttribute, GM__REQUIRED, int, (int*, int, gm__CUfunction))                       \
    X(T, cuOccupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxActiveBlocksPerMultiprocessor, GM__REQUIRED, int,  \
      (int*, gm__CUfunction, int, size_t))                                                                             \
    X(T, cuLaunchKernel, cuLaunchKernel, GM__REQUIRED, int,                                                            \
      (gm__CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, gm_stream, void**,        \
       void**))                                                                                                        \
    /* drivers before CUDA 12.8 lack these: gm_copy_many then copies a pair at a time; 12.x's takes a                  \
     * failing index that 13.0's _v2 dropped */                                                                        \
    X(T, cuMemcpy3DBatchAsync, cuMemcpy3DBatchAsync_v2, GM__OPTIONAL, int,                                             \
      (size_t, gm__memcpy_batch_op*, unsigned long long, gm_stream))                                                   \
    X(T, cuMemcpy3DBatchAsync_v1, cuMemcpy3DBatchAsync, GM__OPTIONAL, int,                                             \
      (size_t, gm__memcpy_batch_op*, size_t*, unsigned long long, gm_stream))                                          \
    /* drivers before CUDA 12.0 lack it: a context is then known by its address (impl/context.h) */                    \
    X(T, cuCtxGetId, cuCtxGetId, GM__OPTIONAL, int, (gm__CUcontext, unsigned long long*))                              \
    /* drivers before CUDA 11.0 lack it: gm_release_context then leaves the modules loaded */                          \
    X(T, cuFuncGetModule, cuFuncGetModule, GM__OPTIONAL, int, (gm__CUmodule*, gm__CUfunction))                         \
    /* drivers before CUDA 11.8 lack it: launches then go without the attribute */                                     \
    X(T, cuLaunchKernelEx, cuLaunchKernelEx, GM__OPTIONAL, int,                                                        \
      (const gm__launch_config*, gm__CUfunction, void**, void**))

/* GM_NO_NVRTC builds (ahead-of-time images only) must not even name NVRTC. */
#ifdef GM_NO_NVRTC
#define GM__NVRTC_LIST(X, T)
#else
#define GM__NVRTC_LIST(X, T)                                                                                           \
    X(T, nvrtcVersion, nvrtcVersion, GM__REQUIRED, int, (int*, int*))                                                  \
    X(T, nvrtcGetErrorString, nvrtcGetErrorString, GM__REQUIRED, const char*, (int))                                   \
    X(T, nvrtcCreateProgram, nvrtcCreateProgram, GM__REQUIRED, int,                                                    \
      (gm__nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*))                      \
    X(T, nvrtcDestroyProgram, nvrtcDestroyProgram, GM__REQUIRED, int, (gm__nvrtcProgram*))                             \
    X(T, nvrtcCompileProgram, nvrtcCompileProgram, GM__REQUIRED, int, (gm__nvrtcProgram, int, const char* const*))     \
    X(T, nvrtcGetProgramLogSize, nvrtcGetProgramLogSize, GM__REQUIRED, int, (gm__nvrtcProgram, size_t*))               \
    X(T, nvrtcGetProgramLog, nvrtcGetProgramLog, GM__REQUIRED, int, (gm__nvrtcProgram, char*))                         \
    X(T, nvrtcGetCUBINSize, nvrtcGetCUBINSize, GM__REQUIRED, int, (gm__nvrtcProgram, size_t*))                         \
    X(T, nvrtcGetCUBIN, nvrtcGetCUBIN, GM__REQUIRED, int, (gm__nvrtcProgram, char*))                                   \
    X(T, nvrtcGetPTXSize, nvrtcGetPTXSize, GM__REQUIRED, int, (gm__nvrtcProgram, size_t*))                             \
    X(T, nvrtcGetPTX, nvrtcGetPTX, GM__REQUIRED, int, (gm__nvrtcProgram, char*))                                       \
    X(T, nvrtcGetNumSupportedArchs, nvrtcGetNumSupportedArchs, GM__REQUIRED, int, (int*))                              \
    X(T, nvrtcGetSupportedArchs, nvrtcGetSupportedArchs, GM__REQUIRED, int, (int*))
#endif
