"""`vcoder quickstart [--agent] [--out DIR] [--seed S] [--fast]`: the whole method, small, offline, on a CPU.

Builds a tiny Qwen2.5-VL, generates synthetic pages and screenshots, SFT warm start, GRPO with rendering rewards,
evaluates untrained / SFT / GRPO models on held-out pages with the Design2Code block metrics, writes training
curves, then prints a summary table and where everything is (summary.json holds the same figures).

With --agent, the site-building agent (WebGen-RL) instead: a tiny Qwen3 text model, agent SFT on multi-turn
trajectories played in the real environment, Step-GRPO from the SFT model, and greedy episodes on held-out site
tasks scored with WebGen-Bench's accuracy for the untrained, SFT and Step-GRPO models.
"""

from __future__ import annotations

import argparse
from typing import Any

from vcoder.usage import key_values


def add_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(
        name,
        help="end-to-end demo on CPU: tiny model, synthetic pages, SFT, GRPO, held-out eval, curves",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--agent", action="store_true", help="the multi-turn site-building agent: agent SFT, then Step-GRPO"
    )
    parser.add_argument(
        "--out", default=None, help="output folder (default: outputs/quickstart, or outputs/quickstart-agent)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the model, the pages and the trainers")
    parser.add_argument("--fast", action="store_true", help="a shortened smoke run (a minute or two; no learning)")
    parser.add_argument("--arch", default="qwen2_5_vl", choices=["qwen2_5_vl", "qwen3_vl"], help="tiny model arch")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch CPU threads (default: the cores idle at the start, at most 4, at least 1)",
    )
    parser.add_argument(
        "--sft-only",
        action="store_true",
        help="stop after the SFT stage: DIR/sft is the start of the CPU curricula (configs/curriculum/tiny_cpu*.yaml)",
    )
    parser.add_argument(
        "--split",
        default="test",
        choices=["test", "validation"],
        help="the split scored: test (the reported figures) or validation (pilots, sweeps and recipe choices read it)",
    )
    parser.add_argument(
        "--grpo-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a key of the GRPO stage's recipe (repeatable; VALUE read as YAML), e.g. "
        "--grpo-set multi_objective_aggregation=normalize_then_sum (GDPO: each reward normalised in its group)",
    )
    parser.add_argument(
        "--agent-format",
        default="vcoder",
        choices=["vcoder", "webgen_agent"],
        help="with --agent, whose loop every stage speaks: vcoder (its <file> markup, prompt and feedback) or "
        "webgen_agent (WebGen-Agent's: Bolt markup, its system prompt, feedback, malformed rules and step reward)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary JSON instead of the table")
    parser.set_defaults(func=run)


def run(args) -> int:
    import json
    import logging
    import sys
    import warnings

    from vcoder.pipelines.quickstart import check_grpo_overrides, run_quickstart

    # the progress bars are the output; library chatter stays out unless -v was given
    if logging.getLogger().level >= logging.WARNING:
        for name in ("transformers", "trl", "accelerate", "datasets"):
            logging.getLogger(name).setLevel(logging.ERROR)
        # every reward render re-asks get_default_pool with options and it warns each time; noise here
        logging.getLogger("vcoder.rendering.sync").setLevel(logging.ERROR)
        # deprecation notices from inside transformers/TRL (not ours to act on) would break the progress bars
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"(transformers|trl)\.")
    if args.agent_format != "vcoder" and not args.agent:
        raise SystemExit(f"--agent-format {args.agent_format} applies to the agent quickstart: add --agent")
    if args.agent and args.grpo_set:
        print(
            "vcoder quickstart: --grpo-set changes the one-shot GRPO stage; the agent quickstart has none",
            file=sys.stderr,
        )
        return 2
    if args.agent:
        from vcoder.pipelines.agent_quickstart import run_agent_quickstart

        out = args.out or "outputs/quickstart-agent"
        summary = run_agent_quickstart(
            out,
            seed=args.seed,
            fast=args.fast,
            threads=args.threads,
            split=args.split,
            agent_format_name=args.agent_format,
        )
        print(json.dumps(summary, indent=1) if args.json else format_agent_summary(summary))
        return 0
    out = args.out or "outputs/quickstart"
    try:
        overrides = key_values(
            args.grpo_set, flag="--grpo-set", example="multi_objective_aggregation=normalize_then_sum"
        )
        check_grpo_overrides(overrides)
    except ValueError as exc:
        print(f"vcoder quickstart: {exc}", file=sys.stderr)
        return 2
    summary = run_quickstart(
        out,
        seed=args.seed,
        fast=args.fast,
        arch=args.arch,
        threads=args.threads,
        sft_only=args.sft_only,
        split=args.split,
        grpo_overrides=overrides,
    )
    if summary.get("sft_only"):
        print(json.dumps(summary, indent=1))
        return 0
    print(json.dumps(summary, indent=1) if args.json else format_summary(summary))
    return 0


