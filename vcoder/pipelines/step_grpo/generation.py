"""Generating one turn for many trajectories at once: in-process transformers ``generate``, or TRL's vLLM client.

A turn request is a trajectory's token ids so far (prompt, replies, feedback) plus its images and a token cap; the
answer is the sampled ids (cut after the first end-of-sequence token and at the cap) and their sampling logprobs.

- :class:`TransformersTurns` (CPU tests, small runs): left-padded batch through the unwrapped training model, with
  the trainer's ``generation_config``; no sampling logprobs (as TRL's own transformers path: the training forward
  pass recomputes them when it needs them).
- :class:`VLLMTurns` (production): ``trainer.vllm_generation.generate`` on token ids (TRL's server or colocate
  mode) with one sample per request; the sampled token's logprob is kept for TRL's importance-sampling correction.
  In server mode the call is collective: every process must call it in every round, with its own (possibly empty)
  list. Not exercised on this machine (no GPU, no vLLM).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TurnRequest:
    """One trajectory's next turn: its ids so far, its images, how many tokens it may generate, and which trajectory
    of the process's batch (``key``) and which of its turns (``turn``, 1-based) it is."""

    ids: list[int]
    max_new_tokens: int
    images: list = field(default_factory=list)
    key: int = 0
    turn: int = 1


@dataclass(frozen=True)
class TurnOutput:
    """The sampled ids of one turn and their sampling logprobs (None when the generator reports none)."""

    ids: list[int]
    logprobs: list[float] | None


def cut_reply(ids: list[int], logprobs: list[float] | None, eos: set[int], cap: int) -> TurnOutput:
    """Keep the ids up to and including the first end-of-sequence token, at most ``cap`` of them.

    Example:
        >>> cut_reply([5, 6, 2, 0, 0], None, {2}, 10)
        TurnOutput(ids=[5, 6, 2], logprobs=None)
    """
    end = next((i + 1 for i, token in enumerate(ids) if token in eos), len(ids))
    end = min(end, cap)
    return TurnOutput(list(ids[:end]), None if logprobs is None else list(logprobs[:end]))


class TransformersTurns:
    """In-process generation with the trainer's model (any process count; no collective calls except ZeRO-3's
    parameter gathering, which is why every process enters the model context in every round)."""

    reports_logprobs = False

    def __init__(self, trainer: Any):
        self.trainer = trainer
        self.processor = trainer.processing_class
        self.tokenizer = getattr(self.processor, "tokenizer", self.processor)
        self.eos = set(trainer.eos_token_ids)

    def generate(self, requests: list[TurnRequest]) -> list[TurnOutput]:
        """One turn for each request (an empty list still enters the model context, for ZeRO-3)."""
        import copy

        import torch
        from trl.models import unwrap_model_for_generation

        trainer = self.trainer
        with unwrap_model_for_generation(
            trainer.model_wrapped,
            trainer.accelerator,
            gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
            generation_kwargs=trainer.generation_kwargs,
            gradient_checkpointing_kwargs=trainer.args.gradient_checkpointing_kwargs,
        ) as model:
            if not requests:
                return []
            inputs = self._inputs(requests, model.device)
            config = copy.deepcopy(trainer.generation_config)
            config.max_new_tokens = max(r.max_new_tokens for r in requests)
            with torch.no_grad():
                out = model.generate(**inputs, generation_config=config)
        new = out[:, inputs["input_ids"].shape[1] :].tolist()
        return [cut_reply(ids, None, self.eos, r.max_new_tokens) for ids, r in zip(new, requests, strict=True)]

    def _inputs(self, requests: list[TurnRequest], device) -> dict[str, Any]:
        import torch

        width = max(len(r.ids) for r in requests)
        pad = self.tokenizer.pad_token_id
        ids = torch.tensor([[pad] * (width - len(r.ids)) + r.ids for r in requests], device=device)
        mask = torch.tensor([[0] * (width - len(r.ids)) + [1] * len(r.ids) for r in requests], device=device)
        inputs: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        images = [image for r in requests for image in r.images]
        if images:
            inputs.update(vision_inputs(self.processor, images, ids))
            inputs = {k: v.to(device) for k, v in inputs.items()}
        return inputs


def vision_inputs(processor: Any, images: list, ids) -> dict[str, Any]:
    """``pixel_values``, ``image_grid_thw`` and ``mm_token_type_ids`` for a batch whose images (in row order) sit in
    ``ids`` as runs of the processor's image token (Qwen-VL)."""
    features = processor.image_processor(images=images, return_tensors="pt")
    token = getattr(processor, "image_token_id", None)
    if token is None:
        raise ValueError(f"{type(processor).__name__} has no image_token_id; screenshot feedback needs a Qwen-VL")
    out = {key: features[key] for key in ("pixel_values", "image_grid_thw") if key in features}
    out["mm_token_type_ids"] = (ids == token).long()
    return out


class VLLMTurns:
    """Generation through TRL's ``VLLMGeneration`` (``use_vllm: true``): server mode (``trl vllm-serve``) or colocate.

    The per-turn cap is the generator's ``max_completion_length`` (set once from ``max_turn_tokens``: in server mode
    the main process's value is the one sent); each reply is then cut to its own trajectory's remaining budget.
    """

    reports_logprobs = True

    def __init__(self, trainer: Any, max_turn_tokens: int):
        self.generation = trainer.vllm_generation
        self.generation.max_completion_length = max_turn_tokens
        self.eos = set(trainer.eos_token_ids)

    def generate(self, requests: list[TurnRequest]) -> list[TurnOutput]:
        """One turn for each request; collective in server mode (call it on every process, every round)."""
        images = [r.images or None for r in requests]
        _, ids, logprobs, _ = self.generation.generate(
            prompts=[r.ids for r in requests],
            images=images if any(images) else None,
            num_generations=1,
        )
        outputs = []
        for seq, seq_logprobs, request in zip(ids, logprobs, requests, strict=True):
            top = [lp[0] if lp and lp[0] is not None else float("nan") for lp in seq_logprobs]
            outputs.append(cut_reply(seq, top, self.eos, request.max_new_tokens))
        return outputs


def turn_generator(trainer: Any, max_turn_tokens: int) -> TransformersTurns | VLLMTurns:
    """The generator the trainer's config asks for (``use_vllm``)."""
    if trainer.use_vllm:
        return VLLMTurns(trainer, max_turn_tokens)
    return TransformersTurns(trainer)
