#!/bin/sh
# Installs gpumat into a temporary prefix and builds tests/consumer/consumer.c
# the ways a user would: pkg-config, CMake find_package, add_subdirectory and
# FetchContent (from a local git repository), the single header (as C99 and
# C++17), and linked with make install-lib's libgpumat.a and libgpumat.so;
# each must run and print "consumer: OK (gpumat V)", V being include/gpumat.h's
# GPUMAT_VERSION_STRING, which pkg-config --modversion and the version CMake
# finds must equal too. Through CMake with no build type the consumer must be
# compiled with -O2, and without it where the user chose a build type or an
# -O level. make uninstall must then leave the prefix as it was, also under
# DESTDIR. pkg-config, cmake or git missing: SKIP here, FAIL on CI. quick
# (make check) builds and runs the CMake consumer found as a package alone:
# add_subdirectory and FetchContent are configured (the version found, the
# compile line's -O2), not compiled, and the single header is compiled as
# C99 alone (each a whole compile of the implementation, which headers.sh
# compiles in every language).
# Run alone: sh tests/packaging.sh build [quick]   (BUILD: where make lib's libraries are, or go)
B=${1:-build}
QUICK=
[ "${2-}" = quick ] && QUICK=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
pass() { P=$((P+1)); }
fail() { echo "FAIL $*"; F=$((F+1)); }
# The calling make's command-line variables (make check DESTDIR=...) stay out.
unset MAKEFLAGS MFLAGS MAKELEVEL
V=$(sed -n 's/^#define GPUMAT_VERSION_STRING "\(.*\)"$/\1/p' include/gpumat.h)
# result NAME COMMAND...: the command builds and runs a consumer; count it.
result() {
    name=$1; shift
    if "$@" > "$T/$name.log" 2>&1 && grep -qx "consumer: OK (gpumat $V)" "$T/$name.log"; then
        echo "ok $name"; pass
    else
        fail "$name (expected consumer: OK (gpumat $V)):"; tail -20 "$T/$name.log"
    fi
}
# missing WHAT: SKIP (FAIL on CI) a way of building that needs WHAT.
missing() {
    if [ "$CI" = "true" ]; then fail "no $1 here; CI must have it"
    else echo "SKIP no $1 here: its consumer did not build"; S=$((S+1)); fi
}
# configure DIR HOW ARG...: tests/consumer's CMake project with GPUMAT_FROM=HOW
# into DIR, writing DIR/compile_commands.json.
configure() {
    c_dir=$1 c_how=$2; shift 2
    cmake -S tests/consumer -B "$c_dir" -DCMAKE_C_COMPILER="$CC" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DGPUMAT_FROM="$c_how" "$@"
}
# optimised NAME WANT DIR: consumer.c's compile line in DIR holds -O2 (WANT
# yes) or not (no); CMake's default, no build type, compiles without -O.
optimised() {
    line=$(grep '"command":.*consumer\.c' "$3/compile_commands.json" 2> /dev/null)
    case $line in *" -O2 "*) has=yes ;; *) has=no ;; esac
    if [ -n "$line" ] && [ "$has" = "$2" ]; then pass
    else fail "$1: consumer.c's compile line should $([ "$2" = no ] && echo "not ")hold -O2: ${line:-no line}"; fi
}
# cmake_build DIR HOW ARG...: configure, build and run the consumer.
cmake_build() {
    configure "$@" && cmake --build "$1" && "$1/consumer"
}
# by_cmake HOW ARG...: the consumer through CMake with GPUMAT_FROM=HOW. With
# no build type (configured only: its compile line is what counts) it must be
# compiled -O2; built as Debug (the cheapest build) it must run and have found
# version V, and a build type or an -O level of the user's own gets no -O2.
by_cmake() {
    how=$1; shift
    d=$T/cmake-$how
    if configure "$d" "$how" "$@" > "$d.log" 2>&1; then optimised "CMake ($how), no build type" yes "$d"
    else fail "CMake ($how) did not configure:"; tail -5 "$d.log"; fi
    if [ -z "$QUICK" ] || [ "$how" = package ]; then
        result "cmake-$how-debug" cmake_build "$d-debug" "$how" -DCMAKE_BUILD_TYPE=Debug "$@"
    elif ! configure "$d-debug" "$how" -DCMAKE_BUILD_TYPE=Debug "$@" > "$d-debug.log" 2>&1; then
        fail "CMake ($how) -DCMAKE_BUILD_TYPE=Debug did not configure:"; tail -5 "$d-debug.log"
    fi
    if grep -q "gpumat_consumer: gpumat $V ($how)" "$d-debug.log"; then pass
    else fail "CMake ($how) did not find gpumat $V:"; grep "gpumat_consumer:" "$d-debug.log"; fi
    optimised "CMake ($how) -DCMAKE_BUILD_TYPE=Debug" no "$d-debug"
    if configure "$d-O1" "$how" -DCMAKE_C_FLAGS=-O1 "$@" > "$d-O1.log" 2>&1; then
        optimised "CMake ($how) -DCMAKE_C_FLAGS=-O1" no "$d-O1"
    else fail "CMake ($how) -DCMAKE_C_FLAGS=-O1 did not configure:"; tail -5 "$d-O1.log"; fi
}
CC=${CC:-cc}
CXX=${CXX:-c++}
if [ -n "$V" ]; then pass; else fail "no GPUMAT_VERSION_STRING in include/gpumat.h"; fi

if make -s install PREFIX="$T/prefix" > "$T/install.log" 2>&1 && diff -r include "$T/prefix/include" > /dev/null; then
    pass
else
    fail "make install: headers missing or different"; cat "$T/install.log"
fi

