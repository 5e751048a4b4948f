"""`vcoder curriculum run --config configs/curriculum/....yaml --out DIR [--seed S] [--max-phases N] [--set k=v ...]`.

Runs WebRL's self-evolving curriculum (vcoder.pipelines.curriculum.run): N phases of train / judge / grow the task pool,
resuming at the next phase after a kill. Prints one JSON line per phase (phase, success rate, pool size, accepted,
rejected) and the path of DIR/curriculum.json at the end. Exit 0 done, 2 bad config or run folder.
"""

from __future__ import annotations

import argparse

from vcoder.usage import key_values


def add_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(
        name,
        help="WebRL curriculum: phases of training, judging and growing the task pool",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    run_parser = sub.add_parser("run", help="run or resume a curriculum")
    run_parser.add_argument("--config", required=True, help="curriculum recipe (configs/curriculum/*.yaml)")
    run_parser.add_argument("--out", required=True, help="run folder (phase_<k>/, curriculum.json)")
    run_parser.add_argument(
        "--max-phases", type=int, default=None, metavar="N", help="stop once N phases are complete (rerun to go on)"
    )
    run_parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="seed of every phase's training (the recipe's key seed; web_agent recipes: also task instances, sampling)",
    )
    run_parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a recipe key (YAML value)"
    )
    run_parser.set_defaults(func=run)
    sft_parser = sub.add_parser("web-sft", help="the web agent's SFT start: scripted demonstrations and a policy")
    sft_parser.add_argument("--config", required=True, help="a trainer: web_agent recipe (its sft_* settings)")
    sft_parser.add_argument("--out", required=True, help="model folder (demos.jsonl, sft.json, the policy)")
    sft_parser.add_argument("--seed", type=int, default=None, help="the run's seed (which training tasks)")
    sft_parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a recipe key (YAML value)"
    )
    sft_parser.set_defaults(func=web_sft)


def _web_config(args):
    """The recipe as a ``WebAgentConfig`` when it says ``trainer: web_agent`` (None otherwise)."""
    import yaml

    from vcoder.pipelines.web_agent.config import WebAgentConfig

    try:
        with open(args.config, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except (OSError, yaml.YAMLError):
        return None  # the curriculum's own loader says what is wrong with the file, in its words
    if not isinstance(data, dict) or data.get("trainer") != "web_agent":
        return None
    data = {**data, **key_values(args.set, example="phases=2")}
    if data.get("trainer") != "web_agent":
        return None
    if args.seed is not None:
        data["seed"] = args.seed
    return WebAgentConfig.from_dict(data)


def web_sft(args) -> int:
    import contextlib
    import json
    import sys

    from vcoder.pipelines.web_agent.sft import sft_start

    try:
        config = _web_config(args)
        if config is None:
            raise ValueError(f"{args.config} is not a trainer: web_agent recipe")
        with contextlib.redirect_stdout(sys.stderr):
            info = sft_start(config, args.out)
    except (OSError, ValueError) as exc:
        print(f"vcoder curriculum: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"model": args.out, **info}))
    return 0


def _run_web(args, config) -> int:
    import contextlib
    import json
    import sys

    from vcoder.pipelines.web_agent.run import run_web_curriculum

    stdout = sys.stdout
    keys = ("phase", "success_rate", "heldout_success_before", "heldout_success", "pool_size", "accepted")

    def show(report: dict) -> None:
        print(json.dumps({k: report[k] for k in keys}), file=stdout, flush=True)

    with contextlib.redirect_stdout(sys.stderr):
        summary = run_web_curriculum(config, args.out, stop_after=args.max_phases, on_phase=show)
    print(json.dumps({"curriculum": f"{args.out}/curriculum.json", "phases": len(summary["phases"])}))
    return 0


def run(args) -> int:
    import contextlib
    import json
    import sys
    from pathlib import Path

    from vcoder.pipelines.curriculum.config import CurriculumConfigError, load_config
    from vcoder.pipelines.curriculum.run import RunFolderError, check_start_model, run_curriculum
    from vcoder.pipelines.recipes import RecipeError

    stdout = sys.stdout  # one JSON line per phase; the trainers' progress prints go to stderr

    def show(report: dict) -> None:
        keys = ("phase", "success_rate", "heldout_success_before", "heldout_success", "pool_size", "accepted")
        line = {k: report.get(k) for k in (*keys, "rejected", "replay")}
        print(json.dumps(line), file=stdout, flush=True)

    try:
        web = _web_config(args)
        if web is not None:
            return _run_web(args, web)
        overrides = key_values(args.set, example="phases=2")
        if args.seed is not None:
            overrides["seed"] = args.seed
        config = load_config(args.config, overrides=overrides)
        if not (Path(args.out) / "phase_0" / "report.json").exists():  # phase 0 starts from the recipe's model
            check_start_model(config.model_name_or_path, recipe=args.config)
        with contextlib.redirect_stdout(sys.stderr):
            summary = run_curriculum(config, args.out, stop_after=args.max_phases, on_phase=show)
    except (CurriculumConfigError, RunFolderError, RecipeError, ValueError) as exc:
        print(f"vcoder curriculum: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"curriculum": f"{args.out}/curriculum.json", "phases": len(summary["phases"])}))
    return 0
