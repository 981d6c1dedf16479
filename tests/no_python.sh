#!/bin/sh
# Building needs no Python, whatever the file times: in a copy of this tree
# (git ls-files) whose generator inputs are all newer than the generated
# headers, with python3 off the PATH, the demo build, make install DESTDIR=...,
# make single and make examples must succeed and leave the headers as they
# were. With a template's content changed instead, make must fail naming it and
# `make gen`; without sha256sum it trusts the headers; with Python it
# regenerates. Run alone: sh tests/no_python.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
pass() { P=$((P+1)); }
fail() { echo "FAIL $*"; F=$((F+1)); }
# The calling make's command-line variables (make check BUILD=...) stay out.
unset MAKEFLAGS MFLAGS MAKELEVEL

if ! git rev-parse --git-dir > /dev/null 2>&1; then
    if [ "$CI" = "true" ]; then echo "FAIL no_python: not a git checkout (or no git)"; F=1
    else echo "SKIP no_python: not a git checkout (or no git): nothing to copy the tree from"; S=1; fi
    echo "no_python: $P passed, $F failed, $S skipped"
    [ "$F" -eq 0 ]; exit
fi
mkdir -p "$T/src"
git ls-files -co --exclude-standard | while IFS= read -r f; do [ -e "$f" ] && echo "$f"; done |
    tar -cf - -T - | tar -xf - -C "$T/src"
cd "$T/src" || exit 1
cp -R include/gpumat/gen "$T/committed"
touch -t 200001010000 include/gpumat/gen/*.h

# bin_without NAME...: a folder of every command on PATH but python* and NAME...
bin_without() {
    dir=$T/bin$(printf -- '-%s' "$@")
    mkdir -p "$dir"
    old_ifs=$IFS; IFS=:
    for d in $PATH; do
        IFS=$old_ifs
        for t in "$d"/*; do
            name=${t##*/}
            case $name in python*) continue ;; esac
            case " $* " in *" $name "*) continue ;; esac
            [ -x "$t" ] && [ ! -e "$dir/$name" ] && ln -s "$t" "$dir/$name"
        done
    done
    IFS=$old_ifs
    echo "$dir"
}
NOPY=$(bin_without)
if PATH=$NOPY command -v python3 > /dev/null; then fail "python3 is still on the test's PATH"; else pass; fi

# step NAME MAKE-ARGS...: make with python3 off the PATH must succeed. -O0
# and -j2: what counts is what make runs, and this keeps make check quick.
step() {
    name=$1; shift
    if PATH=$NOPY make -s -j2 BUILD="$T/build" CFLAGS=-O0 "$@" > "$T/$name.log" 2>&1; then pass
    else fail "$name without python3:"; tail -20 "$T/$name.log"; fi
}
step demo "$T/build/demo"
step install install DESTDIR="$T/stage" PREFIX=/usr/local
if [ -f "$T/stage/usr/local/include/gpumat/gen/catalogue.h" ] && [ -f "$T/stage/usr/local/share/pkgconfig/gpumat.pc" ]; then pass
else fail "make install DESTDIR=... did not install the headers and gpumat.pc"; fi
step single single
if [ -s "$T/build/gpumat.h" ]; then pass; else fail "make single wrote no $T/build/gpumat.h"; fi
step examples examples
if diff -r "$T/committed" include/gpumat/gen > /dev/null; then pass; else fail "the generated headers changed without a change of their inputs"; fi

# A template whose content changed: stale headers, and no Python to remake them.
echo "/* changed */" >> templates/xform.cu
if PATH=$NOPY make -s BUILD="$T/build" "$T/build/demo" > "$T/stale.log" 2>&1; then
    fail "make built with a changed template and no python3"
elif grep "templates/xform.cu" "$T/stale.log" | grep -q "make gen"; then pass
else fail "make's message does not name templates/xform.cu and make gen:"; cat "$T/stale.log"; fi
NOSUM=$(bin_without sha256sum)
if PATH=$NOSUM make -s BUILD="$T/build" single > "$T/nosum.log" 2>&1; then pass
else fail "without sha256sum, make did not trust the headers:"; cat "$T/nosum.log"; fi
if command -v python3 > /dev/null; then
    if make -s include/gpumat/gen/catalogue.h > "$T/regen.log" 2>&1 && [ -z "$(sh gen/stale.sh include/gpumat/gen/*.h)" ]; then pass
    else fail "make with python3 did not regenerate after the change:"; cat "$T/regen.log"; fi
else
    echo "SKIP regeneration by make: no python3 here"; S=$((S+1))
fi
echo "no_python: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
