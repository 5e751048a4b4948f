"""A behaviour-cloning warm-up for small policies: teach a model a few site-building replies before Step-GRPO.

A randomly initialised model (the tiny CPU one) never writes a well-formed turn, so every step scores the malformed
reward and every advantage is 0: nothing to learn from and nothing to look at. A few dozen steps of supervised
learning on replies in the turn format, each conditioned on its task's real first request (the episode's system
prompt and instruction, templated as the rollout templates them), give a policy whose samples are a mix of working,
half-working and malformed sites, which is what Step-GRPO needs. (WebAgent-R1 reports that a behaviour-cloning
warm-up matters for multi-turn web-agent RL too.)

:func:`counter_replies` writes two such replies for a generated counter task (``vcoder.data.site_tasks``): one that
passes one of its four scripted cases, one that passes all four.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

logger = logging.getLogger(__name__)

_COUNTER = re.compile(r"starts at (-?\d+); a '\+ (\d+)' button")


def counter_replies(instruction: str) -> list[str]:
    """Two replies for a generated counter task: a page with only its '+' button, and a complete one.

    Raises:
        ValueError: the instruction is not a generated counter task's.

    Example:
        >>> counter_replies("... the count (id count) starts at 0; a '+ 3' button (id inc) adds 3, ...")[0][:24]
        '<file path="index.html">'
    """
    found = _COUNTER.search(instruction)
    if found is None:
        raise ValueError(f"not a generated counter task: {instruction[:80]!r}")
    start, step = found.groups()
    add = f'<button id="inc" onclick="count.textContent=+count.textContent+{step}">+ {step}</button>'
    sub = f'<button id="dec" onclick="count.textContent=+count.textContent-{step}">- {step}</button>'
    reset = (
        f'<button id="reset" onclick="count.textContent={start};'
        f"document.getElementById('status').textContent='Counter reset to {start}'\">Reset</button>"
    )
    page = f'<p id="count">{start}</p>'
    return [
        f'<file path="index.html">\n{page}{add}\n</file>',
        f'<file path="index.html">\n{page}<p id="status"></p>{add}{sub}{reset}\n</file>\n<finish/>',
    ]


def warm_start(
    model_dir: str | Path,
    out_dir: str | Path,
    examples: list[tuple[str, str]],
    *,
    steps: int = 40,
    learning_rate: float = 3e-3,
    seed: int = 0,
) -> Path:
    """Fine-tune a (small) model on ``(instruction, reply)`` pairs in the site agent's first turn; save it.

    Args:
        model_dir: the model to start from (a folder ``from_pretrained`` loads, e.g. ``vcoder models tiny``'s).
        out_dir: where the warmed-up model and its processor go.
        examples: ``(instruction, reply)`` pairs; each reply is learned after the templated first request.
        steps: optimiser steps (one example each, round robin).
        learning_rate: AdamW learning rate.
        seed: torch seed.

    Returns:
        ``out_dir`` as a Path.
    """
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from vcoder.data.prompts import make_site_conversation
    from vcoder.pipelines.step_tokens import ChatTokens

    if not examples or steps < 1:
        raise ValueError(f"need at least one example and one step, got {len(examples)} examples, steps={steps}")
    torch.manual_seed(seed)
    processor = AutoProcessor.from_pretrained(model_dir)
    model = AutoModelForImageTextToText.from_pretrained(model_dir, dtype=torch.float32)
    chat = ChatTokens(processor)
    batches = []
    for instruction, reply in examples:
        prompt, _ = chat.prompt(make_site_conversation(instruction))
        answer = chat.tokenizer(reply, add_special_tokens=False)["input_ids"] + [chat.end_of_turn]
        ids = torch.tensor([prompt + answer])
        labels = ids.clone()
        labels[0, : len(prompt)] = -100
        batches.append((ids, labels))
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    model.train()
    for step in range(steps):
        ids, labels = batches[step % len(batches)]
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 10 == 0 or step == steps - 1:
            logger.info("warm-up step %d: loss %.3f", step, loss.item())
    out = Path(out_dir)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out
