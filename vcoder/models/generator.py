"""A local causal LM answering chat messages (``Generator``), the model behind ``vcoder serve``
(:mod:`vcoder.models.server`): the chat template with its generation prompt (:mod:`vcoder.models.chat_prompt`),
``generate`` one call at a time, greedy or sampled, stop strings, and why a reply stopped.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: reply budget of a request that gives no ``max_tokens``
DEFAULT_MAX_TOKENS = 256


def check_model_dir(path: str | Path) -> Path:
    """``path`` as a model folder, or a ``FileNotFoundError`` whose one-line message says what to pass.

    Example:
        >>> check_model_dir("/no/such/model")
        Traceback (most recent call last):
        ...
        FileNotFoundError: no model folder at /no/such/model: pass a folder written by save_pretrained (config.json \
and tokenizer files), e.g. outputs/web-agent-0/phase_1/model
    """
    folder = Path(path)
    hint = (
        "pass a folder written by save_pretrained (config.json and tokenizer files), e.g. "
        "outputs/web-agent-0/phase_1/model"
    )
    if not folder.is_dir():
        raise FileNotFoundError(f"no model folder at {folder}: {hint}")
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"{folder} has no config.json, so it is not a saved model: {hint}")
    return folder


@dataclass(frozen=True)
class Completion:
    """One generated reply: its text, token counts and why it stopped (``stop`` or ``length``)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str


class Generator:
    """A causal LM and its tokenizer, answering chat messages with ``generate`` (one call at a time: a lock).

    Args:
        model: a transformers causal LM (eval mode).
        tokenizer: its tokenizer, with a chat template.
        max_prompt_tokens: keep the last this many prompt tokens (None: all).
        system: keep system turns (False: drop them, for a model trained without its system prompt).
    """

    def __init__(self, model, tokenizer, *, max_prompt_tokens: int | None = None, system: bool = True) -> None:
        if getattr(tokenizer, "chat_template", None) is None:
            raise ValueError("the tokenizer has no chat template; save one with the model (tokenizer.chat_template)")
        self.model, self.tokenizer = model, tokenizer
        self.max_prompt_tokens, self.system = max_prompt_tokens, system
        self._lock = threading.Lock()

    @classmethod
    def load(cls, model_dir: str | Path, *, device: str = "auto", **options: Any) -> Generator:
        """Load a saved model folder (``float32`` on CPU, ``bfloat16`` on CUDA); ``options`` as the constructor's."""
        folder = check_model_dir(model_dir)
        import torch

        from vcoder.models.loading import load_model, load_processor

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
        tokenizer = load_processor(folder, kind="causal_lm")
        model = load_model(folder, kind="causal_lm", dtype=dtype, device=device, eval_mode=True)
        return cls(model, tokenizer, **options)

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        """The chat template with its generation prompt, system turns dropped unless ``system``, last tokens kept."""
        from vcoder.models.chat_prompt import prompt_ids

        return prompt_ids(self.tokenizer, messages, self.max_prompt_tokens, self.system)

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        stop: list[str] = (),
    ) -> Completion:
        """One reply to ``messages`` (``{"role", "content"}`` with text content)."""
        import torch

        ids = self.prompt_ids(messages)
        inputs = torch.tensor([ids], device=self.model.device)
        options: dict[str, Any] = {"max_new_tokens": max_tokens}
        if temperature is not None:
            sample = temperature > 0
            options.update(do_sample=sample, temperature=temperature if sample else None, top_k=None)
            options["top_p"] = (top_p if top_p is not None else 1.0) if sample else None
        elif top_p is not None:
            options["top_p"] = top_p
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        with self._lock, torch.no_grad():
            if seed is not None:
                torch.manual_seed(seed)
            out = self.model.generate(inputs, attention_mask=torch.ones_like(inputs), pad_token_id=pad, **options)
        new = out[0, len(ids) :].tolist()
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        ended = new and new[-1] in _eos_ids(self.model, self.tokenizer)
        finish = "stop" if ended or len(new) < max_tokens else "length"
        for s in stop:
            if s and s in text:
                text, finish = text[: text.index(s)], "stop"
        return Completion(text, len(ids), len(new), finish)


def _eos_ids(model, tokenizer) -> set[int]:
    eos = getattr(model.generation_config, "eos_token_id", None)
    ids = set(eos if isinstance(eos, list) else [eos]) | {tokenizer.eos_token_id}
    return {i for i in ids if i is not None}
