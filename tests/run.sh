#!/bin/sh
# Runs every test and adds up their "N passed, N failed, N skipped" lines.
# quick runs all but the tests marked `full` below (a GPU, NVRTC compiling
# every kernel, the fuzzers' FUZZ_SECONDS each, the implementation at every
# optimisation level: minutes), whose programs the Makefile's SLOW leaves out
# of `make check`.
# JOBS tests run at once (default: one per core), each shown whole, in order.
# Usage: [JOBS=N] sh tests/run.sh BUILD_DIR [quick]   (`make test`; `make check`: quick)
B=${1:-build}
JOBS=${JOBS:-$(nproc 2> /dev/null || echo 1)}
QUICK=
case ${2-} in
    quick) QUICK=1 ;;
    "") ;;
    *) echo "usage: sh tests/run.sh BUILD_DIR [quick]" >&2; exit 2 ;;
esac
LEFT_OUT=
LOG=$B/test-logs
mkdir -p "$LOG"
P=0 F=0 S=0
STARTED=  # tests started and not shown yet, in list order

# run NAME COMMAND...: starts one test in the background once fewer than JOBS
# run, then shows the finished ones at the head of the list.
run() {
    while [ "$(unfinished)" -ge "$JOBS" ]; do show_finished; nap; done
    name=$1; shift
    rm -f "$LOG/$name.rc"
    { "$@" > "$LOG/$name.log" 2>&1; echo $? > "$LOG/$name.rc.tmp"; mv "$LOG/$name.rc.tmp" "$LOG/$name.rc"; } &
    STARTED="$STARTED $name"
    show_finished
}
unfinished() {
    n=0
    for t in $STARTED; do [ -f "$LOG/$t.rc" ] || n=$((n + 1)); done
    echo $n
}
nap() { sleep 0.1 2> /dev/null || sleep 1; }

# show_finished: shows the tests at the head of the list that have ended.
show_finished() {
    for t in $STARTED; do
        [ -f "$LOG/$t.rc" ] || return 0
        STARTED=${STARTED#" $t"}
        show "$t"
    done
}

# show NAME: a finished test's output, and its summary added to the totals.
show() {
    name=$1
    rc=$(cat "$LOG/$name.rc")
    cat "$LOG/$name.log"
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$LOG/$name.log" | tail -1)
    if [ -z "$line" ]; then
        echo "FAIL $name: exited $rc without a summary line"
        F=$((F + 1)); return
    fi
    p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -E 's/.* ([0-9]+) skipped.*/\1/')
    P=$((P + p)) F=$((F + f)) S=$((S + s))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited $rc"; F=$((F + 1))
    fi
}

# full NAME COMMAND...: a test that quick leaves out.
full() {
    if [ -n "$QUICK" ]; then LEFT_OUT="$LEFT_OUT $1"; else run "$@"; fi
}

# missing NAME WHAT HOW: an oracle that cannot run here fails on CI (.ci/run
# installs it), and is a SKIP elsewhere.
missing() {
    if [ "$CI" = "true" ]; then
        echo "FAIL $1: $2 is missing; CI must install it ($3)"; F=$((F + 1))
    else
        echo "SKIP $1: $2 is not installed here ($3), the comparisons with it did not run"; S=$((S + 1))
    fi
}

