"""Seconds per episode step spent rendering + grading vs generating, in Step-GRPO rollouts on CPU; prints one JSON.

    python bench/step_grpo.py [--model DIR] [--tasks 2] [--generations 2] [--turns 2] [--rounds 2] [--small]
    (--small: 1 task, 2 generations, 1 turn, 1 round, no warm-up: the test suite's smoke run; its figures are not
    comparable)

One run of the real rollout path (``StepGRPOTrainer._generate_and_score_completions``: templating, generation,
rendering, scripted test cases, TRL's batch assembly) on the tiny offline model and generated counter tasks. The
random tiny model never writes a working site, so each turn is generated twice, in the same round: the model samples
as many tokens as the scripted reply has (timed: ``generate``), then the scripted reply (a page with one working
button, then the complete page) is what the episode receives, so that real sites are rendered and graded (timed per
call: ``grade``; a round's grading runs concurrently on the shared pool). The first round warms the browser up and is
not counted.

- ``grade_s_per_step``: mean seconds of one step's grading (render the site, settle, run its 4 scripted cases);
- ``generate_s_per_step``: a round's batched generation time divided by the steps it produced;
- ``rollout_s`` / ``generate_s`` / ``grade_wall_s``: wall seconds of the counted rollouts, of their generation, and
  the rest (grading, feedback, templating; grading dominates).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

# the scripted replies are the tests' fixture (tests/pipelines/step_grpo/scripted.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class TimedGrader:
    """A ``SiteGrader`` whose ``grade`` calls are timed (same method, same arguments)."""

    def __init__(self, grader):
        self.grader = grader
        self.seconds: list[float] = []

    async def grade(self, files, site_dir, task, options, **kwargs):
        t0 = time.perf_counter()
        try:
            return await self.grader.grade(files, site_dir, task, options, **kwargs)
        finally:
            self.seconds.append(time.perf_counter() - t0)


class TimedReplay:
    """Generates every turn with the model (timed), then hands the episodes the scripted replies."""

    reports_logprobs = False

    def __init__(self, model_turns, scripted):
        self.model_turns, self.scripted = model_turns, scripted
        self.eos = scripted.eos
        self.seconds: list[float] = []
        self.steps: list[int] = []
        self.tokens = 0

    def generate(self, requests):
        from vcoder.pipelines.step_grpo.generation import TurnRequest

        replies = self.scripted.generate(requests)
        sized = [
            TurnRequest(r.ids, len(out.ids), r.images, r.key, r.turn) for r, out in zip(requests, replies, strict=True)
        ]
        t0 = time.perf_counter()
        sampled = self.model_turns.generate(sized)
        self.seconds.append(time.perf_counter() - t0)
        self.steps.append(len(requests))
        self.tokens += sum(len(s.ids) for s in sampled)
        return replies


def main(model: str | None, tasks: int, generations: int, turns: int, rounds: int, warm_up: bool = True) -> dict:
    import torch

    from tests.pipelines.step_grpo.scripted import ScriptedTurns, counter_replies
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe
    from vcoder.pipelines.step_grpo.generation import TransformersTurns

    torch.set_num_threads(1)
    work = tempfile.mkdtemp(prefix="vcoder-bench-step-")
    if model is None:
        from vcoder.models.tiny import build_tiny_vlm

        model = str(build_tiny_vlm(os.path.join(work, "model")))
    argv = ["--config", "configs/step_grpo/tiny_cpu.yaml", "--model_name_or_path", model, "--output_dir", work]
    argv += ["--site_task_samples", str(tasks), "--site_task_kinds", "counter", "--max_turns", str(turns)]
    argv += ["--num_generations", str(generations), "--per_device_train_batch_size", str(tasks * generations)]
    argv += ["--max_turn_tokens", "400", "--max_completion_length", str(turns * 1400)]
    trainer = step_grpo.build_trainer(*parse_recipe(step_grpo.make_parser(), argv))
    trainer.model.train()
    grader = TimedGrader(trainer.grader)
    trainer._grader = grader
    batch_rows = next(iter(trainer.get_train_dataloader()))
    scripts = []
    for row in batch_rows:
        partial, full = counter_replies(row["instruction"])
        scripts.append([partial, full])
    scripted = ScriptedTurns(trainer.chat.tokenizer, scripts, trainer.eos_token_ids)
    timed = TimedReplay(TransformersTurns(trainer), scripted)
    trainer.generator = timed

    if warm_up:
        trainer._generate_and_score_completions(batch_rows)  # browser launch, first page loads
    grader.seconds.clear()
    timed.seconds.clear()
    timed.steps.clear()
    timed.tokens = 0
    t0 = time.perf_counter()
    for _ in range(rounds):
        trainer._generate_and_score_completions(batch_rows)
    rollout_s = time.perf_counter() - t0
    steps = sum(timed.steps)
    generate_s = sum(timed.seconds)
    return {
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "trajectories_per_rollout": len(batch_rows),
        "turns": turns,
        "rollouts": rounds,
        "steps": steps,
        "grade_s_per_step": round(statistics.fmean(grader.seconds), 3),
        "grade_s_per_step_median": round(statistics.median(grader.seconds), 3),
        "grade_calls": len(grader.seconds),
        "generate_s_per_step": round(generate_s / steps, 3),
        "generated_tokens_per_step": round(timed.tokens / steps, 1),
        "rollout_s": round(rollout_s, 2),
        "generate_s": round(generate_s, 2),
        "grade_wall_s": round(rollout_s - generate_s, 2),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="a model folder (default: a fresh tiny model)")
    parser.add_argument("--tasks", type=int, default=2, help="tasks per rollout")
    parser.add_argument("--generations", type=int, default=2, help="trajectories per task (G)")
    parser.add_argument("--turns", type=int, default=2, help="turns per episode")
    parser.add_argument("--rounds", type=int, default=2, help="rollouts measured (after one warm-up)")
    parser.add_argument(
        "--small", action="store_true", help="smoke run: 1 task, 2 generations, 1 turn, 1 round, no warm-up"
    )
    args = parser.parse_args()
    if args.small:
        args.tasks, args.generations, args.turns, args.rounds = 1, 2, 1, 1
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    out = main(args.model, args.tasks, args.generations, args.turns, args.rounds, warm_up=not args.small)
    print(json.dumps(out, indent=1))
