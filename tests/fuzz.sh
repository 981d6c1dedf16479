#!/bin/sh
# Runs every libFuzzer harness tests/fuzz_*.c for FUZZ_SECONDS each (default
# 60), built with clang -fsanitize=fuzzer,address,undefined, starting from its
# seed corpus tests/corpus/<name>/ (copied: new inputs stay out of the tree).
# A crash or a sanitizer report fails the harness; the input that caused it
# is kept in BUILD/fuzz-<name>/ (add it to the corpus once fixed). Without
# clang it says SKIP (CI installs clang: there it is a failure).
# Usage: [FUZZ_SECONDS=N] sh tests/fuzz.sh BUILD   (`make fuzz`; part of `make test`)
B=${1:-build}
SECONDS_EACH=${FUZZ_SECONDS:-60}
P=0 F=0 S=0
if ! command -v clang > /dev/null 2>&1; then
    if [ "$CI" = "true" ]; then echo "FAIL fuzz: clang is missing on CI"; F=1
    else echo "SKIP fuzz: no clang here (apt install clang)"; S=1; fi
    echo "fuzz: $P passed, $F failed, $S skipped"
    [ "$F" -eq 0 ]; exit
fi
for src in tests/fuzz_*.c; do
    name=$(basename "$src" .c)
    out=$B/$name
    work=$B/fuzz-${name#fuzz_}
    rm -rf "$work" && mkdir -p "$work/corpus"
    [ -d "tests/corpus/${name#fuzz_}" ] && cp tests/corpus/"${name#fuzz_}"/* "$work/corpus/" 2> /dev/null
    # GPUMAT_STATIC: only what the harness calls is compiled (fuzz_cache 0.8
    # CPU-s instead of 94; fuzz_desc calls nearly all of it)
    if ! clang -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror \
        -DGPUMAT_STATIC -Iinclude "$src" -o "$out" -ldl -lpthread -lm > "$work/build.log" 2>&1; then
        echo "FAIL $name: does not build:"; cat "$work/build.log"; F=$((F + 1)); continue
    fi
    if (cd "$work" && ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 "../$name" -max_total_time="$SECONDS_EACH" \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 corpus > run.log 2>&1); then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/run.log")
        echo "PASS $name: $runs inputs in ${SECONDS_EACH} s, no crash, no sanitizer report"; P=$((P + 1))
    else
        echo "FAIL $name: see $work/run.log and the crash input there:"; grep -E "ERROR|SUMMARY|crash-" "$work/run.log" | head -5
        F=$((F + 1))
    fi
done
echo "fuzz: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
