## gpumat's make targets (only gen, aot, bench and the tests use Python):
##   make               build and run the demo, BUILD/demo (CPU path without a GPU);
##                      make all and make demo do the same
##   make check         the quick tests: no GPU, no NVRTC compile of every kernel,
##                      no fuzzers (tests/run.sh lists what it leaves out)
##   make test          every test; test_nvrtc compiles each kernel (minutes)
##                      (both build and run JOBS at once)
##   make lib           BUILD/libgpumat.a and BUILD/libgpumat.so: the
##                      implementation compiled once, for programs to link
##   make examples      the programs in examples/ and BUILD/libgpumat.so
##   make python        BUILD/libgpumat.so, which python/gpumat loads from the tree
##   make wheel         BUILD/wheel/gpumat-*-py3-none-manylinux_2_17_{x86_64,aarch64}.whl
##                      (needs the ziglang package: sh tests/opencv_wheels.sh install)
##   make install       headers, gpumat.pc and the CMake package into DESTDIR/PREFIX
##   make install-lib   make lib's libraries into DESTDIR/PREFIX/lib
##   make uninstall     remove what make install and install-lib put there
##                      (same PREFIX, DESTDIR)
##   make single        BUILD/gpumat.h: the whole library as one header
##   make gen           regenerate include/gpumat/gen/ from gen/ and templates/,
##                      and python/gpumat/_capi.py from the public headers
##   make fuzz          every libFuzzer harness for FUZZ_SECONDS each (clang)
##   make aot           ahead-of-time kernels for ARCHS into AOT_OUT (NVRTC)
##   make bench         benchmarks and their report into BENCH_OUT (GPU, nvcc)
##   make bench-jit     JIT first-call costs (GPU)
##   make bench-cpu     the CPU path against OpenCV and a naive loop (C++, OpenCV)
##   make bench-python  gpumat's calls from Python against the same from C (GPU)
##   make clean         remove BUILD
##   make help          this list
## Variables (make VAR=value ...):
##   BUILD=build        where everything built goes
##   JOBS               make check/test's jobs at once (default: the cores)
##   PREFIX=/usr/local  install and uninstall root; DESTDIR= stages under it
##   ARCHS=sm_90        make aot's GPU architectures, e.g. "sm_87 sm_90"
##   AOT_KERNELS=all    make aot's kernels: all, used:FILE, name patterns, for:u8:f32:3
##   AOT_OUT            make aot's header (default BUILD/gm_aot.h)
##   FUZZ_SECONDS=60    how long make fuzz (and make test) runs each harness
##   BENCH_OUT=bench    where make bench writes its results
##   CC CXX CFLAGS      compilers and flags (default cc, c++, -O2 -g)
##   AR                 make lib's archiver (default ar)
##   PYTHON=python3     the interpreter of make gen, aot and bench
CC      ?= cc
CXX     ?= c++
PYTHON  ?= python3
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -pedantic
LDLIBS  := -ldl -lpthread -lm
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# make check must stay within three minutes on two cores: it and make test
# build on every core (a -j given wins), and tests/run.sh runs JOBS tests at
# once.
JOBS    ?= $(shell nproc 2> /dev/null || echo 1)
ifneq ($(filter check test,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(JOBS)
endif

GEN     := $(addprefix include/gpumat/gen/,dtypes.h views.h pixel.h catalogue.h kernel_source.h cpu_tables.h)
HEADERS := include/gpumat.h $(wildcard include/gpumat/*.h include/gpumat/impl/*.h) $(GEN)

# The OpenCV oracle is built where OpenCV 4 is installed (.ci/run installs it):
# through pkg-config when libopencv-dev's opencv4.pc is there, else from the
# core/imgproc/dnn -dev packages' headers directly.
CV_HDR  := /usr/include/opencv4/opencv2/dnn.hpp
CV_PC   := $(shell pkg-config --exists opencv4 2>/dev/null && echo yes)
CV_INC  := $(if $(CV_PC),$(patsubst -I%,-isystem %,$(shell pkg-config --cflags opencv4)),-isystem /usr/include/opencv4)
CV_LIBS := $(if $(CV_PC),$(shell pkg-config --libs opencv4),-lopencv_dnn -lopencv_imgproc -lopencv_core)
ORACLE  := $(if $(CV_PC)$(wildcard $(CV_HDR)),$(BUILD)/oracle $(BUILD)/oracle_cxx)

# The tests, by how they get the implementation; adding one is a word here
# and a line in tests/run.sh. LINKED: the public API (test_cpu: and the
# internals of gpumat/impl/internal.h), linked with the implementation
# compiled once (make lib's libgpumat.a; the _asan ones with one ASan object
# of it, test_cpu_native with one of -O3 -march=native, test_cpu_no_avx2
# with one of GM_NO_CPU_AVX2). INTERNAL (and any test not in LINKED): they
# call other gm__ functions, so they include the implementation, compiled
# GPUMAT_STATIC: only what the test calls is compiled (test_refusals 1 s
# instead of 40; test_alloc, with allocators of its own, calls the CPU path
# and so nearly all), and so are their _asan and _tsan (test_threads)
# builds.
LINKED   := args interop typed big streams cpu
INTERNAL := jit plan alloc refusals processes ctx_cache contexts faults nvrtc gpu
TESTS    := $(addprefix $(BUILD)/test_,$(LINKED) $(INTERNAL) pool args_asan interop_asan typed_asan \
                                      cpu_asan jit_asan alloc_asan refusals_asan threads_tsan cpu_native cpu_no_avx2)
TESTS    += $(ORACLE) $(addprefix $(BUILD)/,libfake_nvrtc.so libfault_cuda.so)
# run.sh's quick mode (`make check`) leaves out the tests these build (and
# make aot's, the fuzzers', every optimisation level's: tests/run.sh says).
SLOW     := $(addprefix $(BUILD)/test_,nvrtc gpu contexts faults streams big cpu_native cpu_no_avx2 alloc alloc_asan jit_asan \
                                      typed_asan cpu_asan) \
            $(BUILD)/oracle_cxx
# Sanitizer builds and the test programs keep line tables (-g1, the last -g
# wins), all their reports print: full debug information (-g) cost a third
# of their compile.
ASAN     := -std=c99 -O1 -g1 $(SAN) $(WARN)
TSAN     := -std=c99 -O1 -g1 -fsanitize=thread $(WARN)
TEST_H   := tests/check.h tests/every_op.h tests/sprites.h $(HEADERS)

.PHONY: all demo gen test check clean help lib FORCE
all: demo

help:
	@sed -n 's/^## \{0,1\}//p' $(firstword $(MAKEFILE_LIST))
	@echo "Now: BUILD=$(BUILD) PREFIX=$(PREFIX) ARCHS=$(ARCHS) VERSION=$(VERSION)"

demo: $(BUILD)/demo
	$(BUILD)/demo $(BUILD)

# Generated headers are committed, their banners holding the sha256 of each
# generator input. They are remade only when an input's content changed
# (gen/stale.sh names it): file times mean nothing after a clone, and
# building must not need Python.
GEN_STALE := $(shell sh gen/stale.sh $(GEN))
ifneq ($(GEN_STALE),)
$(GEN) &: FORCE
	@command -v $(PYTHON) > /dev/null 2>&1 || { echo "gpumat: include/gpumat/gen/ is stale ($(GEN_STALE) changed) and $(PYTHON) is not installed: install Python 3 and run 'make gen', or undo the change" >&2; exit 1; }
	$(PYTHON) gen/gen.py
endif
FORCE:

gen:
	$(PYTHON) gen/gen.py
	$(PYTHON) gen/binding.py

$(BUILD):
	mkdir -p $@

# `make lib`: the implementation compiled once, position independent so
# that one object makes both libraries. Its source is the umbrella header
# itself, compiled as C with GPUMAT_IMPLEMENTATION (IMPL_SRC), so no .c file
# stands in for it.
lib: $(BUILD)/libgpumat.a $(BUILD)/libgpumat.so

IMPL_SRC := -DGPUMAT_IMPLEMENTATION -x c include/gpumat.h -x none

$(BUILD)/gpumat.o: $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -fPIC -Iinclude -c $(IMPL_SRC) -o $@

$(BUILD)/libgpumat.a: $(BUILD)/gpumat.o
	rm -f $@ && $(AR) rcs $@ $<

$(BUILD)/libgpumat.so: $(BUILD)/gpumat.o
	$(CC) $(CFLAGS) -shared $< -o $@ $(LDLIBS)

$(BUILD)/gpumat_asan.o: $(HEADERS) | $(BUILD)
	$(CC) $(ASAN) -Iinclude -c $(IMPL_SRC) -o $@

# The CPU path's results must not depend on the user's flags: -O3 and every
# instruction this machine has (FMA included) change nothing (test_cpu_native).
NATIVE   := -std=c99 -O3 -march=native -g1 $(WARN)
$(BUILD)/gpumat_native.o: $(HEADERS) | $(BUILD)
	$(CC) $(NATIVE) -Iinclude -c $(IMPL_SRC) -o $@

# A program whose file defines GPUMAT_IMPLEMENTATION, linked with the
# library instead: GPUMAT_NO_IMPLEMENTATION keeps its file to declarations.
LINK_LIB = $(CC) -std=c99 $(CFLAGS) $(WARN) -DGPUMAT_NO_IMPLEMENTATION -Iinclude $< $(BUILD)/libgpumat.a -o $@ $(LDLIBS)

# `make examples`: the programs in examples/ (tests/examples.sh runs them)
# and the shared library examples/python/ loads (`make python`). The demo,
# what `make` runs, is built as they are.
EXAMPLES := $(addprefix $(BUILD)/,trt_input mask_overlay pipeline wrap_foreign yolo_letterbox classify_crops draw_labels nvdec_batch deepstream_surface align_faces rectify_plate)
.PHONY: examples python wheel
examples: $(EXAMPLES) python
python: $(BUILD)/libgpumat.so

# `make wheel`: python/build_backend.py compiles the implementation for each
# WHEEL_ARCHS with ziglang's cc against glibc 2.17 (tests/opencv_wheels.sh
# installs it into TOOLS), and zips it with python/gpumat.
WHEEL_ARCHS ?= x86_64 aarch64
TOOLS   := $(shell sh tests/opencv_wheels.sh tools)
wheel: $(HEADERS)
	rm -rf $(BUILD)/wheel
	PYTHONPATH=$(TOOLS)$${PYTHONPATH:+:$$PYTHONPATH} $(PYTHON) python/build_backend.py $(BUILD)/wheel $(WHEEL_ARCHS)

# `make bench-python`: bench/python.py against bench/python_peer.c, the same
# calls from C (built by make check and make test too, so that it compiles).
.PHONY: bench-python
bench-python: $(BUILD)/python_peer $(BUILD)/libgpumat.so
	GPUMAT_LIBRARY=$(BUILD)/libgpumat.so $(PYTHON) bench/python.py $(BUILD)/python_peer

$(BUILD)/python_peer: bench/python_peer.c $(HEADERS) $(BUILD)/libgpumat.a
	$(LINK_LIB)

$(BUILD)/demo $(EXAMPLES): $(BUILD)/%: examples/%.c $(HEADERS) $(BUILD)/libgpumat.a
	$(LINK_LIB)

$(addprefix $(BUILD)/test_,$(LINKED)): $(BUILD)/test_%: tests/test_%.c $(TEST_H) $(BUILD)/libgpumat.a
	$(LINK_LIB) -g1

$(addsuffix _asan,$(addprefix $(BUILD)/test_,$(LINKED))): $(BUILD)/test_%_asan: tests/test_%.c $(TEST_H) \
                                                          $(BUILD)/gpumat_asan.o
	$(CC) $(ASAN) -DGPUMAT_NO_IMPLEMENTATION -Iinclude $< $(BUILD)/gpumat_asan.o -o $@ $(LDLIBS)

$(BUILD)/test_cpu_native: tests/test_cpu.c $(TEST_H) $(BUILD)/gpumat_native.o
	$(CC) $(NATIVE) -Iinclude $< $(BUILD)/gpumat_native.o -o $@ $(LDLIBS)

# GM_NO_CPU_AVX2 leaves the AVX2 copies out, and no result changes.
NO_AVX2  := -std=c99 $(CFLAGS) -g1 $(WARN) -DGM_NO_CPU_AVX2
$(BUILD)/gpumat_no_avx2.o: $(HEADERS) | $(BUILD)
	$(CC) $(NO_AVX2) -Iinclude -c $(IMPL_SRC) -o $@

$(BUILD)/test_cpu_no_avx2: tests/test_cpu.c $(TEST_H) $(BUILD)/gpumat_no_avx2.o
	$(CC) $(NO_AVX2) -DGPUMAT_NO_IMPLEMENTATION -Iinclude $< $(BUILD)/gpumat_no_avx2.o -o $@ $(LDLIBS)

# Any other test_X: INTERNAL's rule.
$(BUILD)/test_%: tests/test_%.c $(TEST_H) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) -g1 $(WARN) -DGPUMAT_STATIC -Iinclude $< -o $@ $(LDLIBS)

$(BUILD)/test_%_asan: tests/test_%.c $(TEST_H) | $(BUILD)
	$(CC) $(ASAN) -DGPUMAT_STATIC -Iinclude $< -o $@ $(LDLIBS)

$(BUILD)/test_%_tsan: tests/test_%.c $(TEST_H) | $(BUILD)
	$(CC) $(TSAN) -DGPUMAT_STATIC -Iinclude $< -o $@ $(LDLIBS)

# test_pool opens the shared library itself (dlopen).
$(BUILD)/test_pool: tests/test_pool.c $(TEST_H) $(BUILD)/libgpumat.so
	$(CC) -std=c99 $(CFLAGS) $(WARN) -Iinclude $< -o $@ $(LDLIBS)

# An NVRTC that refuses every program, for test_refusals (GM_NVRTC_PATH).
$(BUILD)/libfake_nvrtc.so: tests/fake_nvrtc.c | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -fPIC -shared $< -o $@

# A CUDA driver that forwards to the real one and fails a chosen call, for
# test_faults (GM_CUDA_PATH).
$(BUILD)/libfault_cuda.so: tests/fault_cuda.c include/gpumat/impl/entry_points.h | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -fPIC -shared -Iinclude $< -o $@ -ldl -lpthread

# The OpenCV oracle links the library; oracle_cxx holds the implementation
# compiled as C++, the one test that runs it so (make test).
$(BUILD)/oracle: tests/oracle.cpp tests/check.h $(HEADERS) $(BUILD)/libgpumat.a
	$(CXX) -std=c++17 -O2 -g1 $(WARN) -DGPUMAT_NO_IMPLEMENTATION -Iinclude $(CV_INC) $< $(BUILD)/libgpumat.a -o $@ \
	    $(CV_LIBS) $(LDLIBS)

$(BUILD)/oracle_cxx: tests/oracle.cpp tests/check.h $(HEADERS) | $(BUILD)
	$(CXX) -std=c++17 -O2 -g1 $(WARN) -Iinclude $(CV_INC) $< -o $@ $(CV_LIBS) $(LDLIBS)

# The two objects of the implementation first: most programs wait for them.
BIG_FIRST := $(BUILD)/gpumat_asan.o $(BUILD)/gpumat.o
test: $(BIG_FIRST) $(TESTS) $(BUILD)/demo $(BUILD)/aot_compile examples $(BUILD)/python_peer
	JOBS=$(JOBS) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/run.sh $(BUILD)

check: $(BIG_FIRST) $(filter-out $(SLOW),$(TESTS)) $(BUILD)/demo examples $(BUILD)/python_peer
	JOBS=$(JOBS) sh tests/run.sh $(BUILD) quick

# `make fuzz`: tests/fuzz.sh builds every tests/fuzz_*.c with clang's
# libFuzzer, ASan and UBSan and runs each for FUZZ_SECONDS from its seed
# corpus in tests/corpus/ (make test runs it too).
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: | $(BUILD)
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz.sh $(BUILD)

# `make aot ARCHS="sm_87 sm_90" AOT_KERNELS=...` writes AOT_OUT: CUBINs for
# ARCHS and PTX for newer GPUs, embedded as arrays. AOT_KERNELS: all,
# used:FILE (from a run with GM_RECORD=FILE), names/patterns such as
# "gm_xform_u8_f32_c3*", or for:SRC:DST:CHANNELS (gm_kernels_for's list). Build with -DGM_AOT_HEADER='"$(AOT_OUT)"', and
# -DGM_NO_NVRTC for a program that never opens NVRTC.
ARCHS       ?= sm_90
AOT_KERNELS ?= all
AOT_OUT     ?= $(BUILD)/gm_aot.h
.PHONY: aot
aot: $(BUILD)/aot_compile
	$(PYTHON) gen/aot.py --compiler $(BUILD)/aot_compile --archs "$(ARCHS)" --kernels "$(AOT_KERNELS)" --out $(AOT_OUT)

$(BUILD)/aot_compile: gen/aot_compile.c $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -DGPUMAT_STATIC -Iinclude $< -o $@ $(LDLIBS)

clean:
	rm -rf $(BUILD)

# `make bench` (GPU machine): bench/bench.cu (gpumat, a naive kernel, NPP when
# the toolkit has it), bench/bench_torch.py (PyTorch eager, torch.compile),
# then bench/report.py writes BENCH_OUT/{results.json,RESULTS.md,results.png}.
# A step that fails still leaves the report of what ran.
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(or $(wildcard $(CUDA_HOME)/bin/nvcc),nvcc)
NVCCFLAGS ?= -O3 -std=c++17 -arch=sm_90
BENCH_OUT ?= bench
NPP_INC   ?= $(CUDA_HOME)/include
NPP_LIB   ?= $(CUDA_HOME)/lib64
NPP_LIBS  := -lnppc -lnppial -lnppicc -lnppidei -lnppif -lnppig -lnppim -lnppist -lnppisu -lnppitc

.PHONY: bench
bench: $(BUILD)/bench
	mkdir -p $(BENCH_OUT)
	./$(BUILD)/bench $(BENCH_OUT)/bench_rows.jsonl || echo "bench: $(BUILD)/bench failed; reporting what it wrote"
	PYTHONUNBUFFERED=1 $(PYTHON) bench/bench_torch.py $(BENCH_OUT)/torch_rows.jsonl || echo "bench: bench_torch.py failed"
	rm -f $(BENCH_OUT)/jit_rows.jsonl
	$(MAKE) bench-jit BENCH_OUT=$(BENCH_OUT) || echo "bench: bench-jit failed"
	$(PYTHON) bench/report.py $(BENCH_OUT) $(BENCH_OUT)/bench_rows.jsonl $(BENCH_OUT)/torch_rows.jsonl \
	    $(BENCH_OUT)/jit_rows.jsonl

# `make bench-cpu`: bench/bench_cpu.cpp, the CPU path against OpenCV (the
# oracle's headers and libraries) and a naive loop, one thread and every
# core; its rows go to BENCH_OUT/bench_cpu_rows.jsonl, the table to stdout.
.PHONY: bench-cpu
bench-cpu: $(BUILD)/bench_cpu
	mkdir -p $(BENCH_OUT)
	./$(BUILD)/bench_cpu $(BENCH_OUT)/bench_cpu_rows.jsonl

$(BUILD)/bench_cpu: bench/bench_cpu.cpp $(HEADERS) | $(BUILD)
	$(CXX) -std=c++17 $(CFLAGS) $(WARN) -Iinclude $(CV_INC) $< -o $@ $(CV_LIBS) $(LDLIBS)

# With NPP when $(NPP_INC)/nppi.h exists and links; else without (-DBENCH_NO_NPP).
$(BUILD)/bench: bench/bench.cu $(HEADERS) | $(BUILD)
	if test -f $(NPP_INC)/nppi.h; then \
	    $(NVCC) $(NVCCFLAGS) -Iinclude -I$(NPP_INC) $< -o $@ -L$(NPP_LIB) -Xlinker -rpath=$(NPP_LIB) \
	        $(NPP_LIBS) -ldl -lpthread && exit 0; \
	    echo "bench: building with NPP failed; building without it"; \
	fi; \
	$(NVCC) $(NVCCFLAGS) -Iinclude -DBENCH_NO_NPP $< -o $@ -ldl -lpthread

# `make install PREFIX=...` (DESTDIR for staging): the headers, gpumat.pc
# (pkg-config) and a CMake package (find_package(gpumat) -> gpumat::gpumat);
# it compiles nothing. `make install-lib`: make lib's two libraries into
# PREFIX/lib, for programs that link -lgpumat instead of holding the
# implementation.
# `make single`: $(BUILD)/gpumat.h, the whole library as one header.
PREFIX  ?= /usr/local
# The version is MAJOR.MINOR.PATCH of include/gpumat.h, as CMakeLists.txt reads it.
VERSION := $(shell awk '$$1 ~ /^.define$$/ { v[$$2] = $$3 } END { print v["GPUMAT_VERSION_MAJOR"] "." v["GPUMAT_VERSION_MINOR"] "." v["GPUMAT_VERSION_PATCH"] }' include/gpumat.h)
INC_DIR := $(DESTDIR)$(PREFIX)/include
PC_DIR  := $(DESTDIR)$(PREFIX)/share/pkgconfig
CM_DIR  := $(DESTDIR)$(PREFIX)/share/cmake/gpumat
LIB_DIR := $(DESTDIR)$(PREFIX)/lib
# One list for install and uninstall, so uninstall removes exactly these.
INSTALLED := $(HEADERS:include/%=$(INC_DIR)/%) $(PC_DIR)/gpumat.pc $(CM_DIR)/gpumatConfig.cmake \
             $(CM_DIR)/gpumatConfigVersion.cmake
LIBS_INSTALLED := $(LIB_DIR)/libgpumat.a $(LIB_DIR)/libgpumat.so

.PHONY: install install-lib uninstall single
install: $(HEADERS)
	install -d $(sort $(dir $(INSTALLED)))
	for f in $(HEADERS:include/%=%); do install -m 644 include/$$f $(INC_DIR)/$$f || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' templates/gpumat.pc.in > $(PC_DIR)/gpumat.pc
	install -m 644 templates/gpumatConfig.cmake $(CM_DIR)
	sed -e 's|@VERSION@|$(VERSION)|' templates/gpumatConfigVersion.cmake.in > $(CM_DIR)/gpumatConfigVersion.cmake

install-lib: lib
	install -d $(LIB_DIR)
	install -m 644 $(BUILD)/libgpumat.a $(LIB_DIR)
	install -m 755 $(BUILD)/libgpumat.so $(LIB_DIR)

# gpumat's own folders go; the shared ones (include, lib, share/pkgconfig,
# ...) only where nothing else is left in them.
uninstall:
	rm -f $(INSTALLED) $(LIBS_INSTALLED)
	rmdir $(INC_DIR)/gpumat/impl $(INC_DIR)/gpumat/gen $(INC_DIR)/gpumat $(CM_DIR) $(DESTDIR)$(PREFIX)/share/cmake \
	    $(PC_DIR) $(INC_DIR) $(LIB_DIR) $(DESTDIR)$(PREFIX)/share 2> /dev/null || :

single: $(BUILD)/gpumat.h

$(BUILD)/gpumat.h: gen/single.sh $(HEADERS) | $(BUILD)
	sh gen/single.sh $(VERSION) $@

# `make bench-jit` (GPU machine): JIT first-call costs (cold NVRTC, disk
# cache in a new process, embedded AOT images for ARCHS) and a cached call's
# host overhead; rows on stdout and in BENCH_OUT/jit_rows.jsonl.
BENCH_JIT_KERNELS := for:u8:f32:3 for:u8:f16:3 for:f32:u8:1 for:u8:u8:4
.PHONY: bench-jit
bench-jit: $(BUILD)/bench_jit $(BUILD)/bench_jit_aot
	mkdir -p $(BENCH_OUT)
	./$(BUILD)/bench_jit $(BENCH_OUT)/jit_rows.jsonl

$(BUILD)/bench_jit: bench/bench_jit.c $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -Iinclude $< -o $@ $(LDLIBS)

$(BUILD)/bench_jit_aot: bench/bench_jit.c $(HEADERS) $(BUILD)/aot_compile
	$(PYTHON) gen/aot.py --compiler $(BUILD)/aot_compile --archs "$(ARCHS)" --kernels "$(BENCH_JIT_KERNELS)" \
	    --out $(BUILD)/bench_jit_aot.h
	$(CC) -std=c99 $(CFLAGS) $(WARN) -DGM_NO_NVRTC -DGM_AOT_HEADER='"$(abspath $(BUILD))/bench_jit_aot.h"' \
	    -Iinclude $< -o $@ $(LDLIBS)