if command -v pkg-config > /dev/null; then
    result pkg-config sh -c "PKG_CONFIG_PATH='$T/prefix/share/pkgconfig' && export PKG_CONFIG_PATH &&
        $CC -std=c99 -Wall -Wextra -Werror \$(pkg-config --cflags gpumat) tests/consumer/consumer.c \
            -o '$T/by_pkgconfig' \$(pkg-config --libs gpumat) && '$T/by_pkgconfig'"
    got=$(PKG_CONFIG_PATH="$T/prefix/share/pkgconfig" pkg-config --modversion gpumat)
    if [ "$got" = "$V" ]; then pass; else fail "pkg-config --modversion gpumat is '$got', not $V"; fi
else
    missing pkg-config
fi

# make lib's libraries, installed: the consumer's GPUMAT_IMPLEMENTATION kept to
# declarations (GPUMAT_NO_IMPLEMENTATION) and the implementation linked from
# libgpumat.a, then from libgpumat.so.
if make -s install-lib BUILD="$B" PREFIX="$T/prefix" > "$T/install-lib.log" 2>&1 &&
   [ -f "$T/prefix/lib/libgpumat.a" ] && [ -f "$T/prefix/lib/libgpumat.so" ]; then
    pass
    for kind in static shared; do
        case $kind in static) lib=$T/prefix/lib/libgpumat.a ;; shared) lib="-L$T/prefix/lib -Wl,-rpath,$T/prefix/lib -lgpumat" ;; esac
        result "lib-$kind" sh -c "$CC -std=c99 -O2 -Wall -Wextra -Werror -DGPUMAT_NO_IMPLEMENTATION -I'$T/prefix/include' \
            tests/consumer/consumer.c $lib -o '$T/lib_$kind' -ldl -lpthread -lm && '$T/lib_$kind'"
    done
    if nm "$T/lib_static" | grep -q " T gm_version$" && ! nm -D "$T/lib_shared" | grep -q " T gm_version$" &&
       nm -D "$T/lib_shared" | grep -q " U gm_version$"; then pass
    else fail "the consumer linked with libgpumat.so does not take gm_version from it"; fi
else
    fail "make install-lib: libgpumat.a or libgpumat.so missing:"; cat "$T/install-lib.log"
fi

if command -v cmake > /dev/null; then
    by_cmake package -DCMAKE_PREFIX_PATH="$T/prefix"
    by_cmake subdirectory -DGPUMAT_SOURCE="$PWD"
    # FetchContent clones a repository of this tree as it is, committed or not.
    if git rev-parse --git-dir > /dev/null 2>&1; then
        mkdir -p "$T/repo"
        git ls-files -co --exclude-standard | while IFS= read -r f; do [ -e "$f" ] && echo "$f"; done |
            tar -cf - -T - | tar -xf - -C "$T/repo"
        (cd "$T/repo" && git init -q && git add . && git -c user.name=gpumat -c user.email=gpumat@localhost \
            commit -qm gpumat && git tag "v$V") > "$T/repo.log" 2>&1 || { fail "making a git repository:"; cat "$T/repo.log"; }
        by_cmake fetchcontent -DGPUMAT_GIT="file://$T/repo" -DGPUMAT_GIT_TAG="v$V"
    else
        missing "git checkout (or no git) to copy"
    fi
else
    missing cmake
fi

# uninstall: what install wrote goes, a file of someone else's stays
touch "$T/prefix/include/other.h"
if make -s uninstall PREFIX="$T/prefix" > "$T/uninstall.log" 2>&1 &&
   [ "$(cd "$T/prefix" && find . -mindepth 1 | sort | tr '\n' ' ')" = "./include ./include/other.h " ]; then
    pass
else
    fail "make uninstall did not leave just include/other.h:"; cat "$T/uninstall.log"; (cd "$T/prefix" && find . -mindepth 1)
fi
if make -s install DESTDIR="$T/stage" PREFIX=/opt/gm > "$T/stage.log" 2>&1 &&
   grep -qx "prefix=/opt/gm" "$T/stage/opt/gm/share/pkgconfig/gpumat.pc" &&
   diff -r include "$T/stage/opt/gm/include" > /dev/null &&
   make -s uninstall DESTDIR="$T/stage" PREFIX=/opt/gm >> "$T/stage.log" 2>&1 &&
   [ -z "$(find "$T/stage/opt/gm" -mindepth 1)" ]; then
    pass
else
    fail "make install / uninstall with DESTDIR:"; cat "$T/stage.log"; find "$T/stage"
fi

mkdir -p "$T/single"
if make -s single BUILD="$T/single" > "$T/single.log" 2>&1 && ! grep -q '^ *# *include *"' "$T/single/gpumat.h" &&
   [ "$(head -1 "$T/single/gpumat.h")" = "/* SPDX-License-Identifier: MIT */" ] &&
   sed -n 2p "$T/single/gpumat.h" | grep -q "^/\* gpumat $V as a single header"; then
    pass
    result single-c99 sh -c "$CC -std=c99 -Wall -Wextra -Werror -pedantic -I'$T/single' tests/consumer/consumer.c \
        -o '$T/single_c' -ldl -lpthread -lm && '$T/single_c'"
    [ -n "$QUICK" ] || result single-c++17 sh -c "$CXX -x c++ -std=c++17 -Wall -Wextra -Werror -I'$T/single' tests/consumer/consumer.c \
        -o '$T/single_cpp' -ldl -lpthread -lm && '$T/single_cpp'"
else
    fail "make single: no header, it still includes local files, or its banner lacks the licence or version $V:"
    cat "$T/single.log"; head -3 "$T/single/gpumat.h"
fi
echo "packaging: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
