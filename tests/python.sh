#!/bin/sh
# The Python package's tests: pytest over tests/python/ against the OpenCV
# 4.10 wheel, on the CPU path (and the GPU's where there is one), with the
# pytest of tests/opencv_wheels.sh's tools folder; and, but in quick mode,
# the wheels make wheel builds, checked and installed by test_wheel.py.
# Usage: sh tests/python.sh BUILD_DIR [quick]
B=${1:-build}
case $B in /*) ABS=$B ;; *) ABS=$PWD/$B ;; esac
TOOLS=$(sh tests/opencv_wheels.sh tools)
CV=$(sh tests/opencv_wheels.sh dir 4.10.0.84)
export GPUMAT_LIBRARY="$ABS/libgpumat.so" PYTHONPATH="$TOOLS:$CV" PYTHONDONTWRITEBYTECODE=1
if [ "${2-}" = quick ]; then
    echo "python: quick: left out test_wheel.py and test_pip_nvrtc.py (make test runs them)"
    exec python3 -m pytest -q -rs -p no:cacheprovider --ignore tests/python/test_wheel.py \
        --ignore tests/python/test_pip_nvrtc.py tests/python
fi
make -s wheel BUILD="$B" > "$B/wheel.log" 2>&1 || { cat "$B/wheel.log"; echo "python: 0 passed, 1 failed, 0 skipped"; exit 1; }
GM_WHEELS_BUILT="$ABS/wheel" exec python3 -m pytest -q -rs -p no:cacheprovider tests/python
