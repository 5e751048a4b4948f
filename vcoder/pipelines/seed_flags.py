"""VisionCoder's command line on vcoder's GRPO pipeline: the seed's ``training.py`` flags, mapped onto TRL's.

VisionCoder's README trains with::

    accelerate launch --config_file configs/accelerate_4gpu.yaml vcoder/pipelines/training.py \\
        --model_id Qwen/Qwen3-VL-2B-Instruct --output_dir outputs/vcoder-grpo-clip --max_samples 2000 \\
        --num_train_epochs 1 --batch_size 4 --num_generations 8 --max_completion_length 2048

``vcoder/pipelines/training.py`` runs that line as written: its defaults are the VisionCoder recipe
(``configs/grpo/visioncoder_qwen3_vl_2b.yaml``, unless ``--config`` names another), and the seed's own flag names
become the TRL/vcoder ones, said once in the log::

    --model_id           -> --model_name_or_path
    --batch_size         -> --per_device_train_batch_size   (completions per device, as in the seed)
    --warmup_ratio       -> --warmup_steps                  (a float below 1 is a ratio in transformers 5)
    --image_width W      -> --max_pixels W*W*3/4            (the seed's own max_pixels estimate, 4:3 pages)
    --no_vllm            -> --use_vllm false

Every other seed flag (``--output_dir``, ``--max_samples``, ``--num_generations``, ``--vllm_mode``, ``--optim``,
``--save_steps``, ...) already has the TRL/vcoder name. Like the seed (flash-attention when installed, else sdpa),
the entry adapts to the machine: without a CUDA device it runs on the CPU (``use_cpu``, fp32, no gradient
checkpointing) and without vLLM it generates with transformers; one log line says which flags that added, and a
flag given on the command line always wins. A wrong flag is one line with the closest seed or TRL name.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence

logger = logging.getLogger(__name__)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED_RECIPE = os.path.join("configs", "grpo", "visioncoder_qwen3_vl_2b.yaml")

#: the seed's flag -> the TRL/vcoder field that does the same
RENAMED = {
    "model_id": "model_name_or_path",
    "batch_size": "per_device_train_batch_size",
    "warmup_ratio": "warmup_steps",
}
#: the seed's switches (no value) -> the flag and value they mean
SWITCHES = {"no_vllm": ("use_vllm", "false")}
#: the seed's --image_width W -> vcoder's pixel budget (its script sized max_pixels for a 4:3 page of width W)
IMAGE_WIDTH = "image_width"
SEED_FLAGS = (*RENAMED, *SWITCHES, IMAGE_WIDTH)


class SeedFlagError(ValueError):
    """A seed command line that cannot be mapped (a value missing, a flag given under both names)."""


def _split(item: str) -> tuple[str, str | None]:
    """``--name=value`` -> ``("name", "value")``; ``--name`` -> ``("name", None)``."""
    name, sep, value = item[2:].partition("=")
    return name.replace("-", "_"), (value if sep else None)


def translate(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Rename the seed's flags to TRL/vcoder ones.

    Args:
        argv: the command line after the script name.

    Returns:
        ``(argv, applied)``: the translated command line and one ``"--seed -> --vcoder"`` entry per mapping used.

    Raises:
        SeedFlagError: a seed flag without its value, a bad ``--image_width``, or a flag given under both names.

    Example:
        >>> translate(["--model_id", "Qwen/Qwen3-VL-2B-Instruct", "--batch_size=4"])[0]
        ['--model_name_or_path', 'Qwen/Qwen3-VL-2B-Instruct', '--per_device_train_batch_size', '4']
    """
    out: list[str] = []
    applied: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        name, inline = _split(item) if item.startswith("--") else ("", None)
        if name not in SEED_FLAGS:
            out.append(item)
            i += 1
            continue
        if name in SWITCHES:
            target, value = SWITCHES[name]
            out += [f"--{target}", value]
            applied.append(f"--{name} -> --{target} {value}")
            i += 1
            continue
        value = inline
        if value is None:
            if i + 1 >= len(items) or items[i + 1].startswith("--"):
                raise SeedFlagError(f"--{name} needs a value, e.g. --{name} {_example(name)}")
            value = items[i + 1]
            i += 1
        i += 1
        if name == IMAGE_WIDTH:
            try:
                width = int(value)
            except ValueError:
                width = 0
            if width < 32:
                raise SeedFlagError(f"--image_width {value!r} must be a width in pixels >= 32, e.g. 512")
            pixels = width * (width * 3 // 4)
            out += ["--max_pixels", str(pixels)]
            applied.append(f"--image_width {width} -> --max_pixels {pixels}")
        else:
            out += [f"--{RENAMED[name]}", value]
            applied.append(f"--{name} -> --{RENAMED[name]}")
    given = [_split(item)[0] for item in out if item.startswith("--")]
    for seed_name, target in (*RENAMED.items(), (IMAGE_WIDTH, "max_pixels")):
        if given.count(target) > 1:
            raise SeedFlagError(f"--{seed_name} and --{target} name the same setting; give one of them")
    return out, applied


def _example(name: str) -> str:
    return {"model_id": "Qwen/Qwen3-VL-2B-Instruct", "batch_size": "4", "warmup_ratio": "0.1"}.get(name, "512")


def machine_defaults(argv: Sequence[str], *, cuda: bool, vllm: bool) -> tuple[list[str], list[str]]:
    """Flags that fit the recipe to this machine, for the settings the command line leaves alone.

    Args:
        argv: the translated command line.
        cuda: whether a CUDA device is visible.
        vllm: whether vLLM can be imported.

    Returns:
        ``(flags, reasons)``: flags for the settings ``argv`` does not give (the user's own flags win), and why.
    """
    given = {_split(item)[0] for item in argv if item.startswith("--")}
    wanted: dict[str, str] = {}
    reasons = []
    if not cuda:
        wanted.update(use_cpu="true", bf16="false", dtype="float32", gradient_checkpointing="false", use_vllm="false")
        reasons.append("no CUDA device")
    elif not vllm:
        wanted["use_vllm"] = "false"
        reasons.append("vLLM is not installed (generation with transformers)")
    flags = [item for key, value in wanted.items() if key not in given for item in (f"--{key}", value)]
    return flags, reasons if flags else []


def _unknown_hint(argv: Sequence[str], parser) -> None:
    """Refuse a flag neither the seed nor TRL/vcoder knows, naming the closest of both (one line, no traceback)."""
    from vcoder.pipelines.recipes import known_keys
    from vcoder.usage import close_match

    known = sorted(known_keys(parser) | set(SEED_FLAGS) | {"config"})
    unknown = []
    for item in argv:
        if not item.startswith("--"):
            continue
        name = _split(item)[0]
        if name not in known:
            close = close_match(name, known)
            unknown.append(f"--{name}" + (f" (did you mean --{close}?)" if close else ""))
    if unknown:
        raise SeedFlagError(
            f"unknown flag(s) {', '.join(unknown)}; the seed's flags ({', '.join('--' + f for f in SEED_FLAGS)}) and "
            "every TRL/vcoder recipe key are accepted (`vcoder train grpo --help` lists them)"
        )


def _has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def _has_vllm() -> bool:
    import importlib.util

    return importlib.util.find_spec("vllm") is not None


def seed_argv(argv: Sequence[str], parser, *, cuda: bool, vllm: bool) -> tuple[list[str], list[str]]:
    """The full vcoder command line for a seed command line: recipe, machine defaults, translated flags.

    Args:
        argv: the seed command line (after the script name).
        parser: the GRPO pipeline's parser (for the unknown-flag check).
        cuda: whether a CUDA device is visible.
        vllm: whether vLLM can be imported.

    Returns:
        ``(argv, notes)``: what ``vcoder.pipelines.grpo.cli`` gets, and the log notes (mappings, machine flags).

    Raises:
        SeedFlagError: an unknown flag (with the closest name), or a seed flag that cannot be mapped.
    """
    _unknown_hint(argv, parser)
    translated, applied = translate(argv)
    notes = []
    if "--config" not in translated and not any(item.startswith("--config=") for item in translated):
        recipe = os.path.join(ROOT, SEED_RECIPE)
        if not os.path.isfile(recipe):
            raise SeedFlagError(
                f"the VisionCoder recipe {SEED_RECIPE} is not next to this package ({ROOT}); pass --config RECIPE.yaml"
            )
        translated = ["--config", recipe, *translated]
        notes.append(f"recipe {SEED_RECIPE} (the seed's defaults)")
    if applied:
        notes.append("seed flags " + ", ".join(applied))
    machine, reasons = machine_defaults(translated, cuda=cuda, vllm=vllm)
    if machine:
        notes.append(f"{' and '.join(reasons)}: added {' '.join(machine)}")
    return [*translated, *machine], notes


def main(argv: Sequence[str] | None = None, *, prog: str = "training.py") -> int:
    """Run a seed command line (``vcoder/pipelines/training.py``'s ``__main__``).

    Returns:
        0 after training; 2 after printing one line for a command line or recipe that cannot run.
    """
    from vcoder.pipelines import grpo
    from vcoder.pipelines.recipes import RecipeError
    from vcoder.usage import print_error

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        full, notes = seed_argv(argv, grpo.make_parser(), cuda=_has_cuda(), vllm=_has_vllm())
        if os.environ.get("RANK", "0") == "0":  # once per launch, not once per process
            logger.info("VisionCoder command line: %s", "; ".join(notes) or "no seed flags, vcoder's own")
        return grpo.cli(full)
    except (SeedFlagError, RecipeError) as exc:
        return print_error(prog, str(exc))
