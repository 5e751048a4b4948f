"""Device check (issue 37): one or two Step-GRPO steps IN THE SEED'S FORMAT (``agent_format: webgen_agent``) on random
weights built from the Qwen2.5-Coder-7B config, with per-step timings, tokens, step rewards and peak GPU memory.

    PYTHONPATH=$PWD python experiments/archive/gpu_seed_step.py --out /tmp/gpu37 --max-new-tokens 2048   # one GPU
    PYTHONPATH=$PWD nice -n 19 python experiments/archive/gpu_seed_step.py --tiny      # CPU, same path (~1-3 min)

The figures (JSON) are printed and written to ``$OUT/gpu37.json`` when ``$OUT`` is set (or ``--json PATH``). On the
lent device TRL, datasets, dill and multiprocess are not installed: carry their wheels (``.whl``, see
docs/results.md "Step-GRPO in the seed's format on a GPU").

It MEASURES the trainer, generation and the seed's format rules, NOT THE GRADER. What is real: the recipe
``configs/step_grpo/qwen2_5_coder_7b.yaml`` (``agent_format: webgen_agent``: WebGen-Agent's system prompt in vcoder's
wording, Bolt markup, the seed's feedback turn; top_p 0.95, max_grad_norm 0.5, lr 1e-6, G = 5, 5 turns, dapo loss,
``mask_truncated_completions``) parsed by ``parse_recipe``; ``build_trainer`` loading the saved model by path;
``StepGRPOTrainer``'s rollout running :func:`vcoder.sites.seed_episode.run_seed_episode` for every trajectory; the
seed's rules as the step reward (:mod:`vcoder.sites.seed_rules`, pure code: -1 for a repeating reply, for a finish /
screenshot_validated reply over 400 characters or holding an artifact, for bad Bolt nesting; the GUI grade of a
validated turn ADDED to the previous code turn; a reply cut at its cap without repeating drops its trajectory);
TRL's batch assembly, per-token Step-GRPO advantages, the loss, clipping and AdamW.

What is a STUB (:class:`StubSeedServices`; the device has no Chromium, no sandbox, no VLM server):
- the project is not installed, built or rendered: the "screenshot" handed to the judge is the entry page's text;
- the appearance grade is ``min(5, distinct HTML element names in index.html)``, not a VLM's; the description is a
  fixed sentence;
- the GUI test is not run: its grade is 4 when index.html holds a ``<button>``, else 1 (no WebVoyager, no summary LLM).

Other overrides, as in ``experiments/archive/gpu_step_grpo.py`` (issue 20): transformers ``generate``
(``TransformersTurns``; no vLLM on the device); one process, bf16 weights with no fp32 master copy (no DeepSpeed); the project's tiny offline
BPE tokenizer with Qwen2.5's chat template (the model keeps 152064 rows); the task is one WebGen-Instruct-shaped
request written to the scratch folder (the recipe's ``dataset: webgen_instruct``, its file is not on the device);
``max_turn_tokens`` is ``--max-new-tokens`` (the seed's 9000 does not fit a few minutes of ``generate``: a random
policy never ends a reply) and ``max_completion_length`` is sized to the canned trajectory.

The group: a random policy never ends a reply, so each of the G-1 sampled trajectories is one turn cut at its cap,
which the seed's rule DROPS (rewards None, advantage 0; its tokens still go through the loss). The first trajectory
of each group replays canned seed-format replies (:data:`CANNED`) so the group has judged steps with non-zero
advantages: a repeating reply (-1), a bare page, a fuller page, ``screenshot_validated`` (its stub GUI grade lands on
the page before it), and a finish reply over 400 characters (-1).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from experiments.archive.gpu_step_grpo import (  # noqa: E402
    QWEN2_5_CODER_7B,
    TINY,
    build_model,
    changed,
    report,
    train_measured,
)

STUB_NOTE = (
    "STUB grader: no Chromium, sandbox or VLM on the device; appearance = min(5, distinct HTML elements of index.html),"
    " GUI grade = 4 with a <button> else 1. This measures the trainer, generation and the seed's format rules, "
    "not the grader."
)
#: one request in WebGen-Instruct's shape (written here, not copied from the data set)
REQUEST = {
    "id": "gpu37_000001",
    "instruction": "Please implement a website for a neighbourhood book-swap club. Members can list books they "
    "offer, browse the shelf by genre, request a swap and see the status of their requests. Use cream for the "
    "background and dark teal for components.",
}
_REPEAT = "<div class='book'>Title</div>\n" * 14
_BARE = """I will start with the page.
<boltArtifact id="swap" title="Book swap">
<boltAction type="file" filePath="index.html"><!doctype html><html><body><h1>Book swap</h1></body></html>
</boltAction>
</boltArtifact>"""
_FULL = """Now the shelf and the request button.
<boltArtifact id="swap" title="Book swap">
<boltAction type="file" filePath="index.html"><!doctype html><html><body style="background:#fffdd0">
<h1>Book swap</h1><ul><li>Dune <button>Request</button></li></ul><p id="status">No requests</p></body></html>
</boltAction>
</boltArtifact>"""
_VALIDATED = '<boltAction type="screenshot_validated"/>'
_LONG_FINISH = "The shelf, the requests and their status are done. " * 9 + '<boltAction type="finish"/>'
#: the replayed trajectory's replies, in turn order
CANNED = [_REPEAT, _BARE, _FULL, _VALIDATED, _LONG_FINISH]


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.names: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.names.add(tag)


def _tags(html: str) -> set[str]:
    parser = _Tags()
    parser.feed(html)
    return parser.names


class StubSeedJudge:
    """Stands in for the seed's VLM (a :class:`~vcoder.sites.seed_feedback.SeedJudge`) with pure code; NOT a judge."""

    def __init__(self):
        self.calls: dict[str, int] = defaultdict(int)

    async def describe(self, png: bytes) -> dict:
        self.calls["describe"] += 1
        return {"screenshot_description": "(stub) no screenshot was taken and no VLM described it.", "suggestions": ""}

    async def appearance(self, png: bytes) -> float:
        self.calls["appearance"] += 1
        return min(5, len(_tags(png.decode("utf-8", "replace"))))

    async def gui_instruction(self, instruction: str) -> str:
        self.calls["gui_instruction"] += 1
        return "(stub test) " + instruction

    async def summarize(self, gui_instruction: str, trajectory: str, agent_said_yes: bool):
        from vcoder.sites.seed_rules import GuiSummary

        self.calls["summarize"] += 1
        grade = 4 if agent_said_yes else 1
        return GuiSummary(grade=grade, suggestions="" if agent_said_yes else "(stub) add the controls", passed=False)


