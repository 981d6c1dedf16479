/* SPDX-License-Identifier: MIT */
/* The implementation and one call of it: what tests/headers.sh and
 * tests/opt_levels.sh compile in each language, mode and level. */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
int main(void) { gm_mat m; return gm_alloc_host(&m, 3, 2, GM_U8, 3, GM_HWC, 0) == GM_OK ? (gm_free(&m), 0) : 1; }