def format_summary(summary: dict[str, Any]) -> str:
    """A human-readable table of a quickstart summary."""
    reward = summary["grpo_reward"]
    sampled = reward["sampled"]
    lines = [
        f"vcoder quickstart (seed {summary['seed']}): {summary['n_train']} training pages, "
        f"{summary['n_holdout']} {summary['split']} pages, {summary['wall_s']:.0f} s wall",
        "",
        f"GRPO reward (of {sum(reward['weights'].values()):g}) on the same {reward['pages']} training pages, "
        f"greedy: SFT {reward['start']:.3f} -> GRPO {reward['end']:.3f} (delta {reward['delta']:+.3f})",
        f"  sampled, logged (varied pages, first/last {sampled['window']} of {sampled['steps']} generations): "
        f"{sampled['start']:.3f} -> {sampled['end']:.3f}",
        "",
        f"Design2Code on the {summary['split']} split (digest {summary['split_digest']}, greedy decoding)",
        f"{'model':<11}" + "".join(f"{m:>13}" for m in ("block_match", "text", "position", "color", "overall")),
    ]
    for name, metrics in summary["holdout"].items():
        row = "".join(f"{metrics[m]:>13.3f}" for m in ("block_match", "text", "position", "color", "overall"))
        lines.append(f"{name:<11}{row}")
    lines += ["", "Where everything is:"]
    lines += [f"  {name:<11} {path}" for name, path in summary["paths"].items() if path]
    lines.append("  stage times (s): " + ", ".join(f"{k} {v:.0f}" for k, v in summary["timings_s"].items()))
    return "\n".join(lines)


def format_agent_summary(summary: dict[str, Any]) -> str:
    """A human-readable table of an agent quickstart summary."""
    reward = summary["step_reward"]
    keys = ("accuracy", "well_formed", "first_turn_accuracy", "last_turn_accuracy")
    lines = [
        f"vcoder quickstart --agent (seed {summary['seed']}, {summary.get('agent_format', 'vcoder')} format): "
        f"{summary['n_train']} training tasks "
        f"({', '.join(summary['kinds'])}), {summary['n_heldout']} {summary['split']} tasks, {summary['wall_s']:.0f} s wall",
        "",
        f"Step-GRPO step reward (0-10, -1 malformed), sampled, first/last {reward['window']} of {reward['steps']} "
        f"steps: {reward['start']:.2f} -> {reward['end']:.2f}"
        if reward["steps"]
        else "Step-GRPO step reward: no step scored (every trajectory dropped: its replies reached their token cap)",
        "",
        f"Site tasks of the {summary['split']} split (digest {summary['split_digest']}), greedy episodes (WebGen-Bench "
        "accuracy = (YES + 0.5 PARTIAL) / cases)",
        f"{'model':<11}{'accuracy':>10}{'well-formed':>13}{'first turn':>12}{'last turn':>11}",
    ]
    for name, m in summary["heldout"].items():
        lines.append(f"{name:<11}" + "".join(f"{m[k]:>{w}.3f}" for k, w in zip(keys, (10, 13, 12, 11))))
    lines += ["", "Where everything is:"]
    lines += [f"  {name:<13} {path}" for name, path in summary["paths"].items() if path]
    lines.append("  stage times (s): " + ", ".join(f"{k} {v:.0f}" for k, v in summary["timings_s"].items()))
    return "\n".join(lines)
