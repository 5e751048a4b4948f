"""What the curriculum asks of the policy itself: per-token log-probabilities of a recorded completion, and samples.

Both take training rows as the trainers see them (``prompt`` in TRL's conversational form, plus ``image`` for a VLM
policy) and the policy's processor (a VLM processor or a text tokenizer). A completion is scored as the assistant's
reply after the prompt's generation header, the way the trainer scores its own completions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _prompt_text(processor, row: Mapping[str, Any]) -> tuple[str, list | None]:
    image = row.get("image")
    if image is not None:
        from trl.data_utils import prepare_multimodal_messages

        messages = prepare_multimodal_messages(row["prompt"], images=[image])
        return processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False), [image]
    return processor.apply_chat_template(list(row["prompt"]), add_generation_prompt=True, tokenize=False), None


def _encode(processor, text: str, images: list | None):
    if images is not None:
        return processor(text=[text], images=[images], return_tensors="pt")
    return processor(text=[text], return_tensors="pt", add_special_tokens=False)


def prompt_inputs(processor, row: Mapping[str, Any]):
    """The model inputs of a row's prompt with its generation header (what the policy sees before replying)."""
    prompt, images = _prompt_text(processor, row)
    return _encode(processor, prompt, images)


def completion_token_logps(model, processor, row: Mapping[str, Any], completion: str, *, grad: bool = False):
    """Log-probabilities (a 1-D tensor) of the completion's tokens given the row's prompt.

    Args:
        model: the policy.
        processor: its processor or tokenizer.
        row: ``{"prompt", "image"?}``.
        completion: the reply text.
        grad: keep the graph (for a loss); otherwise computed under ``no_grad``.

    Returns:
        One value per completion token (empty when the completion has no tokens).
    """
    import torch

    prompt, images = _prompt_text(processor, row)
    tokenizer = getattr(processor, "tokenizer", processor)
    eos = tokenizer.eos_token or ""
    full = _encode(processor, prompt + completion + eos, images).to(model.device)
    start = _encode(processor, prompt, images)["input_ids"].shape[1]
    with torch.set_grad_enabled(grad):
        logits = model(**full).logits[0, :-1].float()
        targets = full["input_ids"][0, 1:]
        logps = torch.log_softmax(logits, dim=-1).gather(1, targets[:, None])[:, 0]
    return logps[start - 1 :]


def geometric_mean_probs(model, processor, rows: Sequence[Mapping[str, Any]], completions: Sequence[str]) -> list:
    """Per-token geometric-mean probability ``exp(mean log p)`` of each completion (None without tokens)."""
    import math

    was_training = model.training
    model.eval()
    try:
        out = []
        for row, completion in zip(rows, completions, strict=True):
            logps = completion_token_logps(model, processor, row, completion)
            out.append(math.exp(float(logps.mean())) if logps.numel() else None)
        return out
    finally:
        model.train(was_training)


def sample_completions(
    model, processor, rows: Sequence[Mapping[str, Any]], *, n: int, max_new_tokens: int, temperature: float = 1.0
) -> list[list[str]]:
    """``n`` sampled completions per row (decoded, special tokens skipped)."""
    import torch

    tokenizer = getattr(processor, "tokenizer", processor)
    was_training = model.training
    model.eval()
    out = []
    try:
        for row in rows:
            prompt, images = _prompt_text(processor, row)
            inputs = _encode(processor, prompt, images).to(model.device)
            with torch.no_grad():
                ids = model.generate(
                    **inputs,
                    do_sample=True,
                    temperature=temperature,
                    num_return_sequences=n,
                    max_new_tokens=max_new_tokens,
                    pad_token_id=tokenizer.pad_token_id,
                    eos_token_id=tokenizer.eos_token_id,
                )
            out.append(tokenizer.batch_decode(ids[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True))
    finally:
        model.train(was_training)
    return out
