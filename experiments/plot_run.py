"""Plot training curves of one or more runs: `python experiments/plot_run.py RUN_DIR [--runs DIR ...] [--smooth K]`.

The same code as `vcoder plot` (vcoder.pipelines.plots); see `--help`.
"""

from __future__ import annotations

import argparse
import sys

from vcoder.cli import plot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    plot.add_arguments(parser)
    return plot.run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
