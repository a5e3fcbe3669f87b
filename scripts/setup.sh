#!/usr/bin/env bash
# Install what building and testing libsched needs, and nothing that is already there.
# Safe to run any number of times. Run it, or source it to also get PIP_BREAK_SYSTEM_PACKAGES
# set where the Python is a distribution's own.
set -euo pipefail

libsched_setup() {
    local as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo)

    # Debian packages: compiler and the third-party C++ libraries (headers, CMake packages).
    local apt_packages=(g++ libboost-dev libeigen3-dev catch2 libtomlplusplus-dev
                        nlohmann-json3-dev libcli11-dev libbenchmark-dev)
    command -v cmake >/dev/null 2>&1 || apt_packages+=(cmake)
    command -v ninja >/dev/null 2>&1 || apt_packages+=(ninja-build)
    if ! command -v python3 >/dev/null 2>&1; then
        apt_packages+=(python3 python3-dev python3-pip)
    elif ! python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(
            os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
        apt_packages+=(python3-dev) # Python.h, for the extension module
    fi

    local missing=() pkg
    for pkg in "${apt_packages[@]}"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "setup: apt-get install ${missing[*]}"
        "${as_root[@]}" apt-get update -qq
        "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    fi

    # A distribution's own Python refuses pip installs (PEP 668) unless told otherwise.
    if python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(
            os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")))'; then
        export PIP_BREAK_SYSTEM_PACKAGES=1
    fi

    # Python packages: build backend and test runner, by import name -> pip name.
    local -A pip_names=([pybind11]=pybind11 [scikit_build_core]=scikit-build-core
                        [numpy]=numpy [pytest]=pytest)
    local module
    missing=()
    for module in "${!pip_names[@]}"; do
        python3 -c "import $module" >/dev/null 2>&1 || missing+=("${pip_names[$module]}")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "setup: pip install ${missing[*]}"
        python3 -m pip install --quiet --disable-pip-version-check "${missing[@]}"
    fi
}

libsched_setup
