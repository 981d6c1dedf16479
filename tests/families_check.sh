#!/bin/sh
# gen/FAMILIES.md names what exists: every file it names in backquotes (a
# path with a folder, or a name ending .h, .cu, .inc, .c or .py) is in the
# tree, and every gpumat symbol it names (gm_..., gm__..., GM_..., GM__...,
# without a `<placeholder>`, a `*` pattern or a call's arguments) is a word
# of the library, the templates, the generator or the tests. So the recipe
# cannot send a reader to a file or a function that is gone.
# Run alone: sh tests/families_check.sh
cd "$(dirname "$0")/.." || exit 1
DOC=gen/FAMILIES.md
P=0 F=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# backquoted spans, one a line, a call's arguments and an array's [] dropped
grep -o '`[^`]*`' "$DOC" | tr -d '`' | sed 's/(.*//; s/\[\]$//' | sort -u > "$T/spans"
[ -s "$T/spans" ] || { echo "FAIL families: no backquoted names in $DOC"; F=1; }
while IFS= read -r s; do
    case $s in *"<"*|*"*"*|*" "*|"") continue ;; esac
    case $s in
        */*|*.h|*.cu|*.inc|*.c|*.py)
            # a file as written, or under include/gpumat/ (impl/x.h),
            # include/ or tests/; a {a,b} pair names two
            found=yes
            case $s in
                *"{"*) base=${s%%\{*} rest=${s#*\{}; files=$(for x in $(echo "${rest%%\}*}" | tr ',' ' '); do echo "$base$x${rest#*\}}"; done) ;;
                *) files=$s ;;
            esac
            for f in $files; do
                [ -e "$f" ] || [ -e "include/gpumat/$f" ] || [ -e "include/$f" ] || [ -e "tests/$f" ] || found=
            done
            if [ -n "$found" ]; then P=$((P + 1)); else echo "FAIL families: $DOC names the file $s, which is not in the tree"; F=$((F + 1)); fi ;;
        gm_*|GM_*)
            # a struct's field, s.f: both words
            found=yes
            for w in $(echo "$s" | tr '.' ' '); do
                grep -rqw --exclude=FAMILIES.md -- "$w" include templates gen tests || found=
            done
            if [ -n "$found" ]; then P=$((P + 1))
            else echo "FAIL families: $DOC names $s, which no file of include/, templates/, gen/ or tests/ holds"; F=$((F + 1)); fi ;;
    esac
done < "$T/spans"
echo "families: $P passed, $F failed, 0 skipped"
[ "$F" -eq 0 ]
