#!/usr/bin/env bash
# Every test: the C++ suite (dev preset: configure, build, ctest), then the Python package
# built and installed with pip into the environment setup.sh chose, and tested with pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/setup.sh
# The dev preset: configure, build, ctest. Under CI only line tables go into the debug
# information (-g1): a fifth of the build's time, and nothing a test run reads; and the
# sources are compiled in unity batches of 16, as the asan preset does (5.9 min to 2.8 min
# on two cores). The header check stays one translation unit per header; a local dev
# build compiles each test file alone.
# The Python package's build is batched likewise (1.7 min to 1.3 min).
dev_flags=()
py_flags=()
if [[ "${CI:-}" == true ]]; then
    dev_flags=(-DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
    py_flags=(--config-settings=cmake.define.CMAKE_UNITY_BUILD=ON
              --config-settings=cmake.define.CMAKE_UNITY_BUILD_BATCH_SIZE=16)
fi
cmake --preset dev "${dev_flags[@]}"
cmake --build --preset dev
ctest --preset dev

# setup.sh installed the build requirements, so pip can build without an isolated env
# (faster, and the build directory under build/python stays reusable). The bindings too
# compile with warnings as errors here. The build's progress lines are shown; the whole
# output goes to a log, printed if the build fails.
log=build/python-install.log
mkdir -p build
echo "test: building and installing the Python package (the extension module takes about a minute)"
if ! "$LIBSCHED_PYTHON" -m pip install -v --disable-pip-version-check --root-user-action=ignore \
        --no-build-isolation --config-settings=cmake.define.LIBSCHED_DEVELOPMENT_BUILD=ON \
        "${py_flags[@]}" . \
        2>&1 | tee "$log" | { grep --line-buffered -E '^ *\[[0-9]+/[0-9]+\] ' || true; }; then
    echo "test: the Python package did not build or install; the end of $log:"
    tail -n 60 "$log"
    exit 1
fi
"$LIBSCHED_PYTHON" -m pytest

# The Python sources: lint (ruff, pyproject.toml's rules), formatting, strict typing of the
# package, and the compiled module's stubs against the module itself (stubtest).
echo "test: ruff, mypy --strict and stubtest"
"$LIBSCHED_PYTHON" -m ruff check bindings/python tests/python examples/python tools bench
"$LIBSCHED_PYTHON" -m ruff format --check bindings/python tests/python examples/python tools bench
"$LIBSCHED_PYTHON" -m mypy --strict bindings/python/libsched
"$LIBSCHED_PYTHON" -m mypy.stubtest libsched._core \
    --allowlist bindings/python/stubtest-allowlist.txt
