"""The share of a nice-X burner against a nice-0 one, X from -20 to 19, on 5.15 (CFS), 6.6
and 6.18 (EEVDF), with the theory of the kernel's weight table beside it: the sweep file
examples/sweeps/nice-ladder.toml run from Python. Prints every third nice level; with a
file name, also draws the shares on a log axis (matplotlib)."""

from __future__ import annotations

import sys
from pathlib import Path

import libsched

SWEEP = Path(__file__).resolve().parents[1] / "sweeps" / "nice-ladder.toml"
KERNELS = ("5.15", "6.6", "6.18")


def main() -> None:
    scenario, options = libsched.load_sweep(SWEEP)
    table = libsched.sweep(scenario, progress=False, **options).to_pandas()
    shares = table.pivot(index="tasks.x.nice", columns="machine.kernel", values="x.share")
    theory = table.groupby("tasks.x.nice")["x.theory_share"].first()

    print("share of one CPU (%) of the nice-X burner against a nice-0 one")
    print("nice  theory  " + "  ".join(f"{k:>6}" for k in KERNELS))
    for nice in range(-20, 20, 3):
        cells = "  ".join(f"{100 * shares.loc[nice, k]:6.2f}" for k in KERNELS)
        print(f"{nice:4d}  {100 * theory[nice]:6.2f}  {cells}")
    worst = (shares.sub(theory, axis=0).abs() * 100).max()
    print(
        "largest gap to the theory (points): " + ", ".join(f"{k} {worst[k]:.2f}" for k in KERNELS)
    )

    if len(sys.argv) > 1:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.5))
        ax.plot(theory.index, 100 * theory, color="black", linewidth=1, label="theory")
        for kernel, marker in zip(KERNELS, "os^"):
            ax.plot(
                shares.index,
                100 * shares[kernel],
                marker,
                markersize=4,
                fillstyle="none",
                label=f"simulated {kernel}",
            )
        ax.set_yscale("log")
        ax.set_xlabel("nice of the swept burner (the other is at nice 0)")
        ax.set_ylabel("its share of one CPU (%)")
        ax.set_title("nice-X burner against a nice-0 burner on one CPU")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
