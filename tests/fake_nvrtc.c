/* SPDX-License-Identifier: MIT */
/* A stand-in for NVRTC (libnvrtc.so) that refuses every program, for the
 * tests of what gpumat does when NVRTC fails (GM_NVRTC_PATH names it):
 * nvrtcCompileProgram returns FAKE_NVRTC_RC from the environment
 * (NVRTC_ERROR_COMPILATION, 6, by default) with a log, and counts its calls
 * in fake_nvrtc_compiles. Knows sm_75 to sm_90. Built as a shared library
 * by the Makefile; links nothing. */
#include <stdlib.h>
#include <string.h>

int fake_nvrtc_compiles;

static const char fake_log[] = "fake NVRTC: refused";

int nvrtcVersion(int* major, int* minor)
{
    *major = 12, *minor = 0;
    return 0;
}

const char* nvrtcGetErrorString(int rc) { return rc == 6 ? "NVRTC_ERROR_COMPILATION" : "NVRTC_ERROR (fake)"; }

int nvrtcCreateProgram(void** prog, const char* src, const char* name, int n, const char* const* headers,
                       const char* const* includes)
{
    (void)src, (void)name, (void)n, (void)headers, (void)includes;
    *prog = malloc(1);
    return *prog ? 0 : 1;
}

int nvrtcDestroyProgram(void** prog)
{
    free(*prog);
    *prog = NULL;
    return 0;
}

int nvrtcCompileProgram(void* prog, int n, const char* const* options)
{
    const char* rc = getenv("FAKE_NVRTC_RC");
    (void)prog, (void)n, (void)options;
    ++fake_nvrtc_compiles;
    return rc ? atoi(rc) : 6;
}

int nvrtcGetProgramLogSize(void* prog, size_t* size)
{
    (void)prog;
    *size = sizeof fake_log;
    return 0;
}

int nvrtcGetProgramLog(void* prog, char* log)
{
    (void)prog;
    memcpy(log, fake_log, sizeof fake_log);
    return 0;
}

/* Never reached: every compile fails. */
int nvrtcGetCUBINSize(void* prog, size_t* size) { return (void)prog, (void)size, 7; }
int nvrtcGetCUBIN(void* prog, char* out) { return (void)prog, (void)out, 7; }
int nvrtcGetPTXSize(void* prog, size_t* size) { return (void)prog, (void)size, 7; }
int nvrtcGetPTX(void* prog, char* out) { return (void)prog, (void)out, 7; }

int nvrtcGetNumSupportedArchs(int* n)
{
    *n = 4;
    return 0;
}

int nvrtcGetSupportedArchs(int* archs)
{
    archs[0] = 75, archs[1] = 80, archs[2] = 86, archs[3] = 90;
    return 0;
}
