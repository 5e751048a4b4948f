"""Loading a policy, once: every place that loads a model to train or evaluate it comes here.

Two kinds of model: ``"vlm"`` (``AutoModelForImageTextToText`` + ``AutoProcessor``: VisionCoder's policies, the ORM)
and ``"causal_lm"`` (``AutoModelForCausalLM`` + ``AutoTokenizer``: the site-building and web-navigation agents).
Each caller passes its own dtype and device (nothing here guesses one), so moving a caller here keeps what it did.
A name is a local folder or a hub id; hub ids load through ``from_pretrained`` as ever (offline runs and tests use
local folders, e.g. from ``vcoder models tiny``). A name meant as a local folder that is missing fails first, in one
line that names the folder and, when a recipe's header says so, the command that makes it.

It lives in ``vcoder.models`` (not in ``pipelines``) because the ORM (``vcoder.orm``), which sits below the
pipelines, loads its base model and its folders with it too.

Example:
    >>> model, processor = load_policy("outputs/tiny-model", dtype="float32", device="cpu")  # doctest: +SKIP
    >>> model, tokenizer = load_policy("outputs/tiny-lm", kind="causal_lm", eval_mode=True)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

KINDS = ("vlm", "causal_lm")
MISSING, NO_CONFIG = "missing", "no config.json"


class ModelFolderError(ValueError):
    """A model name meant as a local folder that is not a model folder; the message says which and how to make it.

    Attributes:
        name: the name as given.
        path: its absolute path here.
        problem: ``"missing"`` (no such folder) or ``"no config.json"`` (a folder, but not one ``save_pretrained``
            wrote).
        command: the command that makes it (from a recipe's header), or None.
    """

    def __init__(self, message: str, *, name: str, path: str, problem: str, command: str | None) -> None:
        super().__init__(message)
        self.name, self.path, self.problem, self.command = name, path, problem, command


def is_local_name(name: str) -> bool:
    """Whether ``name`` is meant as a local folder rather than a hub id (``org/model``).

    Local: it exists, starts like a path (``/``, ``.``, ``~``), has more than one ``/``, or its first component is a
    folder here (``outputs/run``).
    """
    name = str(name)
    if os.path.exists(os.path.expanduser(name)) or name.startswith(("/", ".", "~")) or name.count("/") > 1:
        return True
    return "/" in name and os.path.isdir(name.split("/", 1)[0])


def making_command(name: str, recipe: str | None) -> str | None:
    """The command in ``recipe``'s header comments that writes the folder ``name`` (or None).

    A header line ``# vcoder ... --out OUT`` makes ``name`` when ``name`` is OUT or lies inside it (``vcoder quickstart
    --sft-only --out outputs/quickstart-sft`` makes ``outputs/quickstart-sft/sft``). When the recipe's own
    ``model_name_or_path`` was moved elsewhere, the same command is returned writing where ``name`` would be.
    """
    if not recipe or not os.path.isfile(recipe):
        return None
    text = Path(recipe).read_text(encoding="utf-8")
    header = re.findall(r"^#\s*(vcoder\s.*--out\s+(\S+).*)$", text, flags=re.M)
    found = re.search(r"^model_name_or_path:\s*(\S+)", text, flags=re.M)
    default = found.group(1) if found else None

    def makes(out: str, path: str) -> bool:  # the command writes the folder itself or a folder holding it
        out, path = os.path.normpath(out), os.path.normpath(path)
        return path == out or path.startswith(out + os.sep)

    command = None
    for line, out in header:
        if makes(out, name):
            command = line.strip()
        elif command is None and default and makes(out, default):
            inner = os.path.relpath(os.path.normpath(default), os.path.normpath(out))
            where = os.path.normpath(name)
            if inner != "." and where.endswith(os.sep + inner):
                where = where[: -len(inner) - 1]
            command = line.strip().replace(out, where)
    return command


def check_model_folder(
    name: str, *, recipe: str | None = None, what: str = "model_name_or_path", need_config: bool = True
) -> None:
    """Refuse a name meant as a local folder that cannot load, before any time is spent; hub ids pass.

    A name that names no folder here but that ``recipe``'s header makes counts as local even when it looks like a
    hub id.

    Args:
        name: a local folder or a hub id.
        recipe: a YAML recipe whose header comments name the command that makes the folder.
        what: how the message names the setting.
        need_config: also refuse a folder without ``config.json`` (or a PEFT adapter's ``adapter_config.json``).

    Raises:
        ModelFolderError: the folder is missing (the message names the command that makes it, when known) or, with
            ``need_config``, holds no ``config.json``.
    """
    path = os.path.expanduser(str(name))
    where = os.path.abspath(path)
    if os.path.isdir(path):
        saved = any(os.path.isfile(os.path.join(path, f)) for f in ("config.json", "adapter_config.json"))
        if need_config and not saved:
            raise ModelFolderError(
                f"{what}={name!r} has no config.json; point it at a folder written by save_pretrained (a run's "
                "output_dir or a checkpoint-N folder)",
                name=str(name),
                path=where,
                problem=NO_CONFIG,
                command=None,
            )
        return
    command = making_command(str(name), recipe)
    if command is None and not is_local_name(str(name)):
        return  # a hub id: from_pretrained finds it (or says why not)
    how = (
        f"make it first: {command}" if command else "build or download it there first (`vcoder models tiny --out DIR`)"
    )
    raise ModelFolderError(
        f"{what}={name!r} is not a folder here ({where}); {how}",
        name=str(name),
        path=where,
        problem=MISSING,
        command=command,
    )


def _dtype(dtype):
    """A dtype as ``from_pretrained`` takes it: None and ``"auto"`` as given, a name as the torch dtype."""
    if dtype is None or dtype == "auto" or not isinstance(dtype, str):
        return dtype
    import torch

    value = getattr(torch, dtype, None)
    if not isinstance(value, torch.dtype):
        raise ValueError(f"dtype={dtype!r} is not a torch dtype; give e.g. float32, bfloat16, float16 or auto")
    return value


def _classes(kind: str):
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}: give one of {', '.join(KINDS)}")
    from transformers import AutoModelForCausalLM, AutoModelForImageTextToText, AutoProcessor, AutoTokenizer

    if kind == "vlm":
        return AutoModelForImageTextToText, AutoProcessor
    return AutoModelForCausalLM, AutoTokenizer


def load_processor(name: str | Path, *, kind: str = "vlm", revision: str | None = None, trust_remote_code=False):
    """The processor (``"vlm"``) or tokenizer (``"causal_lm"``) of ``name``."""
    _, processor_cls = _classes(kind)
    kwargs = {"revision": revision, "trust_remote_code": trust_remote_code or None}
    return processor_cls.from_pretrained(name, **{k: v for k, v in kwargs.items() if v is not None})


def load_model(
    name: str | Path,
    *,
    kind: str = "vlm",
    dtype=None,
    device: str | None = None,
    eval_mode: bool = False,
    peft_config=None,
    **init_kwargs: Any,
):
    """The model of ``name``: a saved model, a PEFT adapter folder (its base with the adapter loaded) or a hub id.

    Args:
        name: a folder or hub id.
        kind: ``"vlm"`` or ``"causal_lm"``.
        dtype: a torch dtype or its name, ``"auto"``, or None (the transformers default).
        device: move the model there (None: where ``from_pretrained`` put it).
        eval_mode: call ``model.eval()`` (inference: dropout off).
        peft_config: a PEFT config (``LoraConfig``) to wrap the model in fresh adapters (``get_peft_model``). Recipes
            run by TRL trainers leave this to the trainer (``peft_config=get_peft_config(model_args)``).
        init_kwargs: more ``from_pretrained`` arguments (revision, attention, quantisation, device_map); None values
            are dropped.

    Returns:
        The model.
    """
    model_cls, _ = _classes(kind)
    kwargs = {k: v for k, v in {**init_kwargs, "dtype": _dtype(dtype)}.items() if v is not None}
    adapter = Path(os.path.expanduser(str(name))) / "adapter_config.json"
    if adapter.is_file():
        # a LoRA run's output_dir / checkpoint-N holds the adapter only: load its base, then the adapter
        import json

        from peft import PeftModel

        base_name = json.loads(adapter.read_text(encoding="utf-8"))["base_model_name_or_path"]
        model = PeftModel.from_pretrained(model_cls.from_pretrained(base_name, **kwargs), str(name))
    else:
        model = model_cls.from_pretrained(name, **kwargs)
    if peft_config is not None:
        from peft import get_peft_model

        model = get_peft_model(model, peft_config)
    if device is not None:
        model = model.to(device)
    if eval_mode:
        model.eval()
    return model


def load_policy(
    name: str | Path,
    *,
    kind: str = "vlm",
    dtype=None,
    device: str | None = None,
    eval_mode: bool = False,
    peft_config=None,
    recipe: str | None = None,
    revision: str | None = None,
    trust_remote_code: bool = False,
    **init_kwargs: Any,
):
    """``(model, processor)`` of a policy to train or evaluate, after :func:`check_model_folder`.

    Args:
        name: a local folder or hub id.
        kind: ``"vlm"`` (model + processor) or ``"causal_lm"`` (model + tokenizer).
        dtype, device, eval_mode, peft_config, init_kwargs: see :func:`load_model`.
        recipe: a recipe whose header names the command that makes a missing folder.
        revision: the hub revision.
        trust_remote_code: allow the hub repository's own code.

    Returns:
        ``(model, processor or tokenizer)``.

    Raises:
        ModelFolderError: a local folder that is missing or is not a model folder.
    """
    check_model_folder(str(name), recipe=recipe)
    model = load_model(
        name,
        kind=kind,
        dtype=dtype,
        device=device,
        eval_mode=eval_mode,
        peft_config=peft_config,
        revision=revision,
        trust_remote_code=trust_remote_code or None,
        **init_kwargs,
    )
    return model, load_processor(name, kind=kind, revision=revision, trust_remote_code=trust_remote_code)


def recipe_init_kwargs(model_args, training_args) -> dict[str, Any]:
    """``from_pretrained`` arguments of a TRL recipe: revision, attention, dtype and remote code from ``ModelConfig``
    and the trainer config, then the config's ``model_init_kwargs`` (None values dropped).

    Quantisation is not here: :func:`load_for_training` adds it (it needs this process's GPU index) and Step-GRPO
    hands it to its trainer.
    """
    kwargs: dict[str, Any] = dict(
        revision=model_args.model_revision,
        trust_remote_code=training_args.trust_remote_code,
        attn_implementation=model_args.attn_implementation,
        dtype=model_args.dtype,  # a name (TRL's trainers take names; load_model turns it into a torch dtype)
    )
    if isinstance(training_args.model_init_kwargs, dict):
        kwargs.update(training_args.model_init_kwargs)
    return {k: v for k, v in kwargs.items() if v is not None}


def quantization_kwargs(model_args) -> dict[str, Any]:
    """``from_pretrained`` arguments of ``ModelConfig``'s ``load_in_4bit``/``load_in_8bit`` (TRL's helper), the k-bit
    weights on this process's GPU rather than spread by ``device_map='auto'``; empty without quantisation."""
    from trl import get_quantization_config

    quantization_config = get_quantization_config(model_args)
    if quantization_config is None:
        return {}
    from accelerate import PartialState

    return {"quantization_config": quantization_config, "device_map": {"": PartialState().local_process_index}}


def load_for_training(model_args, training_args, *, kind: str = "vlm"):
    """The policy of a TRL recipe (``ModelConfig`` + ``GRPOConfig``/``SFTConfig``), loaded the way production does.

    Quantisation (``load_in_4bit``/``load_in_8bit``) comes from ``ModelConfig`` through TRL's helper, with the k-bit
    weights on this process's GPU; LoRA is applied by the trainer from ``get_peft_config(model_args)``.

    Returns:
        ``(model, processor)``.
    """
    kwargs = recipe_init_kwargs(model_args, training_args)
    for key, value in quantization_kwargs(model_args).items():
        kwargs.setdefault(key, value)  # the recipe's own model_init_kwargs win
    name = model_args.model_name_or_path
    model = load_model(name, kind=kind, **kwargs)
    processor = load_processor(
        name, kind=kind, revision=model_args.model_revision, trust_remote_code=training_args.trust_remote_code
    )
    return model, processor


def _is_peft(model) -> bool:
    """Whether ``model`` is a PEFT model; without peft installed (no ``train`` extra) nothing is."""
    try:
        from peft import PeftModel
    except ImportError:
        return False
    return isinstance(model, PeftModel)


def save_policy(model, processor, folder: str | Path, *, merge: bool = True):
    """Save a trained policy and its processor to ``folder`` so it loads as a plain model.

    Args:
        model: the (unwrapped) model; a PEFT model is merged first when ``merge``.
        processor: its processor or tokenizer.
        folder: where to write.
        merge: merge LoRA adapters into the weights (``merge_and_unload``).

    Returns:
        The model saved (the merged one for a PEFT model).
    """
    if merge and _is_peft(model):
        model = model.merge_and_unload()
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return model