# The longest first (as measured on two cores; the GPU tests where there is
# a GPU), so that the last ones to end are short. quick (make
# check) leaves out the `full` ones: among them the ASan builds of jit (its
# NVRTC runs twice as long under ASan), typed and cpu (four times as long),
# whose -O2 builds run the same assertions, cpu_native and cpu_no_avx2 (test_cpu at other flags and
# without the AVX2 loops) and both builds of
# alloc (each a whole compile of the implementation with allocators of its
# own; in make check LeakSanitizer watches the other ASan tests and
# alloc_check.sh finds any allocation that bypasses GM_MALLOC). headers.sh
# and packaging.sh say what their quick modes leave out.
full nvrtc "$B/test_nvrtc"
full gpu "$B/test_gpu"
full contexts "$B/test_contexts"
full faults "$B/test_faults" "$B/libfault_cuda.so"
full streams "$B/test_streams"
full big "$B/test_big"
full fuzz sh tests/fuzz.sh "$B"
full opt_levels sh tests/opt_levels.sh
full aot sh tests/aot_check.sh "$B"
# CUDA's driver needs the address range ASan keeps for its shadow gap.
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 full jit_asan "$B/test_jit_asan"
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 full alloc_asan "$B/test_alloc_asan"
full alloc "$B/test_alloc"
full cpu_native "$B/test_cpu_native"
full cpu_no_avx2 "$B/test_cpu_no_avx2"
full avx2_left_out sh -c 'if nm "$1" | grep -q "_avx2$"; then echo "FAIL GM_NO_CPU_AVX2 left AVX2 loops in $1"; f=1; else f=0; fi
    echo "avx2_left_out: $((1 - f)) passed, $f failed, 0 skipped"; exit $f' sh "$B/gpumat_no_avx2.o"
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 full typed_asan "$B/test_typed_asan"
run headers sh tests/headers.sh ${QUICK:+quick}
run packaging sh tests/packaging.sh "$B" ${QUICK:+quick}
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 full cpu_asan "$B/test_cpu_asan"
if [ -x "$B/oracle" ]; then
    full oracle_cxx "$B/oracle_cxx"
    run oracle "$B/oracle" default
else
    missing oracle "OpenCV 4 (pkg-config opencv4)" "apt-get install libopencv-dev"
fi
for v in $(sh tests/opencv_wheels.sh versions); do
    d=$(sh tests/opencv_wheels.sh dir "$v")
    if [ -f "$d/cv2/__init__.py" ]; then
        run "oracle_pip_$v" env PYTHONPATH="$d" python3 tests/oracle_pip.py "$B/libgpumat.so"
    else
        missing "oracle_pip_$v" "opencv-python-headless $v in $d" "sh tests/opencv_wheels.sh install"
    fi
done
if [ -d "$(sh tests/opencv_wheels.sh tools)" ] && [ -d "$(sh tests/opencv_wheels.sh dir 4.10.0.84)" ]; then
    run python sh tests/python.sh "$B" ${QUICK:+quick}
else
    missing python "pytest and opencv-python-headless 4.10 (tests/opencv_wheels.sh's folders)" \
        "sh tests/opencv_wheels.sh install"
fi
run jit "$B/test_jit"
run no_python sh tests/no_python.sh
run typed_compile sh tests/typed_compile.sh "$B"
run processes "$B/test_processes"
TSAN_OPTIONS=halt_on_error=1 run threads_tsan "$B/test_threads_tsan"
run dlpack_layout sh tests/dlpack_layout.sh "$B"
run cpu "$B/test_cpu"
run generator sh tests/gen_check.sh
run licence sh tests/licence.sh
run args "$B/test_args"
run plan "$B/test_plan"
run pool "$B/test_pool" "$B/libgpumat.so"
run ctx_cache "$B/test_ctx_cache"
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 run args_asan "$B/test_args_asan"
run interop "$B/test_interop"
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 run interop_asan "$B/test_interop_asan"
run typed "$B/test_typed"
run refusals "$B/test_refusals" "$B/libfake_nvrtc.so"
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 run refusals_asan "$B/test_refusals_asan" "$B/libfake_nvrtc.so"
run demo sh tests/demo_check.sh "$B"
run readme sh tests/readme_check.sh "$B"
run examples sh tests/examples.sh "$B"
run alloc_check sh tests/alloc_check.sh
run impl_files sh tests/impl_files.sh
run make_help sh tests/make_help.sh
run families sh tests/families_check.sh
run layers python3 tests/layers_check.py

while [ -n "$STARTED" ]; do show_finished; [ -z "$STARTED" ] || nap; done
wait
[ -z "$LEFT_OUT" ] || echo "quick: left out$LEFT_OUT (make test runs them)"
echo "TOTAL: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
