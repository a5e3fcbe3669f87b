"""``python -m libsched`` and the ``libsched`` console script: the C++ command-line tool."""

from __future__ import annotations

import sys

from . import _core


def main() -> None:
    sys.exit(_core.run.cli_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
