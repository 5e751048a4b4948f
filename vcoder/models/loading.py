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
from pathlib import Path
from typing import Any

from vcoder.models.folders import (
    MISSING,
    NO_CONFIG,
    ModelFolderError,
    check_model_folder,
    is_local_name,
    making_command,
)

logger = logging.getLogger(__name__)

# the folder checks live in vcoder.models.folders and stay importable from here
__all__ = [
    "KINDS",
    "MISSING",
    "NO_CONFIG",
    "ModelFolderError",
    "check_model_folder",
    "is_local_name",
    "load_for_training",
    "load_model",
    "load_policy",
    "load_processor",
    "making_command",
    "quantization_kwargs",
    "recipe_init_kwargs",
    "save_policy",
]

KINDS = ("vlm", "causal_lm")


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
