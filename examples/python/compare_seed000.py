"""Source 000's nice experiment on kernel 5.15, four combos of nice values: the theory (the
kernel's weight table), the simulation and the measurement of A/B, by getrusage utime and
by /proc jiffies, side by side; the figure draws them on one log axis.

    python3 compare_seed000.py [OUT.png]     (default: compare_seed000.png)
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import libsched

REPLAYS = Path(__file__).resolve().parents[1] / "replays"


def main() -> None:
    comparisons = []
    for combo in ("base", "n10", "n20", "neg10"):
        with warnings.catch_warnings():
            # n20's nice 20 is clamped to 19, as the kernel does: expected, not news.
            warnings.simplefilter("ignore", libsched.ScenarioWarning)
            comparison = libsched.compare(REPLAYS / f"seed000-5.15-{combo}.toml")
        print(comparison.table())
        comparisons.append(comparison)
    out = sys.argv[1] if len(sys.argv) > 1 else "compare_seed000.png"
    libsched.plot.save(libsched.plot.plot_comparison(comparisons), out)


if __name__ == "__main__":
    main()
