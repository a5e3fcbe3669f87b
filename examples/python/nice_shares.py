"""Two CPU burners on one CPU, nice 0 and nice 5, under old CFS (5.15) and EEVDF (6.12):
how the CPU is shared and how often the tasks switch. examples/cpp/nice_shares.cpp builds
the same scenario in C++ and prints the same lines."""

from __future__ import annotations

import libsched

SCENARIO = """
name = "nice-shares"
length = "20s"
window = ["2s", "20s"]
[machine]
cpus = 1
hz = 250
kernel = "{release}"
[[tasks]]
name = "a"
[[tasks]]
name = "b"
nice = 5
"""


def main() -> None:
    for release in ("5.15", "6.12"):
        result = libsched.run_text(SCENARIO.format(release=release))
        for t in result["repetitions"][0]["tasks"]:
            print(
                f"{release} {t['name']} nice {t['nice']}: share {100 * t['share']:.2f} %, "
                f"/proc utime {t['stat_utime_end'] - t['stat_utime_start']}, "
                f"involuntary switches {t['nivcsw']}"
            )


if __name__ == "__main__":
    main()
