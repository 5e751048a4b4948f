"""A tiny, randomly initialised Qwen-VL model built offline: for tests, CI and the CPU quickstart.

Nothing is downloaded. The model is built from a config (Qwen2.5-VL or Qwen3-VL, the production classes shrunk),
the tokenizer is a byte-level BPE trained here with ``tokenizers`` on HTML, the chat template is TRL's bundled Qwen
template and the image processor is the architecture's own default class with a small ``max_pixels``, so every
code path (``AutoProcessor``, ``apply_chat_template``, ``generate``, TRL trainers, ``transformers serve``) is the one
the real checkpoints take.

Example:
    >>> path = build_tiny_vlm("/tmp/tiny-qwen")  # doctest: +SKIP
    >>> AutoModelForImageTextToText.from_pretrained(path)  # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from vcoder.models.tokenizer import ADDED_TOKENS, SPECIAL_TOKENS, default_corpus, train_tokenizer

logger = logging.getLogger(__name__)

__all__ = [
    "ARCHES",
    "SIZES",
    "ADDED_TOKENS",
    "SPECIAL_TOKENS",
    "TinySize",
    "build_tiny_vlm",
    "chat_template",
    "default_corpus",
    "finish_build",
    "start_build",
    "train_tokenizer",
]

ARCHES = ("qwen2_5_vl", "qwen3_vl")


@dataclass(frozen=True)
class TinySize:
    """Dimensions of one size preset (text decoder, vision tower, tokenizer)."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vision_hidden: int
    vision_depth: int
    vision_heads: int
    vocab: int


SIZES = {
    # ~0.3M parameters: CI and unit tests
    "tiny": TinySize(
        hidden=64,
        layers=2,
        heads=2,
        kv_heads=1,
        intermediate=128,
        vision_hidden=32,
        vision_depth=2,
        vision_heads=2,
        vocab=2048,
    ),
    # ~2M parameters: the quickstart, big enough to learn difficulty-0 pages on a CPU
    "small": TinySize(
        hidden=192,
        layers=3,
        heads=3,
        kv_heads=1,
        intermediate=512,
        vision_hidden=64,
        vision_depth=2,
        vision_heads=2,
        vocab=3072,
    ),
    # ~9M parameters: GPU smoke runs
    "base": TinySize(
        hidden=384,
        layers=4,
        heads=6,
        kv_heads=2,
        intermediate=1024,
        vision_hidden=128,
        vision_depth=4,
        vision_heads=4,
        vocab=4096,
    ),
}

# Design of the pixel budget: 64 merged patches (a few dozen visual tokens per screenshot) keeps CPU steps fast.
PATCH = {"qwen2_5_vl": 14, "qwen3_vl": 16}
MERGE = 2
MAX_MERGED_PATCHES = 64
MIN_MERGED_PATCHES = 4


def chat_template(name: str) -> str:
    """TRL's bundled copy of the real model's chat template (``qwen2_5_vl``, ``qwen2_5``, ...), so TRL recognises it
    (and swaps in its training variant)."""
    try:
        return (resources.files("trl") / "chat_templates" / f"{name}.jinja").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise RuntimeError(
            f"TRL's chat template {name}.jinja was not found ({exc}); install the training extras: "
            "pip install 'vcoder[train]'"
        ) from exc


def _model_config(arch: str, size: TinySize, tokenizer):
    ids = {name: tokenizer.convert_tokens_to_ids(tok) for name, tok in _TOKEN_FIELDS.items()}
    head_dim = size.hidden // size.heads
    text = {
        "vocab_size": len(tokenizer),
        "hidden_size": size.hidden,
        "intermediate_size": size.intermediate,
        "num_hidden_layers": size.layers,
        "num_attention_heads": size.heads,
        "num_key_value_heads": size.kv_heads,
        "max_position_embeddings": 4096,
        "bos_token_id": ids["pad"],
        "eos_token_id": ids["eos"],
        "pad_token_id": ids["pad"],
        "tie_word_embeddings": True,
    }
    vision = {
        "depth": size.vision_depth,
        "hidden_size": size.vision_hidden,
        "intermediate_size": size.vision_hidden * 2,
        "num_heads": size.vision_heads,
        "patch_size": PATCH[arch],
        "spatial_merge_size": MERGE,
        "temporal_patch_size": 2,
        "out_hidden_size": size.hidden,
    }
    token_ids = {
        "image_token_id": ids["image"],
        "video_token_id": ids["video"],
        "vision_start_token_id": ids["vision_start"],
        "vision_end_token_id": ids["vision_end"],
        "tie_word_embeddings": True,
    }
    half = head_dim // 2
    if arch == "qwen2_5_vl":
        from transformers import Qwen2_5_VLConfig

        # multimodal RoPE splits head_dim/2 into (temporal, height, width) sections, 1:1.5:1.5 like the real model
        hw = (half - half // 4) // 2
        mrope = [half - 2 * hw, hw, hw]
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 1_000_000.0, "mrope_section": mrope}
        vision.update(window_size=112, fullatt_block_indexes=[size.vision_depth - 1])
        return Qwen2_5_VLConfig(text_config=text, vision_config=vision, **token_ids)
    from transformers import Qwen3VLConfig

    hw = half * 5 // 16
    mrope = [half - 2 * hw, hw, hw]
    text["head_dim"] = head_dim
    text["rope_parameters"] = {
        "rope_type": "default",
        "rope_theta": 5_000_000.0,
        "mrope_section": mrope,
        "mrope_interleaved": True,
    }
    vision.update(
        hidden_act="gelu_pytorch_tanh",
        num_position_embeddings=256,  # a 16x16 learned grid, interpolated to the image like the real 48x48 one
        deepstack_visual_indexes=[0],
    )
    return Qwen3VLConfig(text_config=text, vision_config=vision, **token_ids)


