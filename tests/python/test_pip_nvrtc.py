# SPDX-License-Identifier: MIT
"""A pip-installed NVRTC (the nvidia-cuda-nvrtc wheel, CUDA 13, in
tests/opencv_wheels.sh's tools folder) is all gpumat needs to build its
kernels: the package finds it on sys.path by itself, and a kernel of every
family (f16 where the family has it: the fp16 header trap of CUDA 12.2+,
cupy #8466, bites programs that include toolkit headers, which gpumat's do
not) compiles with no toolkit on any path."""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

TOOLS = subprocess.run(["sh", os.path.join(ROOT, "tests", "opencv_wheels.sh"), "tools"], capture_output=True,
                       text=True).stdout.strip()
PIP_NVRTC = os.path.join(TOOLS, "nvidia", "cu13", "lib", "libnvrtc.so.13")

CHILD = r"""
import json, os, re, gpumat as gm
families = {}
for name in gm.kernels():
    family = re.split(r'_(?:u8|s8|u16|s16|s32|f32|f64|f16|bf16|bytes)(?:_|$)', name[3:])[0]
    if family not in families or ('f16' in name and 'f16' not in families[family]):
        families[family] = name
sizes = {name: gm.compile_kernel(gm.kernel_index(name), 90) for name in families.values()}
print(json.dumps({"nvrtc": os.environ.get("GM_NVRTC_PATH"), "sizes": sizes}))
"""


def test_pip_nvrtc_alone_compiles_every_family():
    if not os.path.isfile(PIP_NVRTC):
        if os.environ.get("CI") == "true":
            pytest.fail(f"{PIP_NVRTC} is missing: sh tests/opencv_wheels.sh install")
        pytest.skip(f"no pip NVRTC in {TOOLS} (sh tests/opencv_wheels.sh install)")
    env = {k: v for k, v in os.environ.items() if not re.match(r"(GM_NVRTC_PATH|LD_LIBRARY_PATH|CUDA_\w*)$", k)}
    env["PATH"] = "/usr/bin:/bin"
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "python"), TOOLS])
    run = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["nvrtc"] == PIP_NVRTC
    assert len(result["sizes"]) >= 15 and all(size > 0 for size in result["sizes"].values()), result
