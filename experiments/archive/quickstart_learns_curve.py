"""The greedy probe reward of tests/pipelines/test_quickstart_learns.py against GRPO steps, for one seed.

    python experiments/archive/quickstart_learns_curve.py --seed 0 --out runs/learns_curve [--steps 24] [--lr 1e-4]

The test's set-up exactly (tiny VLM, the quickstart's whole SFT, GRPO on the 8 probe pages with 8 completions each),
but one GRPO run with a checkpoint every 4 steps: the schedule is constant after warm-up, so checkpoint k is a k-step
run, and one run gives the whole curve. Writes ``OUT/curve_seedS.json`` ({steps: greedy reward}) and the SFT/GRPO
wall seconds. ``--lr 0`` is the control the test must fail on. Torch threads: the machine's for SFT (as the test),
one for GRPO (as the test).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

PAGES, GENERATIONS = 8, 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--lr", type=float, default=None, help="GRPO learning rate (default: the quickstart's)")
    args = parser.parse_args()

    import torch

    from vcoder.data import to_dataset
    from vcoder.models.tiny import build_tiny_vlm
    from vcoder.pipelines import grpo
    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.grpo.data import synthetic_rows
    from vcoder.pipelines.grpo.probe import reward_probe
    from vcoder.pipelines.quickstart import DATA, GRPO_RECIPE, SFT_RECIPE, train_stage
    from vcoder.rendering import BrowserPool
    from vcoder.rewards import build_rewards

    out = args.out / f"seed{args.seed}"
    out.mkdir(parents=True, exist_ok=True)
    log: dict = {"seed": args.seed, "steps": args.steps, "lr": args.lr}
    init = str(build_tiny_vlm(out / "init", arch="qwen2_5_vl", size="small", seed=args.seed))
    with BrowserPool(max_pages=2) as pool:
        rows = synthetic_rows(DATA["n_train"], seed=args.seed, width=DATA["width"], height=DATA["height"], pool=pool)
    if not (out / "sft" / "config.json").exists():  # a rerun (e.g. --lr 0) keeps the seed's SFT model
        start = time.time()
        recipe = dict(SFT_RECIPE, model_name_or_path=init, output_dir=str(out / "sft"), seed=args.seed)
        train_stage(sft, recipe, to_dataset(rows), label="SFT", progress=True)
        log["sft_s"] = round(time.time() - start, 1)

    torch.set_num_threads(1)
    probe = rows[:PAGES]
    funcs = build_rewards(GRPO_RECIPE["reward_funcs"], render_width=DATA["width"], render_height=DATA["height"])
    weights = GRPO_RECIPE["reward_weights"]
    curve = {0: reward_probe(str(out / "sft"), probe, reward_funcs=funcs, reward_weights=weights)["reward"]}
    grpo_dir = out / ("grpo" if args.lr is None else f"grpo_lr{args.lr:g}")
    recipe = dict(GRPO_RECIPE, model_name_or_path=str(out / "sft"), output_dir=str(grpo_dir))
    recipe.update(seed=args.seed, max_steps=args.steps, num_generations=GENERATIONS, log_completions=False)
    recipe.update(save_strategy="steps", save_steps=4)
    if args.lr is not None:
        recipe.update(learning_rate=args.lr)
    start = time.time()
    train_stage(grpo, recipe, to_dataset(probe), label="GRPO", progress=True)
    log["grpo_s"] = round(time.time() - start, 1)
    for k in range(4, args.steps + 1, 4):
        model_dir = grpo_dir / f"checkpoint-{k}"
        curve[k] = reward_probe(str(model_dir), probe, reward_funcs=funcs, reward_weights=weights)["reward"]
    log["curve"] = curve
    name = f"curve_seed{args.seed}" + ("" if args.lr is None else f"_lr{args.lr:g}")
    (args.out / f"{name}.json").write_text(json.dumps(log, indent=1))
    print(json.dumps(log))


if __name__ == "__main__":
    main()
