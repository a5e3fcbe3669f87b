#!/usr/bin/env bash
# Records the example trace: a busy loop and a loop that spins 2 ms and sleeps 8 ms, both
# pinned to CPU 1, for 2 s, with perf sched record on CPU 1 only; then imports it.
# Needs root and perf (apt-get install linux-perf); writes burner-and-sleeper.txt and
# burner-and-sleeper.toml here, or with an argument N (record.sh 10) runs the busy loop at
# nice N and writes niceN-burner-and-sleeper.txt and .toml.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
nice=${1:-0}
out=burner-and-sleeper
[[ $nice == 0 ]] || out=nice$nice-$out
data=$(mktemp)
trap 'rm -f "$data"' EXIT
perf sched record -C 1 -o "$data" -- taskset -c 1 sh -c '
    timeout 2 nice -n '"$nice"' sh -c "while :; do :; done" &
    timeout 2 python3 -c "
import time
while True:
    t = time.perf_counter()
    while time.perf_counter() - t < 0.002:
        pass
    time.sleep(0.008)
" &
    wait' 2>/dev/null
# Only the events the import and compare read (perf sched record takes sched_stat_* too).
perf sched script -i "$data" 2>/dev/null |
    grep -E 'sched:sched_(switch|waking|wakeup|wakeup_new|process_exit|migrate_task):' \
        > "$out.txt"
libsched perf-import "$out.txt" --pin --kernel 6.18 --exclude '^perf' -o "$out.toml"
