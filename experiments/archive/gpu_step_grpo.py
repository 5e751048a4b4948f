"""Device check (issue 20): one Step-GRPO step through vcoder's own pipeline on random weights built from the
Qwen2.5-Coder-7B config, with its timing and peak GPU memory.

    PYTHONPATH=$PWD python experiments/archive/gpu_step_grpo.py --out /dev/shm/gpu-step --json gpu_step.json
    PYTHONPATH=$PWD nice -n 15 python experiments/archive/gpu_step_grpo.py --tiny --out /tmp/gpu-step   # CPU, same path

What is real: the recipe (``configs/step_grpo/qwen2_5_coder_7b.yaml`` parsed by ``make_parser`` / ``parse_recipe``,
overridden only where this check must: no vLLM, generated counter tasks, two turns of at most ``--turn-tokens``
tokens, one or a few steps, nothing saved), ``build_trainer`` loading the saved model by path as a run does,
``StepGRPOTrainer``'s ``rollout_func`` with ``TransformersTurns`` generating every turn of the sampled trajectories
on the GPU, TRL's batch assembly, the per-token Step-GRPO advantages, the loss and the optimizer step.

What is not:
- Generation is transformers ``generate`` (``TransformersTurns``), not vLLM (``VLLMTurns``): the device has no vLLM
  and none can be carried there (see the report of issue 20's device check).
- The grader is NOT the site grader: the device has no Chromium. :class:`FormatOnlyGrader` scores a well-formed turn
  by whether its entry page holds an HTML element (1) or not (0); malformed turns never reach a grader (the episode
  gives them ``malformed_reward``).
- The tokenizer is the project's tiny offline BPE (a few thousand tokens) with Qwen2.5's chat template; the model
  keeps the real 152064-row vocabulary, so a random policy mostly samples ids the tokenizer has no text for.
- A random policy never writes a well-formed turn, so every sampled trajectory scores -1 and the group's
  advantages would all be 0 (a zero loss). With ``--scripted 1`` (the default) the first trajectory of each group
  replays the known counter replies of ``tests.pipelines.step_grpo.scripted`` instead (off-policy, as the tests'
  replayed batches), so the step's advantages, loss and gradient are not zero; the other G-1 are sampled.
- ``mask_truncated_completions`` is off: a random policy never ends a reply, so under the recipe's masking every
  sampled trajectory would leave the loss.
- One process, no DeepSpeed: the weights stay bf16 (the recipe's ``dtype``) with no fp32 master copy, which ZeRO-3
  keeps in the recipe's own launch. ``weights`` in the output counts how many sampled weights the steps moved.

Measured on one H200 (results/gpu_step_grpo_h200_run2.json; torch 2.11.0+cu130, transformers 5.17.0, TRL 1.16.0):
7.62B parameters, full fine-tuning, G = 5 (4 sampled), 2 turns of 512 tokens: peak 60.7 GiB allocated; step 1 67.3 s
(generation 60.9 s, first-call warm-up included), step 2 22.9 s (generation 21.2 s: 8192 tokens over both steps, about
190 tokens/s once warm); loss 0.317, grad norm ~12. After 2 steps only 12.5 % of the sampled bf16 weights had changed
(lr 1e-6 is below half a bf16 step for most weights); the tiny CPU run moves 96 % in float32 and 2.2 % in bfloat16.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

#: the public config.json of Qwen/Qwen2.5-Coder-7B(-Instruct): 7.62B parameters (6.53B without the embeddings)
QWEN2_5_CODER_7B = dict(
    hidden_size=3584,
    intermediate_size=18944,
    num_hidden_layers=28,
    num_attention_heads=28,
    num_key_value_heads=4,
    vocab_size=152064,
    max_position_embeddings=32768,
    rope_theta=1_000_000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=False,
)
#: the same code path at CPU size (the vocabulary still exceeds the tokenizer's, as the 7B one does)
TINY = dict(QWEN2_5_CODER_7B, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2)
TINY.update(num_key_value_heads=1, vocab_size=4096)

GRADER_NOTE = "format-only grader: not the site grader (no Chromium on the device)"


class _HasElement(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = 0

    def handle_starttag(self, tag, attrs):
        self.tags += 1


class FormatOnlyGrader:
    """Grades a well-formed turn's site without a browser: GUI score 1.0 when its entry page holds at least one HTML
    element, else 0.0; the appearance is not judged. NOT the site grader (no Chromium on the device)."""

    def __init__(self):
        self.calls = 0

    async def grade(self, files, site_dir, task, options, *, history=()):
        from vcoder.sites.grading import SiteGrades
        from vcoder.sites.turns import ENTRY

        self.calls += 1
        parser = _HasElement()
        parser.feed(files.get(ENTRY, ""))
        return SiteGrades(screenshot=None, gui=1.0 if parser.tags else 0.0, notes=(GRADER_NOTE,))


class TimedTurns:
    """Wraps the trainer's turn generator: the first ``scripted`` trajectories of each group of ``group`` replay the
    known counter replies, the rest are sampled by the wrapped generator; every sampled batch is timed."""

    def __init__(self, sampled, scripted, group: int, n_scripted: int, device: str):
        self.sampled, self.scripted = sampled, scripted
        self.group, self.n_scripted, self.device = group, n_scripted, device
        self.reports_logprobs, self.eos = sampled.reports_logprobs, sampled.eos
        self.calls: list[dict] = []

    def generate(self, requests):
        import torch

        replay = [r for r in requests if r.key % self.group < self.n_scripted]
        sample = [r for r in requests if r.key % self.group >= self.n_scripted]
        if self.device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        sampled = self.sampled.generate(sample)
        if self.device == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        self.calls.append(
            {
                "batch": len(sample),
                "seconds": round(seconds, 3),
                "tokens": sum(len(o.ids) for o in sampled),
                "prompt_tokens_max": max((len(r.ids) for r in sample), default=0),
            }
        )
        out = dict(zip([id(r) for r in sample], sampled, strict=True))
        out.update(zip([id(r) for r in replay], self.scripted.generate(replay), strict=True))
        return [out[id(r)] for r in requests]


def build_model(folder: Path, dims: dict, device: str, tokenizer_dir: Path, dtype_name: str) -> int:
    """Save a randomly initialised Qwen2 causal LM of ``dims`` (weights in ``dtype_name``) with the tiny tokenizer to
    ``folder``; returns its parameter count."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, Qwen2Config

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    if len(tokenizer) > dims["vocab_size"]:
        raise ValueError(f"tokenizer has {len(tokenizer)} tokens, more than the model's {dims['vocab_size']}")
    eos, pad = tokenizer.convert_tokens_to_ids("<|im_end|>"), tokenizer.pad_token_id
    bos = tokenizer.bos_token_id
    config = Qwen2Config(**dims, bos_token_id=bos, eos_token_id=eos, pad_token_id=pad, use_cache=True)
    torch.manual_seed(0)
    dtype = getattr(torch, dtype_name)
    try:
        with torch.device(device):  # initialised on the GPU: a 7B init on the CPU costs minutes
            model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    except Exception as exc:  # device time is scarce: fall back to a CPU init rather than fail
        print(f"init on {device} failed ({exc!r}); initialising on the CPU", flush=True)
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    params = sum(p.numel() for p in model.parameters())
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    del model
    if device == "cuda":
        torch.cuda.empty_cache()
    return params


