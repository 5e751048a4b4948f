"""The agent quickstart's Step-GRPO stage rerun with a recipe change, from each finished run's own SFT model, scored
on the VALIDATION tasks (recipe choices are made there; test is scored once, with `vcoder quickstart --agent`).

    PYTHONPATH=$PWD python experiments/agent_rerun.py --set max_turns=6 --out outputs/turns6 \\
        outputs/aqw-s0 outputs/aqw-s1 outputs/aqw-s2

Each run folder is a finished `vcoder quickstart --agent [--agent-format webgen_agent] --out DIR`. Runs one rerun at a
time (``--small``: one Step-GRPO step and 2 scored tasks a run, a check of the path); ``--out`` gets ``seed<S>/``
(the model and ``rerun.json``) per run and ``table.json``. The SFT model's score on the same tasks is computed once
per run folder (``DIR/rerun-validation-sft.json``). Prints the table: per seed the SFT and Step-GRPO accuracy on
validation, their difference, and the mean difference.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from vcoder.pipelines.agent_quickstart.rerun import rerun_step_grpo
from vcoder.usage import OneLineParser, key_values


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="finished `vcoder quickstart --agent --out DIR` folders, one per seed")
    parser.add_argument("--out", required=True, help="folder for the reruns' models and result files")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a Step-GRPO recipe key")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument(
        "--small", action="store_true", help="one Step-GRPO step and 2 scored tasks a run (no learning)"
    )
    args = parser.parse_args(argv)
    try:
        overrides = key_values(args.set, example="max_turns=6")
    except ValueError as exc:
        parser.error(str(exc))
    rows = []
    try:
        for run in args.runs:
            with open(os.path.join(run, "summary.json"), encoding="utf-8") as handle:
                seed = json.load(handle)["seed"]
            result = rerun_step_grpo(
                run, os.path.join(args.out, f"seed{seed}"), overrides=overrides, small=args.small, threads=args.threads
            )
            sft, grpo = result["sft"]["accuracy"], result["step_grpo"]["accuracy"]
            rows.append(
                {
                    "seed": seed,
                    "split_digest": result["split_digest"],
                    "sft": sft,
                    "step_grpo": grpo,
                    "step_grpo_minus_sft": grpo - sft,
                    "step_reward": result["step_reward"],
                }
            )
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    table = {
        "split": "validation",
        "small": args.small,
        "overrides": overrides,
        "table": rows,
        "mean_step_grpo_minus_sft": sum(r["step_grpo_minus_sft"] for r in rows) / len(rows),
    }
    with open(os.path.join(args.out, "table.json"), "w", encoding="utf-8") as handle:
        json.dump(table, handle, indent=1)
    print(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
