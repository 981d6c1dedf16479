# SPDX-License-Identifier: MIT
"""README.md's Python blocks run as written, in order, in one namespace (a
block that needs torch and a GPU is skipped, visibly, without them)."""
import os
import re

import pytest

from conftest import ROOT


def blocks():
    with open(os.path.join(ROOT, "README.md")) as f:
        return re.findall(r"^```python\n(.*?)^```", f.read(), re.M | re.S)


def run(found):
    namespace = {}
    for block in found:
        exec(compile(block, "README.md", "exec"), namespace)
    return namespace


def test_readme_numpy_blocks():
    found = [b for b in blocks() if "import torch" not in b]
    assert found, "README.md has no numpy block"
    assert run(found)["x"].shape == (3, 640, 640)


def test_readme_torch_blocks():
    torch = pytest.importorskip("torch", reason="the README's torch block needs torch")
    if not torch.cuda.is_available():
        pytest.skip("the README's torch block needs a GPU")
    namespace = run(blocks())
    torch.cuda.synchronize()
    assert namespace["batch"].abs().sum() > 0
