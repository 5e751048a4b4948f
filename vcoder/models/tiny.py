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

logger = logging.getLogger(__name__)

ARCHES = ("qwen2_5_vl", "qwen3_vl")

# The special tokens Qwen2.5-VL / Qwen3-VL tokenizers carry; the processor and templates look these up by text.
SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
)
# added but not special (as in Qwen3): they must survive skip_special_tokens so reasoning can be parsed
ADDED_TOKENS = ("<tool_call>", "</tool_call>", "<think>", "</think>")


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
        64,
        2,
        2,
        1,
        128,
        32,
        2,
        2,
        2048,
    ),
    # ~2M parameters: the quickstart, big enough to learn difficulty-0 pages on a CPU
    "small": TinySize(192, 3, 3, 1, 512, 64, 2, 2, 3072),
    # ~9M parameters: GPU smoke runs
    "base": TinySize(384, 4, 6, 2, 1024, 128, 4, 4, 4096),
}

# Design of the pixel budget: 64 merged patches (a few dozen visual tokens per screenshot) keeps CPU steps fast.
PATCH = {"qwen2_5_vl": 14, "qwen3_vl": 16}
MERGE = 2
MAX_MERGED_PATCHES = 64
MIN_MERGED_PATCHES = 4

_HANDWRITTEN = (
    "<!DOCTYPE html>\n<html>\n<head>\n<title>Home</title>\n</head>\n<body>\n<h1>Hello, world!</h1>\n"
    "<p>This is a paragraph.</p>\n</body>\n</html>\n",
    '<div class="container">\n<ul>\n<li><a href="#">Home</a></li>\n<li><a href="#">About</a></li>\n</ul>\n</div>\n',
    '```html\n<html><body style="margin: 0;"><img src="rick.jpg" alt=""></body></html>\n```\n',
    '<link href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css" rel="stylesheet">\n'
    '<div class="flex items-center justify-between p-4 bg-white text-gray-800">\n<span>Logo</span>\n</div>\n',
    "<think>\nThe screenshot shows a heading and two blocks.\n</think>\n",
    "<table>\n<tr><th>Name</th><th>Price</th></tr>\n<tr><td>Coffee</td><td>$3</td></tr>\n</table>\n"
    '<form><input type="text" placeholder="Email"><button type="submit">Send</button></form>\n',
)


def default_corpus(n_per_difficulty: int = 150) -> list[str]:
    """HTML the tokenizer is trained on: synthetic pages of every difficulty plus a few hand-written snippets.

    Args:
        n_per_difficulty: synthetic pages per difficulty level.

    Returns:
        A list of documents; difficulty-0 pages are repeated so their idioms get the most merges.
    """
    from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT
    from vcoder.data.synthetic import generate_page

    # the prompts open every training example: repeated, they become a handful of tokens
    docs = [DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT] * 50 + list(_HANDWRITTEN)
    for difficulty in range(4):
        docs += [generate_page(seed, difficulty=difficulty).html for seed in range(n_per_difficulty)]
    # the quickstart trains on difficulty 0: weighting it makes those pages the shortest in tokens
    docs += [generate_page(10_000 + seed, difficulty=0).html for seed in range(2 * n_per_difficulty)]
    return docs


def train_tokenizer(corpus: Iterable[str], *, vocab_size: int = 2048):
    """Train a byte-level BPE tokenizer with the Qwen-VL special tokens and wrap it for transformers.

    The byte-level pre-tokenizer runs without its word-splitting regex, so merges may cross spaces and
    punctuation: measured on HTML this makes pages several times shorter in tokens, which is what makes CPU
    training fast.

    Args:
        corpus: documents to learn merges from.
        vocab_size: total vocabulary size including the 256 byte symbols and the special tokens.

    Returns:
        A ``PreTrainedTokenizerFast`` with eos ``<|im_end|>`` and pad ``<|endoftext|>``.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS) + list(ADDED_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
        # long merges would memorise whole pages of the training corpus; bounded they stay reusable idioms
        max_token_length=24,
    )
    tok.train_from_iterator(list(corpus), trainer=trainer)
    from tokenizers import AddedToken

    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in ADDED_TOKENS])
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        bos_token=None,
        model_max_length=32768,
        padding_side="left",
        clean_up_tokenization_spaces=False,
    )


def _chat_template(arch: str) -> str:
    """TRL's bundled copy of the real model's chat template, so TRL recognises it (and its training variant)."""
    try:
        return (resources.files("trl") / "chat_templates" / f"{arch}.jinja").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise RuntimeError(
            f"TRL's chat template {arch}.jinja was not found ({exc}); install the training extras: "
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
    if arch not in ARCHES:
        raise ValueError(f"unknown arch {arch!r}; choose one of {', '.join(ARCHES)}")
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose one of {', '.join(SIZES)}")
    import torch
    from transformers import AutoModelForImageTextToText, GenerationConfig

    spec = SIZES[size]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    docs = list(corpus) if corpus is not None else default_corpus()
    if not docs:
        raise ValueError("corpus is empty; pass some HTML documents or leave corpus=None for the default")
    tokenizer = train_tokenizer(docs, vocab_size=spec.vocab)
    processor = _processor(arch, tokenizer, _chat_template(arch))
    config = _model_config(arch, spec, tokenizer)

    torch.manual_seed(seed)
    model = AutoModelForImageTextToText.from_config(config, dtype=torch.float32)
    model.generation_config = GenerationConfig(
        eos_token_id=[tokenizer.convert_tokens_to_ids("<|im_end|>"), tokenizer.pad_token_id],
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(out)
    processor.save_pretrained(out)
    n_params = sum(p.numel() for p in model.parameters())
    info = {"arch": arch, "size": size, "seed": seed, "parameters": n_params, "vocab_size": len(tokenizer)}
    (out / "vcoder_tiny.json").write_text(json.dumps(info, indent=2) + "\n")
    logger.info("built %s/%s with %d parameters in %s", arch, size, n_params, out)
    return out
