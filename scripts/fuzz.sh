#!/usr/bin/env bash
# Fuzzing (docs/reliability.md): builds the fuzz preset (clang, libFuzzer, ASan + UBSan),
# replays every finding kept under tests/fuzz/regressions/, then runs each target for
# SECONDS (default 30): fuzz_scenario on scenario files, from the bundled scenarios
# (examples/**/*.toml) and the bad-input corpus, with the TOML dictionary; fuzz_generator
# on the random scenario generator's choices. Exits non-zero at the first finding: a crash,
# an input running over 10 s, an invariant violation, a sanitizer report, running out of
# memory. The input that found it is left in build/fuzz/findings/; make it a regression
# file (tests/fuzz/regressions/README.md).
#
#   bash scripts/fuzz.sh [SECONDS [TARGET...]]    # both targets unless named
#   FUZZ_RUNS=N bash scripts/fuzz.sh 0 [TARGET...]  # N inputs per target instead of a time
#
# What the fuzzers learn stays in build/fuzz/corpus/<target> for the next run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-30}"
runs="${FUZZ_RUNS:-}"
targets=(fuzz_scenario fuzz_generator)
if [ "$#" -gt 1 ]; then
    targets=("${@:2}")
fi
for target in "${targets[@]}"; do
    case "$target" in
    fuzz_scenario | fuzz_generator) ;;
    *)
        echo "fuzz: no target $target (fuzz_scenario, fuzz_generator)"
        exit 2
        ;;
    esac
done
source scripts/setup.sh

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

bin=build/fuzz/tests/fuzz
seeds=build/fuzz/seeds
corpus=build/fuzz/corpus
findings=build/fuzz/findings
logs=build/fuzz/logs

# The seeds, made afresh: the bundled scenarios, the bad-input corpus, the generator's.
rm -rf "$seeds"
"$bin/fuzz_seeds" "$seeds/fuzz_scenario" "$seeds/fuzz_generator"
while IFS= read -r -d '' file; do
    name="${file#examples/}"
    cp "$file" "$seeds/fuzz_scenario/example-${name//\//-}"
done < <(find examples -name '*.toml' -print0)
mkdir -p "$findings" "$logs"
for target in "${targets[@]}"; do
    mkdir -p "$corpus/$target"
done

export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
common=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

# Running a target on files replays them.
for target in "${targets[@]}"; do
    shopt -s nullglob
    kept=(tests/fuzz/regressions/"$target"/*)
    shopt -u nullglob
    if [ "${#kept[@]}" -gt 0 ]; then
        echo "fuzz: $target replays ${#kept[@]} regression file(s)"
        if ! "$bin/$target" "${common[@]}" "${kept[@]}" >"$logs/$target-regressions.log" 2>&1; then
            tail -n 60 "$logs/$target-regressions.log"
            echo "fuzz: $target fails on a regression file (the log: $logs/$target-regressions.log)"
            exit 1
        fi
    fi
done

for target in "${targets[@]}"; do
    args=("${common[@]}" -artifact_prefix="$findings/$target-")
    if [ -n "$runs" ]; then
        args+=(-runs="$runs")
        echo "fuzz: $target, $runs inputs"
    else
        args+=(-max_total_time="$seconds")
        echo "fuzz: $target, ${seconds}s"
    fi
    [ "$target" = fuzz_scenario ] && args+=(-dict=tests/fuzz/toml.dict)
    log="$logs/$target.log"
    if ! "$bin/$target" "${args[@]}" "$corpus/$target" "$seeds/$target" >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "fuzz: $target found something (the log: $log; the input: $findings/$target-*)"
        exit 1
    fi
    # The last status line (inputs, coverage, corpus, exec/s) and the final statistics.
    grep -E '^#[0-9]+' "$log" | tail -n 1
    grep -E '^stat::' "$log"
done
echo "fuzz: no finding"
