"""``python -m libsched`` and the ``libsched`` console script: the C++ command-line tool,
with the subcommands written in Python dispatched here."""

from __future__ import annotations

import signal
import sys
from typing import Callable, Optional

from . import _core
from .compare import main as compare_main
from .measure import main as measure_main
from .perf_sched import main as perf_import_main
from .sweep import main as sweep_main

# Subcommand -> (its main, taking the arguments after the subcommand; its line of --help).
PYTHON_COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "compare": (compare_main, "Print theory, simulated and measured figures side by side"),
    "measure": (measure_main, "Run a scenario on this Linux host and report it as run does"),
    "sweep": (sweep_main, "Run a scenario over a grid of parameter values ([sweep] table)"),
    "perf-import": (perf_import_main, "Turn a perf sched trace into a scenario (TOML)"),
}


def main(argv: Optional[list[str]] = None) -> None:
    if argv is None and hasattr(signal, "SIGPIPE"):
        # Output piped into `head` and the like ends quietly when the reader goes, as a C
        # tool's does; Python's default would raise BrokenPipeError inside the C++ tool's
        # output redirection, which cannot pass it on and aborts.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in PYTHON_COMMANDS:
        sys.exit(PYTHON_COMMANDS[args[0]][0](args[1:]))
    status = _core.run.cli_main(args)
    if args in ([], ["-h"], ["--help"]):
        print("Subcommands in Python:")
        for name, (_, summary) in PYTHON_COMMANDS.items():
            print(f"  {name:<28}{summary}")
    sys.exit(status)


if __name__ == "__main__":
    main()
