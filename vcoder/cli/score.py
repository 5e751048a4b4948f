"""`vcoder score`: score one prediction (raw model output or HTML) against a reference page or screenshot."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

DEFAULT_REWARDS = "format,validity,dom,ssim,block,text,position,color,visual"


def add_parser(sub, name: str) -> None:
    p = sub.add_parser(
        name,
        help="score a prediction against a reference with vcoder's rewards",
        description="Score PRED (raw model output or an HTML file) against REF (.html: rendered, enables layout "
        "rewards; .png/.jpg: screenshot only). Prints {'rewards': {name: float in [0,1] or null}, 'elapsed_ms'}. "
        "null means the reward cannot judge this pair (e.g. layout rewards against a screenshot reference).",
    )
    p.add_argument("--ref", required=True, type=Path, help="reference page (.html) or screenshot (.png/.jpg)")
    p.add_argument("--pred", required=True, type=Path, help="prediction file: raw model output or HTML")
    p.add_argument(
        "--rewards", default=DEFAULT_REWARDS, help=f"comma-separated reward names (default: {DEFAULT_REWARDS})"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (the default output format too)")
    from vcoder.rewards.settings import add_reward_flags

    add_reward_flags(p.add_argument_group("reward parameters (vcoder.rewards.RewardSettings)"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for label, path in (("--ref", args.ref), ("--pred", args.pred)):
        if not path.is_file():
            print(f"vcoder score: {label} {path} does not exist or is not a file", file=sys.stderr)
            return 2
    suffix = args.ref.suffix.lower()
    if suffix not in (".html", ".htm", ".png", ".jpg", ".jpeg", ".webp"):
        print(f"vcoder score: --ref must be .html or an image (.png/.jpg/.webp), got {args.ref}", file=sys.stderr)
        return 2
    names = [n.strip() for n in args.rewards.split(",") if n.strip()]

    from vcoder.rewards import RewardSettings, build_rewards

    params = {f.name: getattr(args, f.name) for f in dataclasses.fields(RewardSettings)}
    try:
        funcs = build_rewards(names, **params)
    except Exception as exc:  # bad configuration: unknown name, missing CLIP weights, bad parameter
        print(f"vcoder score: {exc}", file=sys.stderr)
        return 2

    columns: dict = {}
    if suffix in (".html", ".htm"):
        columns["html"] = [args.ref.read_text(encoding="utf-8", errors="replace")]
    else:
        from vcoder.images import to_pil

        columns["image"] = [to_pil(args.ref)]
    pred = args.pred.read_text(encoding="utf-8", errors="replace")

    import asyncio

    start = time.perf_counter()

    async def score_all():
        return await asyncio.gather(*(f(completions=[pred], prompts=[""], **columns) for f in funcs))

    results = asyncio.run(score_all())
    out = {
        "rewards": {name: (None if r[0] is None else round(float(r[0]), 6)) for name, r in zip(names, results)},
        "elapsed_ms": round((time.perf_counter() - start) * 1000, 1),
    }
    print(json.dumps(out))
    return 0
