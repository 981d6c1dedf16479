#!/bin/sh
# Installs gpumat into a temporary prefix and builds tests/consumer/consumer.c
# three ways a user would: pkg-config, CMake find_package, the single header
# (as C99 and C++17); each must run and print "consumer: OK". pkg-config or
# cmake missing: SKIP here, FAIL on CI. Run alone: sh tests/packaging.sh build
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
# result NAME COMMAND...: the command builds and runs a consumer; count it.
result() {
    name=$1; shift
    if "$@" > "$T/$name.log" 2>&1 && grep -q '^consumer: OK' "$T/$name.log"; then
        echo "ok $name"; P=$((P+1))
    else
        echo "FAIL $name:"; tail -20 "$T/$name.log"; F=$((F+1))
    fi
}
# missing TOOL: SKIP (FAIL on CI) a way of building that needs TOOL.
missing() {
    if [ "$CI" = "true" ]; then echo "FAIL $1 is not installed; CI must install it"; F=$((F+1))
    else echo "SKIP $1 is not installed: its consumer did not build"; S=$((S+1)); fi
}
CC=${CC:-cc}
CXX=${CXX:-c++}

if make -s install PREFIX="$T/prefix" > "$T/install.log" 2>&1 && diff -r include "$T/prefix/include" > /dev/null; then
    P=$((P+1))
else
    echo "FAIL make install: headers missing or different"; cat "$T/install.log"; F=$((F+1))
fi

if command -v pkg-config > /dev/null; then
    result pkg-config sh -c "PKG_CONFIG_PATH='$T/prefix/share/pkgconfig' && export PKG_CONFIG_PATH &&
        $CC -std=c99 -Wall -Wextra -Werror \$(pkg-config --cflags gpumat) tests/consumer/consumer.c \
            -o '$T/by_pkgconfig' \$(pkg-config --libs gpumat) && '$T/by_pkgconfig'"
else
    missing pkg-config
fi

if command -v cmake > /dev/null; then
    result cmake sh -c "cmake -S tests/consumer -B '$T/cmake' -DCMAKE_PREFIX_PATH='$T/prefix' -DCMAKE_C_COMPILER=$CC &&
        cmake --build '$T/cmake' && '$T/cmake/consumer'"
else
    missing cmake
fi

mkdir -p "$T/single"
if make -s single BUILD="$T/single" > "$T/single.log" 2>&1 && ! grep -q '^ *# *include *"' "$T/single/gpumat.h"; then
    P=$((P+1))
    result single-c99 sh -c "$CC -std=c99 -Wall -Wextra -Werror -pedantic -I'$T/single' tests/consumer/consumer.c \
        -o '$T/single_c' -ldl -lpthread -lm && '$T/single_c'"
    result single-c++17 sh -c "$CXX -x c++ -std=c++17 -Wall -Wextra -Werror -I'$T/single' tests/consumer/consumer.c \
        -o '$T/single_cpp' -ldl -lpthread -lm && '$T/single_cpp'"
else
    echo "FAIL make single: no header, or it still includes local files"; cat "$T/single.log"; F=$((F+1))
fi
echo "packaging: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
