#!/bin/sh
# Runs every example (make examples) and the python ones: each must
# exit 0 and print "<name>: OK" (its GPU result matched the CPU path, or the
# CPU path alone checked out), or "<name>: SKIP" where it needs what this
# machine lacks (a GPU; torch and CuPy; numpy). Run alone: make examples && sh tests/examples.sh build
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=0 F=0 S=0
# example NAME COMMAND...: runs it, shows its output, counts OK / SKIP / failure.
example() {
    name=$1; shift
    "$@" > "$T/$name.log" 2>&1
    rc=$?
    cat "$T/$name.log"
    if [ $rc -eq 0 ] && grep -q "^$name: OK" "$T/$name.log"; then P=$((P+1))
    elif [ $rc -eq 0 ] && grep -q "^$name: SKIP" "$T/$name.log"; then S=$((S+1))
    else echo "FAIL $name: exited $rc without an OK line"; F=$((F+1)); fi
}
example trt_input "$B/trt_input"
example mask_overlay "$B/mask_overlay" "$T"
example pipeline "$B/pipeline"
example wrap_foreign "$B/wrap_foreign"
example yolo_letterbox "$B/yolo_letterbox"
example classify_crops "$B/classify_crops"
example draw_labels "$B/draw_labels"
example nvdec_batch "$B/nvdec_batch"
example deepstream_surface "$B/deepstream_surface"
example align_faces "$B/align_faces"
example rectify_plate "$B/rectify_plate"
case $B in /*) GPUMAT_LIBRARY=$B/libgpumat.so ;; *) GPUMAT_LIBRARY=$PWD/$B/libgpumat.so ;; esac
export GPUMAT_LIBRARY  # the gpumat package (python/) loads it
example python python3 examples/python/roundtrip.py
# numpy through DLPack on the CPU path: python3 if it has numpy, else Debian's
# /usr/bin/python3 (python3-numpy), else SKIP (not a pass).
np_py=
for py in python3 /usr/bin/python3; do
    if command -v "$py" > /dev/null 2>&1 && "$py" -c 'import numpy' 2> /dev/null; then np_py=$py; break; fi
done
if [ -n "$np_py" ]; then example numpy_cpu "$np_py" examples/python/numpy_cpu.py
    example decoder_frames "$np_py" examples/python/decoder_frames.py
else echo "numpy_cpu: SKIP: numpy is not installed (Debian's python3-numpy)"; S=$((S+1)); fi
if [ "$(head -c 15 "$T/overlay.ppm" 2>/dev/null)" = "$(printf 'P6\n512 384\n255\n')" ]; then P=$((P+1))
else echo "FAIL mask_overlay wrote no 512x384 overlay.ppm"; F=$((F+1)); fi
echo "examples: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