def stub_seed_services():
    """``SeedServices`` whose runner, judge and GUI agent are the stubs of the module docstring."""
    from vcoder.sites.seed_episode import SeedServices
    from vcoder.sites.seed_feedback import Execution

    async def execute(files: dict[str, str], turn: int, folder) -> Execution:
        html = files.get("index.html", "")
        installs = (("npm install", "(stub) not run: no sandbox on the device"),)
        return Execution(installs, "(stub) not started", html.encode("utf-8"), "", site=html)

    async def gui_agent(execution: Execution, instruction: str) -> tuple[str, str]:
        said = "YES" if "button" in _tags(execution.site or "") else "NO"
        return f"[webpage screenshot]\n\n(stub agent) ANSWER; {said}", f"ANSWER; {said}"

    judge = StubSeedJudge()
    return SeedServices(judge, execute=execute, gui_agent=gui_agent), judge


def recipe_argv(a, model_dir: Path, run_dir: Path, data: Path, device: str) -> list[str]:
    """The 7B recipe with the overrides of the module docstring."""
    argv = ["--config", "configs/step_grpo/qwen2_5_coder_7b.yaml", "--model_name_or_path", str(model_dir)]
    argv += ["--output_dir", str(run_dir), "--dataset_source", str(data), "--use_vllm", "false"]
    argv += ["--max_turn_tokens", str(a.max_new_tokens), "--max_completion_length", str(a.max_completion_length)]
    argv += ["--max_steps", str(a.steps), "--save_strategy", "no", "--log_completions", "false"]
    argv += ["--judge_base_url", "http://127.0.0.1:9", "--gui_base_url", "http://127.0.0.1:9", "--verdict_log", ""]
    if device != "cuda":
        argv += ["--use_cpu", "true", "--bf16", "false", "--gradient_checkpointing", "false"]
    return argv + ["--dtype", a.dtype]


