#!/bin/sh
# The opencv-python-headless wheels tests/oracle_pip.py compares gpumat with:
# 4.10 multiplies in double in both layouts, 5.0 in float for NCHW and in
# double for NHWC (gpumat/prep.h, gm_blob_arith). Each goes with numpy into
# a folder of its own, outside any BUILD, for the python3 on PATH (the one
# tests/run.sh runs).
#   sh tests/opencv_wheels.sh versions    the versions, one a line
#   sh tests/opencv_wheels.sh dir V       the folder of version V
#   sh tests/opencv_wheels.sh tools       the folder of the Python tools: pytest
#                                         (tests/python.sh), ziglang (make wheel) and
#                                         CUDA 13's NVRTC wheel (test_pip_nvrtc.py)
#   sh tests/opencv_wheels.sh install     pip-installs those not there yet (PyPI)
# GM_WHEELS moves the folders (default ~/.cache/gpumat/opencv-python).
set -eu
VERSIONS="4.10.0.84 5.0.0.93"
NUMPY=2.2.6
TOOLS="pytest==9.2.0 ziglang==0.17.1 nvidia-cuda-nvrtc==13.5.37"
ROOT=${GM_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/gpumat/opencv-python}

# pip install --target FOLDER PACKAGE...: a folder of its own, which PEP 668's
# guard allows on any python3, made aside and moved in whole.
into() {
    d=$1; shift
    [ -d "$d" ] && return 0
    mkdir -p "$(dirname "$d")"
    rm -rf "$d.part"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$d.part" "$@"
    mv "$d.part" "$d"
    echo "opencv_wheels: $* in $d"
}

case ${1-} in
versions)
    for v in $VERSIONS; do echo "$v"; done ;;
dir)
    echo "$ROOT/$2" ;;
tools)
    echo "$ROOT/tools" ;;
install)
    for v in $VERSIONS; do
        into "$ROOT/$v" "opencv-python-headless==$v" "numpy==$NUMPY"
    done
    into "$ROOT/tools" $TOOLS ;;
*)
    echo "usage: sh tests/opencv_wheels.sh versions | dir VERSION | tools | install" >&2
    exit 2 ;;
esac
