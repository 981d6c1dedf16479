# SPDX-License-Identifier: MIT
"""pytest over the Python package (tests/python.sh runs it): prints the
summary line tests/run.sh adds up, and gives tests the OpenCV wheel and the
random data they share."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))


def pytest_terminal_summary(terminalreporter):
    count = {k: len(terminalreporter.stats.get(k, [])) for k in ("passed", "failed", "error", "skipped")}
    print(f"\npython: {count['passed']} passed, {count['failed'] + count['error']} failed, "
          f"{count['skipped']} skipped")


@pytest.fixture
def rng(request):
    """A generator seeded by the test's name, so a failure repeats."""
    import zlib

    import numpy as np
    return np.random.default_rng(int(os.environ.get("GM_SEED", zlib.crc32(request.node.name.encode()))))
