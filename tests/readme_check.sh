#!/bin/sh
# Compiles and runs the C programs in README.md, so the README cannot drift
# from the API. What is compiled:
#   - every ```c block that contains `int main`, as it is;
#   - every ```c block after a line `<!-- readme-check: main-body -->`, put
#     into `int main(void) { ... return 0; }` after the block marked
#     `<!-- readme-check: prelude -->` (the Quick start's file header); its
#     output must say which path ran ("GPU path" or "CPU path").
# A marker line must be followed (blank lines aside) by a ```c block.
# Each program: gcc -std=c99 -O2 -Wall -Wextra -Werror -pedantic (the flags
# the Quick start gives; and -std=c11, where the typed layer checks view
# types with _Generic), then run; it must exit 0 (without a GPU it runs the
# CPU path). Its GPUMAT_IMPLEMENTATION is kept to declarations
# (-DGPUMAT_NO_IMPLEMENTATION) and it links make lib's BUILD/libgpumat.a,
# the implementation compiled with those flags. Other ```c blocks are
# fragments and are not compiled. And every compile line that README.md,
# the examples and gpumat.h show (a cc, gcc or clang command of a .c file)
# has -O2: without it the CPU path runs about 80 times slower.
# Run alone: make build/libgpumat.a && sh tests/readme_check.sh build
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-build}" 2> /dev/null && pwd)
CC=${CC:-gcc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
fail() { echo "FAIL readme: $*"; F=$((F+1)); }
LIB=$B/libgpumat.a
if [ ! -f "$LIB" ]; then
    fail "no ${1:-build}/libgpumat.a: make lib first"
    echo "readme: $P passed, $F failed, $S skipped"
    exit 1
fi

# The compile lines shown to users, each with -O2.
lines=$(cd "$ROOT" && grep -nE '(^|[^A-Za-z0-9_./-])(cc|gcc|clang|c\+\+|g\+\+) +[^ ]' README.md examples/*.c include/gpumat.h |
    grep -E '\.c\b')
if [ -z "$lines" ]; then fail "found no compile line in README.md, examples/ or include/gpumat.h"; fi
echo "$lines" | while IFS= read -r line; do
    case $line in ""|*" -O2 "*) ;; *) echo "FAIL readme: a compile line without -O2: $line" ;; esac
done > "$T/unoptimised"
if [ -s "$T/unoptimised" ]; then cat "$T/unoptimised"; F=$((F + $(wc -l < "$T/unoptimised")))
elif [ -n "$lines" ]; then P=$((P+1)); fi

# Split README.md: block N goes to $T/block_N.c, and "N KIND LINE" to
# $T/blocks, KIND being the marker before it (prelude, main-body) or "-".
awk -v dir="$T" '
    /^<!-- readme-check: [a-z-]+ -->$/ {
        if (marker != "") { printf "marker-without-block %s %d\n", marker, mline > (dir "/errors") }
        marker = $3; mline = NR; next
    }
    inblock && /^```[ \t]*$/ { inblock = 0; close(file); next }
    inblock { print > file; next }
    /^```c[ \t]*$/ {
        n++; inblock = 1; file = dir "/block_" n ".c"
        printf "" > file
        printf "%d %s %d\n", n, (marker == "" ? "-" : marker), NR > (dir "/blocks")
        marker = ""; next
    }
    /^[ \t]*$/ { next }
    marker != "" { printf "marker-without-block %s %d\n", marker, mline > (dir "/errors"); marker = "" }
    END { if (marker != "") printf "marker-without-block %s %d\n", marker, mline > (dir "/errors") }
' "$ROOT/README.md"
touch "$T/blocks" "$T/errors"
while read -r what kind line; do
    fail "the marker '$kind' on README.md line $line is not followed by a \`\`\`c block"
done < "$T/errors"

prelude=$(awk '$2 == "prelude" { print $1 }' "$T/blocks")
if [ "$(echo "$prelude" | wc -w)" -gt 1 ]; then
    fail "more than one block is marked prelude (blocks $(echo $prelude))"
    prelude=$(echo $prelude | cut -d' ' -f1)
fi

# check NAME FILE NEEDS_PATH: compile FILE, run it, count the result.
check() {
    name=$1 src=$2 needs_path=$3
    for std in c11 c99; do # C11 takes the typed layer's _Generic checks; the C99 build runs
        if ! (cd "$ROOT" && $CC -std=$std -O2 -Wall -Wextra -Werror -pedantic -DGPUMAT_NO_IMPLEMENTATION -Iinclude "$src" \
                "$LIB" -o "$T/$name" -ldl -lpthread -lm) > "$T/$name.cc.log" 2>&1; then
            cat "$T/$name.cc.log"
            fail "$name does not compile ($CC -std=$std -O2 -Wall -Wextra -Werror -pedantic)"; return
        fi
    done
    timeout 120 "$T/$name" > "$T/$name.log" 2>&1
    rc=$?
    sed "s/^/    $name: /" "$T/$name.log"
    if [ "$rc" -ne 0 ]; then fail "$name exited $rc"; return; fi
    if [ "$needs_path" = 1 ] && ! grep -Eq '(GPU|CPU) path' "$T/$name.log"; then
        fail "$name ran but did not say which path ran (\"GPU path\" or \"CPU path\")"; return
    fi
    echo "ok $name"
    P=$((P+1))
}

programs=0 fragments=0
while read -r n kind line; do
    src="$T/block_$n.c"
    if [ "$kind" = main-body ]; then
        if [ -z "$prelude" ]; then fail "the block on README.md line $line is main-body but no block is marked prelude"; continue; fi
        { cat "$T/block_$prelude.c"; printf '\nint main(void)\n{\n'; sed 's/^/    /' "$src"; printf '    return 0;\n}\n'; } \
            > "$T/main_body_$n.c"
        programs=$((programs+1))
        check "readme_line_$line" "$T/main_body_$n.c" 1
    elif grep -q 'int main *(' "$src"; then
        programs=$((programs+1))
        check "readme_line_$line" "$src" 0
    elif [ "$kind" = "-" ]; then
        fragments=$((fragments+1))
    fi
done < "$T/blocks"
if [ "$programs" -eq 0 ]; then fail "README.md has no C program to check"; fi
echo "readme: $programs programs compiled and run; $fragments C fragments not compiled"
echo "readme: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