_TOKEN_FIELDS = {
    "pad": "<|endoftext|>",
    "eos": "<|im_end|>",
    "image": "<|image_pad|>",
    "video": "<|video_pad|>",
    "vision_start": "<|vision_start|>",
    "vision_end": "<|vision_end|>",
}


def _processor(arch: str, tokenizer, chat_template: str):
    patch = PATCH[arch]
    unit = (patch * MERGE) ** 2
    size = {"shortest_edge": MIN_MERGED_PATCHES * unit, "longest_edge": MAX_MERGED_PATCHES * unit}
    if arch == "qwen2_5_vl":
        from transformers import Qwen2_5_VLProcessor as Processor
        from transformers import Qwen2VLImageProcessor as ImageProcessor
        from transformers import Qwen2VLVideoProcessor as VideoProcessor
    else:
        from transformers import Qwen2VLImageProcessor as ImageProcessor
        from transformers import Qwen3VLProcessor as Processor
        from transformers import Qwen3VLVideoProcessor as VideoProcessor
    # Qwen3-VL ships the Qwen2-VL image processor class with 16-px patches and 0.5 mean/std; keep that
    extra = {} if arch == "qwen2_5_vl" else {"image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]}
    image_processor = ImageProcessor(size=size, patch_size=patch, merge_size=MERGE, temporal_patch_size=2, **extra)
    video_processor = VideoProcessor(size=size, patch_size=patch, merge_size=MERGE, temporal_patch_size=2, **extra)
    return Processor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        video_processor=video_processor,
        chat_template=chat_template,
    )


def build_tiny_vlm(
    out_dir: str | Path,
    *,
    arch: str = "qwen2_5_vl",
    size: str = "tiny",
    corpus: Iterable[str] | None = None,
    seed: int = 0,
) -> Path:
    """Build a randomly initialised Qwen-VL model, tokenizer and processor offline and save them to ``out_dir``.

    Args:
        out_dir: destination folder (created; existing model files are overwritten).
        arch: ``"qwen2_5_vl"`` (Qwen2.5-VL classes) or ``"qwen3_vl"`` (Qwen3-VL classes).
        size: a key of :data:`SIZES`: ``"tiny"`` (~0.3M params, CI), ``"small"`` (~2M, quickstart),
            ``"base"`` (~9M, GPU smoke runs).
        corpus: documents to train the tokenizer on (default: :func:`default_corpus`).
        seed: torch seed for the random weights (same seed and corpus -> identical model).

    Returns:
        ``out_dir`` as a Path; ``AutoModelForImageTextToText.from_pretrained`` and ``AutoProcessor.from_pretrained``
        load it offline. ``vcoder_tiny.json`` there records arch, size and parameter count.
    """
    spec, out, tokenizer = start_build(out_dir, arch=arch, arches=ARCHES, size=size, corpus=corpus)
    import torch
    from transformers import AutoModelForImageTextToText

    processor = _processor(arch, tokenizer, chat_template(arch))
    config = _model_config(arch, spec, tokenizer)
    torch.manual_seed(seed)
    model = AutoModelForImageTextToText.from_config(config, dtype=torch.float32)
    return finish_build(model, processor, tokenizer, out, arch=arch, size=size, seed=seed)


def start_build(
    out_dir: str | Path,
    *,
    arch: str,
    arches: Iterable[str],
    size: str,
    corpus: Iterable[str] | None,
    split_digits: bool = False,
    split_words: bool = False,
) -> tuple[TinySize, Path, Any]:
    """What every tiny builder does first: check ``arch`` and ``size``, create ``out_dir`` and train the tokenizer
    (``split_digits``, ``split_words``: see :func:`vcoder.models.tokenizer.train_tokenizer`).

    Returns:
        ``(the size's dimensions, out_dir as a Path, the tokenizer)``.

    Raises:
        ValueError: an unknown arch or size, or an empty corpus.
    """
    if arch not in arches:
        raise ValueError(f"unknown arch {arch!r}; choose one of {', '.join(arches)}")
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose one of {', '.join(SIZES)}")
    spec = SIZES[size]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    docs = list(corpus) if corpus is not None else default_corpus()
    if not docs:
        raise ValueError("corpus is empty; pass some documents or leave corpus=None for the default")
    return spec, out, train_tokenizer(docs, vocab_size=spec.vocab, split_digits=split_digits, split_words=split_words)


def finish_build(model: Any, saved_with: Any, tokenizer: Any, out: Path, *, arch: str, size: str, seed: int) -> Path:
    """What every tiny builder does last: stop generation at ``<|im_end|>`` or padding, save the model and
    ``saved_with`` (its processor or tokenizer) and record arch, size, seed and parameter count in
    ``vcoder_tiny.json``."""
    from transformers import GenerationConfig

    pad = tokenizer.pad_token_id
    model.generation_config = GenerationConfig(
        eos_token_id=[tokenizer.convert_tokens_to_ids("<|im_end|>"), pad], pad_token_id=pad, bos_token_id=pad
    )
    model.save_pretrained(out)
    saved_with.save_pretrained(out)
    n_params = sum(p.numel() for p in model.parameters())
    info = {"arch": arch, "size": size, "seed": seed, "parameters": n_params, "vocab_size": len(tokenizer)}
    (out / "vcoder_tiny.json").write_text(json.dumps(info, indent=2) + "\n")
    logger.info("built tiny %s/%s with %d parameters in %s", arch, size, n_params, out)
    return out
