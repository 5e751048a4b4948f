"""A local causal LM as the web agent's policy, and the likelihood maths its training needs (CPU or GPU).

The prompt of a step (:func:`vcoder.browse.prompt.step_prompt`) goes through the model's chat template with the
generation prompt; the completion is the action line and the end-of-turn token. Prompts longer than
``max_prompt_tokens`` keep their LAST tokens (the page and the round), at training and acting alike, so the policy
is trained on exactly what it reads. Prompt and completion are tokenised apart, as generation sees them.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import Sequence
from typing import Any

from vcoder.models.chat_prompt import prompt_ids
from vcoder.models.precision import master_copy_missing, warn_master_copy_missing
from vcoder.pipelines.web_agent.config import ACTION_TOKENS, PROMPT_TOKENS

logger = logging.getLogger(__name__)

Sample = tuple[list[dict[str, str]], str]  # (prompt messages, completion text)


def completion_ids(tokenizer, completion: str) -> list[int]:
    return tokenizer(completion, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]


class LocalPolicy:
    """A ``WebPolicy`` over a transformers causal LM: greedy (``temperature`` 0) or sampled action lines.

    Generation runs in a worker thread, so the browser pool's event loop keeps serving while the model thinks.
    """

    name = "local"

    def __init__(
        self,
        model,
        tokenizer,
        *,
        max_new_tokens: int = ACTION_TOKENS,
        temperature: float = 0.0,
        max_prompt_tokens: int = PROMPT_TOKENS,
        system: bool = True,
        seed: int = 0,
    ) -> None:
        self.model, self.tokenizer = model, tokenizer
        self.max_new_tokens, self.temperature, self.max_prompt_tokens = max_new_tokens, temperature, max_prompt_tokens
        self.system, self.rng = system, random.Random(seed)

    def generate(self, messages: list[dict[str, str]]) -> str:
        import torch

        ids = torch.tensor(
            [prompt_ids(self.tokenizer, messages, self.max_prompt_tokens, self.system)], device=self.model.device
        )
        sample = self.temperature > 0
        if sample:
            torch.manual_seed(self.rng.randrange(2**31))
        with torch.no_grad():
            out = self.model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=self.max_new_tokens,
                do_sample=sample,
                temperature=self.temperature if sample else None,
                top_p=None,
                top_k=None,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        return self.tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True)

    async def act(self, messages: list[dict[str, str]]) -> str:
        return await asyncio.to_thread(self.generate, messages)


def _batch(tokenizer, samples: Sequence[Sample], max_prompt_tokens: int, system: bool, device):
    import torch

    rows = [(prompt_ids(tokenizer, m, max_prompt_tokens, system), completion_ids(tokenizer, c)) for m, c in samples]
    width = max(len(p) + len(c) for p, c in rows)
    pad = tokenizer.pad_token_id
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    labels = torch.full((len(rows), width), -100, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, (p, c) in enumerate(rows):
        n = len(p) + len(c)
        ids[i, :n] = torch.tensor(p + c)
        labels[i, len(p) : n] = torch.tensor(c)
        mask[i, :n] = 1
    return ids.to(device), labels.to(device), mask.to(device)


def completion_logprobs(
    model, tokenizer, samples: Sequence[Sample], *, max_prompt_tokens: int, system: bool = True, batch_size: int = 8
) -> list[float]:
    """Mean log-probability per completion token of each sample (``exp`` of it: WebRL's replay confidence)."""
    import torch

    out: list[float] = []
    model.eval()
    with torch.no_grad():
        for k in range(0, len(samples), batch_size):
            ids, labels, mask = _batch(tokenizer, samples[k : k + batch_size], max_prompt_tokens, system, model.device)
            logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
            target = labels[:, 1:]
            logp = torch.log_softmax(logits, -1).gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1)
            keep = (target != -100).float()
            out += ((logp * keep).sum(1) / keep.sum(1).clamp(min=1)).tolist()
    return out


def train_nll(
    model,
    tokenizer,
    samples: Sequence[Sample],
    *,
    epochs: float,
    learning_rate: float,
    batch_size: int,
    max_prompt_tokens: int,
    seed: int,
    system: bool = True,
) -> dict[str, Any]:
    """Minimise the completions' NLL (the loss on the assistant turn only) for ``epochs`` passes over ``samples``
    (a fraction: that share of one pass's steps).

    With samples drawn from successful episodes this is the policy-gradient step of a 0/1 outcome reward without a
    baseline (every kept sample has advantage 1), the update of rejection-sampling / filtered behaviour cloning.
    Not :func:`vcoder.models.train_loop.run_training`: there is no TRL trainer here (a few in-process steps on a model
    the phase keeps using for rollouts), nothing to resume, and the phase saves the model itself.

    Returns:
        ``{"steps", "samples", "loss_first", "loss_last"}``.
    """
    import torch

    if not samples:
        return {"steps": 0, "samples": 0, "loss_first": None, "loss_last": None}
    rng = random.Random(seed)
    torch.manual_seed(seed)
    trained = [p.dtype for p in model.parameters() if p.requires_grad]
    lossy = master_copy_missing(trained, deepspeed=False, fsdp_mixed_precision=False)
    if lossy is not None:  # one process, plain AdamW: 16-bit weights have no fp32 master copy here
        warn_master_copy_missing(lossy, learning_rate=learning_rate, where="web agent NLL update")
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    per_epoch = math.ceil(len(samples) / batch_size)
    steps = max(1, round(per_epoch * epochs))
    order: list[int] = []
    losses = []
    model.train()
    for _ in range(steps):
        if len(order) < batch_size:
            more = list(range(len(samples)))
            rng.shuffle(more)
            order += more
        chosen, order = order[:batch_size], order[batch_size:]
        ids, labels, mask = _batch(tokenizer, [samples[i] for i in chosen], max_prompt_tokens, system, model.device)
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
    model.eval()
    return {"steps": steps, "samples": len(samples), "loss_first": losses[0], "loss_last": losses[-1]}
