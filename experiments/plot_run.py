"""Plot training curves: `python3 experiments/plot_run.py [RUN_DIR ...] [--run_dir DIR] [--checkpoint N] [--smooth K]`.

VisionCoder's defaults: no run named plots the latest run under ./outputs/; `--run_dir outputs/vcoder-grpo-clip
--checkpoint 300` reads checkpoint-300's trainer_state.json; the plots go to <run_dir>/plots/. The same code as
`vcoder plot` (vcoder.cli.plot over vcoder.pipelines.plots); see `--help`.
"""

from __future__ import annotations

import sys

from vcoder.cli.plot import add_arguments, run
from vcoder.usage import OneLineParser


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="plot_run.py", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
