/* SPDX-License-Identifier: MIT */
/* The implementation in a .c file of its own, as a program of several files
 * should keep it: it is the one compile that costs (the README's "make lib"
 * gives the figures), made once. `make lib` builds it (-fPIC) into
 * build/libgpumat.a and build/libgpumat.so; the demo, the examples, the
 * Python bindings and the tests that call the public API alone link it. */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
