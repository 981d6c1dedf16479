#!/bin/sh
# The implementation compiles clean (-Wall -Wextra -Werror -pedantic, C99) at
# every optimisation level with gcc and clang: some warnings
# (-Wmaybe-uninitialized) appear only at one. Ten whole compiles, four
# minutes of CPU: make test runs it, make check leaves it out (its library
# build is gcc -O2). Run alone: sh tests/opt_levels.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
cp tests/impl_main.c "$T/impl.c"
for cc in gcc clang; do
    if ! command -v $cc > /dev/null; then echo "SKIP $cc not installed"; S=$((S+1)); continue; fi
    for opt in -O1 -O2 -O3 -Os -Og; do
        if $cc -std=c99 $opt -Wall -Wextra -Werror -pedantic -Iinclude -c "$T/impl.c" -o "$T/opt.o" 2> "$T/err"; then P=$((P+1))
        else echo "FAIL $cc $opt impl.c:"; head -5 "$T/err"; F=$((F+1)); fi
    done
done
echo "opt_levels: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
