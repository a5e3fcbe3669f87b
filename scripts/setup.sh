#!/usr/bin/env bash
# Install what building and testing libsched needs, and nothing that is already there.
# Safe to run any number of times. Debian packages come from apt (only the missing ones,
# each with the reason); Python packages go into a virtual environment: the active one if
# there is one ($VIRTUAL_ENV), otherwise the project's own .venv. Nothing is installed into
# the system Python. Sourced by the other scripts, it leaves LIBSCHED_PYTHON naming the
# environment's interpreter.
set -euo pipefail

libsched_setup() {
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    local as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo)

    # Debian packages, each with what it is for.
    local -A why=(
        [g++]="the C++20 compiler"
        [libboost-dev]="Boost.Intrusive, the run queues' red-black tree"
        [libeigen3-dev]="Eigen, linear algebra"
        [catch2]="Catch2, the C++ tests"
        [libtomlplusplus-dev]="toml++, the scenario file reader"
        [nlohmann-json3-dev]="nlohmann/json, the JSON output"
        [libcli11-dev]="CLI11, the command line"
        [libbenchmark-dev]="Google Benchmark, the benchmarks"
        [clang-14]="clang, for the libFuzzer targets (scripts/fuzz.sh)"
        [libclang-rt-14-dev]="libFuzzer's runtime and clang's sanitizer runtimes, for the fuzz targets"
        [cmake]="the build system"
        [ninja-build]="the build tool the presets use"
        [python3]="Python, for the package and its tests"
        [python3-dev]="Python.h, for the extension module"
        [python3-venv]="virtual environments, where the Python packages go"
        [rt-app]="rt-app, to run the rt-app example files on this host (test_rt_app_host.py, about 12 s)"
    )
    local apt_packages=(g++ libboost-dev libeigen3-dev catch2 libtomlplusplus-dev
                        nlohmann-json3-dev libcli11-dev libbenchmark-dev
                        clang-14 libclang-rt-14-dev rt-app)
    command -v cmake >/dev/null 2>&1 || apt_packages+=(cmake)
    command -v ninja >/dev/null 2>&1 || apt_packages+=(ninja-build)
    if ! command -v python3 >/dev/null 2>&1; then
        apt_packages+=(python3 python3-dev python3-venv)
    else
        python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(
            os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
            apt_packages+=(python3-dev)
        [ -n "${VIRTUAL_ENV:-}" ] || python3 -c 'import ensurepip' >/dev/null 2>&1 ||
            apt_packages+=(python3-venv)
    fi

    local missing=() pkg
    for pkg in "${apt_packages[@]}"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        for pkg in "${missing[@]}"; do
            echo "setup: missing Debian package $pkg (${why[$pkg]})"
        done
        echo "setup: apt-get install ${missing[*]}"
        "${as_root[@]}" apt-get update -qq
        "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    fi

    # The Python environment: the active one, said plainly, or the project's .venv.
    if [ -n "${VIRTUAL_ENV:-}" ]; then
        LIBSCHED_PYTHON="$VIRTUAL_ENV/bin/python"
        echo "setup: using the active virtual environment $VIRTUAL_ENV"
    else
        LIBSCHED_PYTHON="$root/.venv/bin/python"
        if [ ! -x "$LIBSCHED_PYTHON" ]; then
            echo "setup: creating the project's virtual environment .venv"
            python3 -m venv "$root/.venv"
        fi
    fi
    export LIBSCHED_PYTHON

    # Python packages, by import name -> pip name: the build backend, the test runner, the
    # package's optional extras the tests exercise (pandas tables, matplotlib figures; for
    # sweeps Dask, tqdm, pyarrow for Parquet and xarray), and the checkers CI runs (mypy,
    # ruff).
    local -A pip_names=([pybind11]=pybind11 [scikit_build_core]=scikit-build-core
                        [numpy]=numpy [pytest]=pytest [pandas]=pandas [matplotlib]=matplotlib
                        [distributed]=distributed [tqdm]=tqdm [pyarrow]=pyarrow
                        [xarray]=xarray [mypy]=mypy [ruff]=ruff)
    local module
    missing=()
    for module in "${!pip_names[@]}"; do
        "$LIBSCHED_PYTHON" -c "import $module" >/dev/null 2>&1 || missing+=("${pip_names[$module]}")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "setup: pip install ${missing[*]} (into $(dirname "$(dirname "$LIBSCHED_PYTHON")"))"
        "$LIBSCHED_PYTHON" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
    fi
}

libsched_setup
