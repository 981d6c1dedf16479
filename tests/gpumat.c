/* SPDX-License-Identifier: MIT */
/* The implementation in a file of its own, as a project of several files
 * compiles it: the tests that call the public API alone link it (the
 * Makefile's PUBLIC_TESTS), so that it is compiled once for them, not once
 * a test. */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
