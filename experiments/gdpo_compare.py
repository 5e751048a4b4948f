"""GDPO against the current aggregation of the quickstart's mixed rewards, on its VALIDATION pages, per seed.

For each finished quickstart run (one per seed), the GRPO stage is trained again from that run's own SFT model twice:
``multi_objective_aggregation: sum_then_normalize`` (TRL's default, the quickstart's recipe as it stands) and
``normalize_then_sum`` (GDPO: each of the six rewards normalised within its group of 4 completions, then summed).
Only the aggregation differs (same SFT model, training pages, trainer seed); each model is scored greedily on the
run's validation pages with the quickstart's metric. Note that GDPO divides by each reward's group std, which the
quickstart's ``scale_rewards: none`` avoids on purpose; that is part of what is compared.

    PYTHONPATH=$PWD nice -n 5 python experiments/gdpo_compare.py --out outputs/gdpo \
        /work/wt-run/outputs/quickstart-0 /work/wt-run/outputs/quickstart-1 /work/wt-run/outputs/quickstart-2
    PYTHONPATH=$PWD python experiments/gdpo_compare.py --small     # a stand-in run: 1 GRPO step per arm, 4 pages

Runs one arm at a time; ``--out`` gets ``seed<S>-<aggregation>.json`` per arm and ``table.json``. Prints one JSON
document: per seed the validation ``overall`` of each arm and GDPO minus the current aggregation, and their means.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from vcoder.pipelines.quickstart.rerun import rerun_grpo
from vcoder.pipelines.quickstart.reuse import stand_in_run

ARMS = ("sum_then_normalize", "normalize_then_sum")


def compare(runs: list[str], out: str, *, small: bool, threads: int | None) -> dict:
    """Both arms on every run; the per-seed table and its means."""
    rows, arms = [], []
    for run in runs:
        by_arm = {}
        for arm in ARMS:
            folder = os.path.join(out, f"{os.path.basename(os.path.normpath(run))}-{arm}")
            result = rerun_grpo(
                run, folder, overrides={"multi_objective_aggregation": arm}, small=small, threads=threads
            )
            with open(os.path.join(out, f"seed{result['seed']}-{arm}.json"), "w") as handle:
                json.dump(result, handle, indent=1)
            arms.append(result)
            by_arm[arm] = result
        current, gdpo = (by_arm[a]["holdout"]["overall"] for a in ARMS)
        rows.append(
            {"seed": by_arm[ARMS[0]]["seed"], ARMS[0]: current, ARMS[1]: gdpo, "gdpo_minus_current": gdpo - current}
        )
    mean = {key: sum(r[key] for r in rows) / len(rows) for key in (*ARMS, "gdpo_minus_current")}
    return {"split": "validation", "small": small, "table": rows, "mean": mean, "arms": arms}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="finished `vcoder quickstart --out DIR` folders, one per seed")
    parser.add_argument("--out", default=None, help="folder for the reruns' models and result files")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--small", action="store_true", help="a tiny stand-in run: 1 GRPO step per arm, 4 pages")
    args = parser.parse_args(argv)
    if not args.runs and not args.small:
        parser.error("give quickstart run folders (one per seed), or --small")
    with tempfile.TemporaryDirectory() as tmp:
        runs = [stand_in_run(os.path.join(tmp, "run"), pages=4)] if args.small else args.runs
        out = args.out or os.path.join(tmp, "out")
        os.makedirs(out, exist_ok=True)
        try:
            report = compare(runs, out, small=args.small, threads=args.threads)
        except (FileNotFoundError, ValueError) as exc:
            print(f"gdpo_compare: {exc}", file=sys.stderr)
            return 2
        with open(os.path.join(out, "table.json"), "w") as handle:
            json.dump(report, handle, indent=1)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
