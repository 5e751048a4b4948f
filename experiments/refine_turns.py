"""Does seeing the render help? The one-shot quickstart's GRPO model, on the pages its quickstart scored, after k
refinement turns (k = 0..K): one row per turn with the quickstart's metric (Design2Code block metrics, ``overall``).

    PYTHONPATH=$PWD nice -n 5 python experiments/refine_turns.py --turns 3 --out outputs/refine-turns \
        /work/wt-run/outputs/quickstart-0 /work/wt-run/outputs/quickstart-1 /work/wt-run/outputs/quickstart-2
    PYTHONPATH=$PWD python experiments/refine_turns.py --small      # a built tiny VLM as a stand-in run, 2 pages

Each run folder is scored in turn (one at a time); ``--out`` gets ``seed<S>.json`` per run and ``table.json`` (the
mean over the runs per turn). Prints one JSON document. The loop: ``vcoder.pipelines.quickstart.refine_turns``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from vcoder.pipelines.quickstart.refine_turns import run_refine_turns
from vcoder.pipelines.quickstart.reuse import stand_in_run

METRICS = ("block_match", "text", "position", "color", "overall", "valid", "changed")


def mean_table(results: list[dict]) -> list[dict]:
    """The per-turn mean over runs (and each run's ``overall``)."""
    table = []
    for k in range(len(results[0]["turns"])):
        rows = [r["turns"][k] for r in results]
        row = {"turn": k, "runs": len(rows)}
        for name in METRICS:
            values = [x[name] for x in rows if x.get(name) is not None]
            row[name] = round(sum(values) / len(values), 4) if values else None
        row["overall_by_seed"] = {str(r["seed"]): round(x["overall"], 4) for r, x in zip(results, rows)}
        table.append(row)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="finished `vcoder quickstart --out DIR` folders")
    parser.add_argument("--turns", type=int, default=3, help="refinement turns after the one-shot answer (K)")
    parser.add_argument("--model", default="grpo", choices=["grpo", "sft"], help="which of each run's models")
    parser.add_argument("--out", default=None, help="folder for seed<S>.json and table.json")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--small", action="store_true", help="a tiny stand-in run of 2 pages, 1 turn")
    args = parser.parse_args(argv)
    if not args.runs and not args.small:
        parser.error("give quickstart run folders, or --small")
    with tempfile.TemporaryDirectory() as tmp:
        runs = [stand_in_run(tmp)] if args.small else args.runs
        turns = 1 if args.small else args.turns
        results = []
        for run in runs:
            try:
                result = run_refine_turns(run, turns=turns, model=args.model, threads=args.threads)
            except (FileNotFoundError, ValueError) as exc:
                print(f"refine_turns: {exc}", file=sys.stderr)
                return 2
            results.append({"run": os.path.abspath(run), **result})
            if args.out:
                os.makedirs(args.out, exist_ok=True)
                with open(os.path.join(args.out, f"seed{result['seed']}.json"), "w") as handle:
                    json.dump(results[-1], handle, indent=1)
        report = {"turns": turns, "model": args.model, "table": mean_table(results), "runs": results}
        if args.out:
            with open(os.path.join(args.out, "table.json"), "w") as handle:
                json.dump(report, handle, indent=1)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