class Clock:
    """Per-step timers: the rollout (``_generate_and_score_completions``), the sampled ``generate`` calls, the loss
    forward (``compute_loss``), each ``training_step`` (forward + backward, the rollout of its batch included) and
    the optimizer step; each timed span is bracketed by CUDA synchronisation."""

    def __init__(self, trainer, group: int, n_canned: int, canned_turns, device: str):
        import torch

        self.trainer, self.device, self.torch = trainer, device, torch
        self.steps: list[dict] = []
        self.trajectories: list[dict] = []
        self._open()
        inner = trainer.generator
        self.reports_logprobs, self.eos = inner.reports_logprobs, inner.eos
        clock = self

        def generate(requests):
            replay = [r for r in requests if r.key % group < n_canned]
            sample = [r for r in requests if r.key % group >= n_canned]
            if not sample:  # a round of canned replies only
                return canned_turns.generate(requests)
            with clock.span("generate_s"):
                sampled = inner.generate(sample)
            clock.cur["generate_calls"].append(
                {"batch": len(sample), "new_tokens": sum(len(o.ids) for o in sampled)}
                | {"prompt_tokens_max": max((len(r.ids) for r in sample), default=0)}
            )
            out = dict(zip([id(r) for r in sample], sampled, strict=True))
            out.update(zip([id(r) for r in replay], canned_turns.generate(replay), strict=True))
            return [out[id(r)] for r in requests]

        self.generate = generate
        trainer.generator = self
        self._wrap("_generate_and_score_completions", "rollout_s", self._batch_figures)
        self._wrap("compute_loss", "loss_forward_s")
        self._wrap("training_step", "training_steps_s")
        advantages = trainer._token_advantages

        def keep(trajectories, *rest):
            out = advantages(trajectories, *rest)
            for t in trajectories:
                err = t.error or (t.result.error if t.result is not None else None)
                self.cur["trajectories"].append({"rewards": t.step_rewards(), "error": err})
            return out

        trainer._token_advantages = keep

    def _open(self):
        self.cur = defaultdict(float, generate_calls=[], trajectories=[])

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def span(self, name):
        clock = self

        class _Span:
            def __enter__(self):
                clock.sync()
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                clock.sync()
                clock.cur[name] += time.perf_counter() - self.t

        return _Span()

    def _wrap(self, method: str, name: str, after=None):
        inner = getattr(self.trainer, method)

        def timed(*args, **kwargs):
            with self.span(name):
                out = inner(*args, **kwargs)
            if after is not None:
                after(out)
            return out

        setattr(self.trainer, method, timed)

    def _batch_figures(self, out: dict) -> None:
        mask, model = out["completion_mask"], out["completion_mask"] * out["tool_mask"]
        self.cur["prompt_tokens"] += int(out["prompt_mask"].sum())
        self.cur["completion_tokens"] += int(mask.sum())
        self.cur["model_tokens_in_loss"] += int(model.sum())
        self.cur["padded_width"] = max(self.cur["padded_width"], out["prompt_ids"].shape[1] + mask.shape[1])

    def callback(self):
        from transformers import TrainerCallback

        clock = self

        class StepClock(TrainerCallback):
            def on_step_begin(self, args, state, control, **kwargs):
                clock.sync()
                self.start = time.perf_counter()

            def on_pre_optimizer_step(self, args, state, control, **kwargs):
                clock.sync()
                self.opt = time.perf_counter()

            def on_optimizer_step(self, args, state, control, **kwargs):
                clock.sync()
                clock.cur["optimizer_s"] += time.perf_counter() - self.opt

            def on_step_end(self, args, state, control, **kwargs):
                clock.sync()
                step = dict(clock.cur)
                step["step_s"] = time.perf_counter() - self.start
                step["backward_s"] = step["training_steps_s"] - step["rollout_s"] - step["loss_forward_s"]
                step = {k: round(v, 3) if isinstance(v, float) else v for k, v in step.items()}
                clock.steps.append(step)
                clock._open()

        return StepClock()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiny", action="store_true", help="tiny dims on the CPU (same code path)")
    ap.add_argument("--out", default=None, help="scratch folder for the saved model and the run (default: temp)")
    ap.add_argument("--json", default=None, help="also write the figures here (default: $OUT/gpu37.json when set)")
    ap.add_argument("--steps", type=int, default=2, help="optimizer steps (each: G trajectories of the one task)")
    ap.add_argument("--max-new-tokens", type=int, default=None, help="a reply's cap (default 1024; 384 with --tiny)")
    ap.add_argument("--max-completion-length", type=int, default=None, help="a trajectory's budget (default 6144)")
    ap.add_argument("--dtype", default=None, help="weight dtype (default: the recipe's bfloat16; float32 with --tiny)")
    a = ap.parse_args()

    import os
    import platform

    import torch
    import transformers
    import trl

    from tests.pipelines.step_grpo.scripted import ScriptedTurns
    from vcoder.models.tiny_lm import build_tiny_lm
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe

    device = "cuda" if torch.cuda.is_available() and not a.tiny else "cpu"
    if not a.tiny and device != "cuda":
        raise SystemExit("the 7B check needs a GPU; use --tiny on a CPU")
    a.dtype = a.dtype or ("float32" if a.tiny else "bfloat16")
    a.max_new_tokens = a.max_new_tokens or (384 if a.tiny else 1024)
    a.max_completion_length = a.max_completion_length or 6144
    if device == "cpu":
        torch.set_num_threads(1)
    out_env = os.environ.get("OUT")
    a.json = a.json or (str(Path(out_env) / "gpu37.json") if out_env else None)
    root = Path(a.out or tempfile.mkdtemp(prefix="gpu37-"))
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    figures: dict = {
        "what": "one Step-GRPO step per --steps in the seed's format (agent_format webgen_agent), random weights",
        "grader": STUB_NOTE,
        "device": torch.cuda.get_device_name(0) if device == "cuda" else platform.processor() or "cpu",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "trl": trl.__version__},
        "config": "tiny" if a.tiny else "Qwen2.5-Coder-7B (random weights)",
        "dtype": a.dtype,
    }
    t0 = time.perf_counter()
    build_tiny_lm(root / "tokenizer", arch="qwen2_5", size="tiny")
    figures["params"] = build_model(
        root / "model", TINY if a.tiny else QWEN2_5_CODER_7B, device, root / "tokenizer", a.dtype
    )
    data = root / "request.jsonl"
    data.write_text(json.dumps(REQUEST) + "\n")
    figures["build_save_s"] = round(time.perf_counter() - t0, 1)

    t0 = time.perf_counter()
    script_args, training_args, model_args = parse_recipe(
        step_grpo.make_parser(), recipe_argv(a, root / "model", root / "run", data, device)
    )
    services, judge = stub_seed_services()
    trainer = step_grpo.build_trainer(script_args, training_args, model_args, grader=services)
    figures["load_build_trainer_s"] = round(time.perf_counter() - t0, 1)
    group = trainer.num_generations
    figures["settings"] = {
        "agent_format": script_args.agent_format,
        "turn_format": script_args.turn_format,
        "max_turns": script_args.max_turns,
        "max_turn_tokens": script_args.max_turn_tokens,
        "max_completion_length": training_args.max_completion_length,
        "num_generations": group,
        "canned_per_group": 1,
        "top_p": training_args.top_p,
        "temperature": training_args.temperature,
        "max_grad_norm": training_args.max_grad_norm,
        "learning_rate": training_args.learning_rate,
        "loss_type": training_args.loss_type,
        "mask_truncated_completions": training_args.mask_truncated_completions,
        "gradient_checkpointing": training_args.gradient_checkpointing,
        "seed_recipe_reply_cap": 9000,
    }
    tokenizer = trainer.chat.tokenizer
    figures["tokenizer_vocab"] = len(tokenizer)
    from vcoder.sites.seed_prompts import seed_system_prompt

    figures["system_prompt_tokens"] = len(tokenizer(script_args.system_prompt or seed_system_prompt())["input_ids"])
    canned_tokens = [len(tokenizer(r, add_special_tokens=False)["input_ids"]) + 1 for r in CANNED]
    figures["canned_reply_tokens"] = canned_tokens
    if max(canned_tokens) > a.max_new_tokens:
        raise SystemExit(f"--max-new-tokens {a.max_new_tokens} cuts a canned reply ({max(canned_tokens)} tokens)")
    canned = ScriptedTurns(tokenizer, [CANNED], trainer.eos_token_ids)
    clock = Clock(trainer, group, 1, canned, device)
    trainer.add_callback(clock.callback())
    before = train_measured(trainer, device, figures)
    figures["steps"] = clock.steps
    figures["stub_judge_calls"] = dict(judge.calls)
    figures["log_history"] = [
        {k: v for k, v in h.items() if k in ("loss", "grad_norm", "step", "step_reward/mean", "learning_rate")}
        | {k: v for k, v in h.items() if "reward" in k or "advantage" in k}
        for h in trainer.state.log_history
    ]
    figures["weights"] = changed(before, trainer.model)
    report(figures, a.json, root, keep=bool(a.out))


if __name__ == "__main__":
    main()
