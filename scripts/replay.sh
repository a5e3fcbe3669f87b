#!/usr/bin/env bash
# Run the bundled seed replays: each scenario in examples/replays is simulated and its
# prediction printed beside the measurement it came with.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target libsched_cli
build/release/libsched replay "${@:-examples/replays}"
