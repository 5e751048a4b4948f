"""`vcoder train grpo|sft|step-grpo --config RECIPE.yaml [--flag value ...]`: the training pipelines, in this process.

The same recipes and overrides as `accelerate launch -m vcoder.pipelines.grpo` (or `.grpo.sft`, `.step_grpo`); for
several processes use accelerate launch (two CPU processes: `--config_file configs/accelerate/cpu_2proc.yaml`). Before training each pipeline estimates what the run will write to output_dir
(model, checkpoints with optimizer state, save_total_limit) and warns when the disk has less free space.
"""

from __future__ import annotations

import argparse

PIPELINES = {
    "grpo": "vcoder.pipelines.grpo.train",
    "sft": "vcoder.pipelines.grpo.sft",
    "step-grpo": "vcoder.pipelines.step_grpo.train",
}


def add_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(
        name,
        help="train with GRPO, SFT or Step-GRPO from a YAML recipe (TRL configs + vcoder script arguments)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "pipeline",
        choices=sorted(PIPELINES),
        help="grpo (one-shot RL with rendering rewards), sft, or step-grpo (multi-turn site building)",
    )
    parser.add_argument(
        "args",
        nargs=argparse.REMAINDER,
        help="--config RECIPE.yaml and any recipe key as --key value (e.g. --max_steps 20); --help lists them",
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    import importlib
    import sys

    from vcoder.pipelines.recipes import RecipeError

    module = importlib.import_module(PIPELINES[args.pipeline])
    try:
        return module.cli(args.args)
    except RecipeError as exc:
        print(f"vcoder train {args.pipeline}: {exc}", file=sys.stderr)
        return 2
