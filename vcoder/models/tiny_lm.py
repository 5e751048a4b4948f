"""A tiny, randomly initialised Qwen text model built offline: the LM policies' stand-in (Qwen2.5-Coder, Qwen3).

The site-building agent's policies in WebGen-RL are text models (Qwen2.5-Coder-7B-Instruct, Qwen3-8B). This builds
their architecture (``Qwen2ForCausalLM`` / ``Qwen3ForCausalLM``) shrunk to the sizes of
:data:`vcoder.models.tiny.SIZES`, with the same locally trained BPE tokenizer as the tiny VLM and TRL's bundled copy
of the real model's chat template, so TRL recognises it and swaps in its training variant (with ``{% generation %}``
markers) for ``assistant_only_loss``.

Example:
    >>> path = build_tiny_lm("/tmp/tiny-coder")  # doctest: +SKIP
    >>> AutoModelForCausalLM.from_pretrained(path)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from vcoder.models.tiny import chat_template, finish_build, start_build

#: architecture -> the TRL chat template of the real model it stands in for
LM_ARCHES = {"qwen2_5": "qwen2_5", "qwen3": "qwen3"}


def build_tiny_lm(
    out_dir: str | Path,
    *,
    arch: str = "qwen2_5",
    size: str = "tiny",
    corpus: Iterable[str] | None = None,
    seed: int = 0,
    split_digits: bool = False,
    split_words: bool = False,
) -> Path:
    """Build a randomly initialised Qwen causal LM and its tokenizer offline and save them to ``out_dir``.

    Args:
        out_dir: destination folder (created; existing model files are overwritten).
        arch: ``"qwen2_5"`` (Qwen2 classes, Qwen2.5's template) or ``"qwen3"`` (Qwen3 classes and template).
        size: a key of ``vcoder.models.tiny.SIZES`` (its text-decoder dimensions are used).
        corpus: documents to train the tokenizer on (default: the tiny VLM's HTML corpus).
        seed: torch seed for the random weights.
        split_digits: digits are tokens of their own (see :func:`vcoder.models.tokenizer.train_tokenizer`).
        split_words: no token crosses a word edge (the same function), so names copy token for token.

    Returns:
        ``out_dir`` as a Path; ``AutoModelForCausalLM`` / ``AutoTokenizer.from_pretrained`` load it offline.
    """
    spec, out, tokenizer = start_build(
        out_dir,
        arch=arch,
        arches=LM_ARCHES,
        size=size,
        corpus=corpus,
        split_digits=split_digits,
        split_words=split_words,
    )
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config, Qwen3Config

    tokenizer.chat_template = chat_template(LM_ARCHES[arch])
    eos, pad = tokenizer.convert_tokens_to_ids("<|im_end|>"), tokenizer.pad_token_id
    dims = dict(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden,
        intermediate_size=spec.intermediate,
        num_hidden_layers=spec.layers,
        num_attention_heads=spec.heads,
        num_key_value_heads=spec.kv_heads,
        max_position_embeddings=8192,
        bos_token_id=pad,
        eos_token_id=eos,
        pad_token_id=pad,
        tie_word_embeddings=True,
    )
    config = Qwen2Config(**dims) if arch == "qwen2_5" else Qwen3Config(head_dim=spec.hidden // spec.heads, **dims)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    return finish_build(model, tokenizer, tokenizer, out, arch=arch, size=size, seed=seed)
