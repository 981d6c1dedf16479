/* SPDX-License-Identifier: MIT */
/* All of gpumat in a shared library, for gpumat.py (ctypes) and other
 * languages' FFIs. Build: make python  (-> build/libgpumat.so) */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