def recipe_argv(a, model_dir: Path, run_dir: Path, device: str) -> list[str]:
    """The 7B Step-GRPO recipe with the overrides this check needs (see the module docstring)."""
    argv = ["--config", "configs/step_grpo/qwen2_5_coder_7b.yaml", "--model_name_or_path", str(model_dir)]
    argv += ["--output_dir", str(run_dir), "--dataset", "site_tasks", "--site_task_samples", "1"]
    argv += ["--site_task_kinds", "counter", "--use_vllm", "false", "--max_turns", "2"]
    argv += ["--max_turn_tokens", str(a.turn_tokens), "--max_completion_length", str(2 * a.turn_tokens + 1024)]
    argv += ["--max_steps", str(a.steps), "--save_strategy", "no", "--log_completions", "false"]
    # a random policy never ends a reply: under the recipe's masking every sampled trajectory would leave the loss
    argv += ["--mask_truncated_completions", "false"]
    argv += ["--judge_base_url", "", "--gui_base_url", "", "--verdict_log", ""]
    # vcoder's own format (the recipe now rolls out in the seed's: experiments/archive/gpu_seed_step.py checks that one)
    argv += ["--agent_format", "vcoder"]
    if a.lora:
        argv += ["--use_peft", "true", "--lora_r", "16", "--lora_alpha", "32", "--lora_target_modules", "all-linear"]
    if device != "cuda":
        argv += ["--use_cpu", "true", "--bf16", "false", "--gradient_checkpointing", "false"]
    return argv + ["--dtype", a.dtype]


