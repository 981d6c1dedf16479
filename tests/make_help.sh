#!/bin/sh
# make help lists every target: each target of the Makefile that is not a
# file path (a plain name such as check or install-lib) must be .PHONY, so a
# file of that name cannot stop it, and must be named as `make NAME` in the
# `##` lines make help prints. FORCE, a prerequisite that is never up to
# date, is the one target left out. Run alone: sh tests/make_help.sh
MK=${MAKEFILE:-Makefile}
# The calling make's command-line variables (make check BUILD=...) stay out.
unset MAKEFLAGS MFLAGS MAKELEVEL
P=0 F=0
pass() { P=$((P+1)); }
fail() { echo "FAIL $*"; F=$((F+1)); }
# The rules' targets: left of a single colon, not a variable, with no $, / or %.
targets=$(sed -n 's/^\([A-Za-z][A-Za-z0-9_. -]*\)::\{0,1\}\([^=]\|$\).*/\1/p' "$MK" | tr ' ' '\n' |
    grep -v '^\.' | grep -v '^$' | sort -u)
phony=" $(sed -n 's/^\.PHONY *: *//p' "$MK" | tr '\n' ' ') "
help=$(make -s -f "$MK" help 2> /dev/null)
if [ -n "$targets" ] && [ -n "$help" ]; then pass; else fail "no targets or no make help output in $MK"; fi
for t in $targets; do
    [ "$t" = FORCE ] && continue
    case $phony in *" $t "*) pass ;; *) fail "target $t is not .PHONY" ;; esac
    if echo "$help" | grep -Eq "(^|[^A-Za-z0-9_-])make $t([^A-Za-z0-9_-]|\$)"; then pass
    else fail "make help does not list 'make $t'"; fi
done
echo "make_help: $P passed, $F failed, 0 skipped"
[ "$F" -eq 0 ]
