"""``vcoder models tiny``: build a tiny offline Qwen-VL model (random weights, local tokenizer) into a folder."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help="build model checkpoints offline (tiny test/quickstart models)")
    sub = parser.add_subparsers(dest="models_command", metavar="ACTION")
    tiny = sub.add_parser(
        "tiny",
        help="a tiny randomly initialised Qwen-VL model with a locally trained tokenizer (no downloads)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    tiny.add_argument("--arch", default="qwen2_5_vl", choices=["qwen2_5_vl", "qwen3_vl"], help="model classes")
    tiny.add_argument("--size", default="tiny", choices=["tiny", "small", "base"], help="size preset")
    tiny.add_argument("--out", required=True, type=Path, help="output folder (from_pretrained loads it)")
    tiny.add_argument("--seed", type=int, default=0, help="seed of the random weights")
    tiny.set_defaults(func=run)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def run(args) -> int:
    from vcoder.models.tiny import build_tiny_vlm

    out = build_tiny_vlm(args.out, arch=args.arch, size=args.size, seed=args.seed)
    info = json.loads((out / "vcoder_tiny.json").read_text())
    print(json.dumps({"out": str(out), **info}))
    return 0