def weight_sample(model, per_tensor: int = 4096) -> dict:
    """A strided sample of every trainable tensor's values (to count how many the training changed)."""
    out = {}
    for name, param in model.named_parameters():
        if param.requires_grad:
            flat = param.detach().reshape(-1)
            stride = max(1, flat.numel() // per_tensor)
            out[name] = (stride, flat[::stride].clone())
    return out


def changed(before: dict, model) -> dict:
    """The share of sampled trainable values that differ after training, and the largest change."""
    params = dict(model.named_parameters())
    total = moved = 0
    largest = 0.0
    for name, (stride, old) in before.items():
        new = params[name].detach().reshape(-1)[::stride]
        diff = (new.float() - old.float()).abs()
        total += diff.numel()
        moved += int((diff > 0).sum())
        largest = max(largest, float(diff.max()))
    return {"sampled": total, "changed_share": round(moved / max(total, 1), 6), "max_abs_change": largest}


def train_measured(trainer, device: str, figures: dict) -> dict:
    """Train, adding to ``figures`` the GPU memory after loading and at its peak (on CUDA) and the train time.

    Returns:
        A sample of the weights taken before training (for :func:`changed`)."""
    import torch

    if device == "cuda":
        figures["gpu_mem_after_load_gib"] = round(torch.cuda.memory_allocated() / 2**30, 2)
        torch.cuda.reset_peak_memory_stats()
    before = weight_sample(trainer.model)
    t0 = time.perf_counter()
    trainer.train()
    figures["train_s"] = round(time.perf_counter() - t0, 1)
    if device == "cuda":
        figures["peak_gpu_mem_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
        figures["peak_gpu_reserved_gib"] = round(torch.cuda.max_memory_reserved() / 2**30, 2)
    return before


def report(figures: dict, json_path: str | None, root: Path, keep: bool) -> None:
    """Print the figures as JSON, write them to ``json_path`` too (when given), and remove ``root`` unless ``keep``."""
    text = json.dumps(figures, indent=1, default=str)
    print(text)
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(text + "\n")
    if not keep:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiny", action="store_true", help="tiny dims on the CPU (same code path)")
    ap.add_argument("--out", default=None, help="scratch folder for the saved model and the run (default: a temp dir)")
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    ap.add_argument("--steps", type=int, default=1, help="optimizer steps (each: G trajectories of the one task)")
    ap.add_argument("--turn-tokens", type=int, default=512, help="max_turn_tokens (two turns per episode)")
    ap.add_argument("--scripted", type=int, default=1, help="replayed trajectories per group (0: all sampled)")
    ap.add_argument("--lora", action="store_true", help="LoRA (r 16, all linear layers) instead of full fine-tuning")
    ap.add_argument("--dtype", default=None, help="weight dtype (default: the recipe's bfloat16; float32 with --tiny)")
    a = ap.parse_args()

    import accelerate
    import datasets
    import peft
    import torch
    import transformers
    import trl

    from tests.pipelines.step_grpo.scripted import ScriptedTurns, counter_replies
    from vcoder.models.tiny_lm import build_tiny_lm
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe

    device = "cuda" if torch.cuda.is_available() and not a.tiny else "cpu"
    a.dtype = a.dtype or ("float32" if a.tiny else "bfloat16")
    if not a.tiny and device != "cuda":
        raise SystemExit("the 7B check needs a GPU; use --tiny on a CPU")
    if device == "cpu":
        torch.set_num_threads(1)
    root = Path(a.out or tempfile.mkdtemp(prefix="gpu-step-"))
    shutil.rmtree(root, ignore_errors=True)
    figures: dict = {
        "device": torch.cuda.get_device_name(0) if device == "cuda" else platform.processor() or "cpu",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "trl": trl.__version__,
        "accelerate": accelerate.__version__,
        "peft": peft.__version__,
        "datasets": datasets.__version__,
        "generation": "TransformersTurns (transformers generate; vLLM unavailable on the device)",
        "grader": GRADER_NOTE,
        "lora": a.lora,
        "dtype": a.dtype,
        "config": "tiny" if a.tiny else "Qwen2.5-Coder-7B (random weights)",
    }
    t0 = time.perf_counter()
    build_tiny_lm(root / "tokenizer", arch="qwen2_5", size="tiny")
    dims = TINY if a.tiny else QWEN2_5_CODER_7B
    figures["params"] = build_model(root / "model", dims, device, root / "tokenizer", a.dtype)
    figures["build_save_s"] = round(time.perf_counter() - t0, 1)

    t0 = time.perf_counter()
    args = parse_recipe(step_grpo.make_parser(), recipe_argv(a, root / "model", root / "run", device))
    grader = FormatOnlyGrader()
    trainer = step_grpo.build_trainer(*args, grader=grader)
    figures["load_build_trainer_s"] = round(time.perf_counter() - t0, 1)
    group = trainer.num_generations
    tokenizer = trainer.chat.tokenizer
    figures["tokenizer_vocab"] = len(tokenizer)
    figures["trainable_params"] = sum(p.numel() for p in trainer.model.parameters() if p.requires_grad)
    instruction = trainer.train_dataset[0]["instruction"]
    scripted = ScriptedTurns(tokenizer, [counter_replies(instruction)], trainer.eos_token_ids)
    timed = TimedTurns(trainer.generator, scripted, group, a.scripted, device)
    trainer.generator = timed

    step_times: list[float] = []

    from transformers import TrainerCallback

    class StepClock(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            if device == "cuda":
                torch.cuda.synchronize()
            self.start = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):
            if device == "cuda":
                torch.cuda.synchronize()
            step_times.append(round(time.perf_counter() - self.start, 3))

    trainer.add_callback(StepClock())
    before = train_measured(trainer, device, figures)
    figures.update(
        num_generations=group,
        scripted_per_group=a.scripted,
        max_turn_tokens=a.turn_tokens,
        step_s=step_times,
        generate_calls=timed.calls,
        generate_s=round(sum(c["seconds"] for c in timed.calls), 3),
        tokens_generated=sum(c["tokens"] for c in timed.calls),
        grader_calls=grader.calls,
        log_history=trainer.state.log_history,
        weights=changed(before, trainer.model),
    )
    figures["generate_tokens_per_s"] = round(figures["tokens_generated"] / max(figures["generate_s"], 1e-9), 1)
    report(figures, a.json, root, keep=bool(a.out))


if __name__ == "__main__":
    main()
