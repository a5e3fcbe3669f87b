"""Source 000's nice experiment (two nice-0 and two nice-10 busy loops, their A/B split) on
the machine at hand: the scenario built in a few lines for this host, simulated, measured
on this host with --measure (root; about 4 s), and the theory, the simulation and the
measurement drawn side by side. Without --measure only theory and simulation are shown.

    python examples/python/seed000_here.py seed000.png [--measure]
"""

from __future__ import annotations

import sys

import libsched


def main() -> None:
    scenario = libsched.Scenario(
        name="seed000-here",
        length="3.2s",
        window=["0.5s", "3s"],
        reference="b",
        machine=libsched.host_machine(),  # this host's CPUs, topology, kernel and HZ
        tasks=[
            {"name": "a", "count": 2, "lifetime": "3s"},
            {"name": "b", "count": 2, "nice": 10, "lifetime": "3s", "after": "a"},
        ],
    )
    measured = libsched.measure(scenario, repetitions=1) if "--measure" in sys.argv else None
    comparison = libsched.compare(scenario, measured=measured)
    print(comparison.table())
    if len(sys.argv) > 1 and not sys.argv[1].startswith("--"):
        ax = libsched.plot.plot_comparison(comparison, quantities=["share"])
        libsched.plot.save(ax, sys.argv[1])


if __name__ == "__main__":
    main()
