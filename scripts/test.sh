#!/usr/bin/env bash
# Every test: the C++ suite (dev preset: configure, build, ctest), then the Python package
# built and installed with pip and tested with pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/setup.sh
cmake --workflow --preset dev

# setup.sh installed the build requirements, so pip can build without an isolated env
# (faster, and the build directory under build/python stays reusable). The bindings too
# compile with warnings as errors here.
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    --no-build-isolation --config-settings=cmake.define.LIBSCHED_DEVELOPMENT_BUILD=ON .
python3 -m pytest
