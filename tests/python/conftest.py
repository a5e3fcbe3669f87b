from __future__ import annotations

import importlib.util

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # Run from the source tree, `import libsched` finds the C++ include directory
    # libsched/ as a namespace package unless the real package is installed.
    spec = importlib.util.find_spec("libsched")
    if spec is None or spec.origin is None:
        raise pytest.UsageError(
            "the libsched package is not installed: run `python3 -m pip install .` first"
        )
