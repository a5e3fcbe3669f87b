#!/usr/bin/env bash
# Records an example trace for 2 s with perf sched record, then imports it (--kernel 6.18).
# Needs root and perf (apt-get install linux-perf). Writes NAME.txt and NAME.toml here:
#   record.sh          burner-and-sleeper: a busy loop and a loop that spins 2 ms and
#                      sleeps 8 ms, both pinned to CPU 1, recorded on CPU 1 only (--pin)
#   record.sh N        niceN-burner-and-sleeper: the same with the busy loop at nice N
#   record.sh two      two-burners-and-sleeper: the same with two busy loops
#   record.sh spread   three-burners-and-sleeper: three busy loops and the sleeping loop,
#                      unpinned, recorded on every CPU
#   record.sh timer [N]  [niceN-]timer-and-burner: a busy loop (at nice N) and a loop that
#                      spins 2 ms every 10 ms on a timer (each start 10 ms after the last,
#                      at once if that has passed), both pinned to CPU 1, imported with
#                      --pin --timer 'python3=10ms'
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
mode=${1:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/sleeper.py" <<'EOF'
import time
while True:
    t = time.perf_counter()
    while time.perf_counter() - t < 0.002:
        pass
    time.sleep(0.008)
EOF
cat > "$tmp/timer.py" <<'EOF'
import time
start = time.monotonic()
while True:
    t = time.perf_counter()
    while time.perf_counter() - t < 0.002:
        pass
    start += 0.010
    time.sleep(max(0.0, start - time.monotonic()))
EOF
sleeper=sleeper.py
if [[ $mode == spread ]]; then
    out=three-burners-and-sleeper
    record=(-a)
    import=()
    loops=3
    nice=0
elif [[ $mode == timer ]]; then
    nice=${2:-0}
    out=timer-and-burner
    [[ $nice == 0 ]] || out=nice$nice-$out
    record=(-C 1)
    import=(--pin --timer 'python3=10ms')
    loops=1
    sleeper=timer.py
elif [[ $mode == two ]]; then
    out=two-burners-and-sleeper
    record=(-C 1)
    import=(--pin)
    loops=2
    nice=0
else
    out=burner-and-sleeper
    [[ $mode == 0 ]] || out=nice$mode-$out
    record=(-C 1)
    import=(--pin)
    loops=1
    nice=$mode
fi
cat > "$tmp/workload.sh" <<EOF
for i in \$(seq $loops); do timeout 2 nice -n $nice sh -c 'while :; do :; done' & done
timeout 2 python3 "$tmp/$sleeper" &
wait
EOF
pin=()
[[ $mode == spread ]] || pin=(taskset -c 1)
perf sched record "${record[@]}" -o "$tmp/perf.data" -- "${pin[@]}" sh "$tmp/workload.sh" \
    2>/dev/null
# Only the events the import and compare read (perf sched record takes sched_stat_* too).
perf sched script -i "$tmp/perf.data" 2>/dev/null |
    grep -E 'sched:sched_(switch|waking|wakeup|wakeup_new|process_exit|migrate_task):' \
        > "$out.txt"
libsched perf-import "$out.txt" "${import[@]}" --kernel 6.18 --exclude '^perf' -o "$out.toml"
