"""A light periodic task among 1 to 8 burners on one CPU, on 5.15 (CFS), 6.6 and 6.18
(EEVDF): the sweep file examples/latency/cfs-vs-eevdf/burners.toml run from Python. Prints
the light task's p50 and p99 wakeup latency per release for each burst length and burner
count; with a file name, also draws the p99 per release against the burner count
(matplotlib). docs/latency.md explains the numbers."""

from __future__ import annotations

import sys
from pathlib import Path

import libsched

SWEEP = Path(__file__).resolve().parents[1] / "latency" / "cfs-vs-eevdf" / "burners.toml"
KERNELS = ("5.15", "6.6", "6.18")
RUN = "tasks.light.behaviour.run"
BURNERS = "tasks.burner.count"


def main() -> None:
    scenario, options = libsched.load_sweep(SWEEP)
    table = libsched.sweep(scenario, jobs=1, progress=False, **options).to_pandas()
    ms = {figure: table[f"light.wakeup_latency.{figure}"] / 1e6 for figure in ("p50", "p99")}

    print("wakeup latency of the light task (ms), p50 / p99, one CPU, HZ 250")
    print("burst  burners  " + "  ".join(f"{k:>13}" for k in KERNELS))
    for run in options["axes"][RUN]:
        for count in options["axes"][BURNERS]:
            cells = []
            for kernel in KERNELS:
                row = (
                    (table[RUN] == run)
                    & (table[BURNERS] == count)
                    & (table["machine.kernel"] == kernel)
                )
                p50, p99 = ms["p50"][row].item(), ms["p99"][row].item()
                cells.append(f"{p50:6.3f}/{p99:6.3f}")
            print(f"{run:>5}  {count:7d}  " + "  ".join(cells))

    if len(sys.argv) > 1:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
        for ax, run in zip(axes, options["axes"][RUN]):
            for kernel, marker in zip(KERNELS, "os^"):
                rows = table[(table[RUN] == run) & (table["machine.kernel"] == kernel)]
                ax.plot(rows[BURNERS], ms["p99"][rows.index], marker + "-", label=kernel)
            ax.set_title(f"burst {run} every 10.1 ms")
            ax.set_xlabel("burners on the CPU")
            ax.set_xticks(options["axes"][BURNERS])
            ax.grid(True, alpha=0.3)
        axes[0].set_ylabel("p99 wakeup latency (ms)")
        axes[0].legend(title="kernel")
        fig.suptitle("A light periodic task among burners: CFS against EEVDF (simulated)")
        fig.tight_layout()
        fig.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
