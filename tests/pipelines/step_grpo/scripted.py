"""Scripted turns (a test fixture, shared with ``bench/step_grpo.py`` and ``experiments/archive/gpu_step_grpo.py``):
a turn generator that returns given reply texts as if they had been sampled, and known replies for generated counter
tasks.

With replayed replies the sites, the grades, the step rewards and so the advantages of a Step-GRPO batch are known
in advance, while everything else is the real training path (templating, rendering, grading, TRL's batch assembly,
the loss): the tests check a real batch against hand-derived values this way, and ``bench/step_grpo.py`` times
grading on sites that work. The training step on such a batch is off-policy (the replies are not the model's).
"""

from __future__ import annotations

import re
from typing import Any

from vcoder.pipelines.step_grpo.generation import TurnOutput, TurnRequest, cut_reply

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


class ScriptedTurns:
    """Replays fixed replies: trajectory ``key`` gets ``replies[key % len(replies)][turn - 1]`` as its turn's tokens
    (then the end-of-turn token), cut at the request's cap.

    Args:
        tokenizer: the policy's tokenizer.
        replies: per trajectory, its reply texts in turn order (a trajectory with fewer replies than turns repeats
            its last one).
        eos_token_ids: end-of-sequence ids (the first one closes each reply).
    """

    reports_logprobs = False

    def __init__(self, tokenizer: Any, replies: list[list[str]], eos_token_ids: list[int]):
        if not replies or not all(replies):
            raise ValueError("replies needs at least one trajectory with at least one reply")
        self.tokenizer = tokenizer
        self.replies = [list(r) for r in replies]
        self.eos = set(eos_token_ids)
        self.end = eos_token_ids[0]

    def generate(self, requests: list[TurnRequest]) -> list[TurnOutput]:
        """The scripted reply of each request's trajectory and turn."""
        out = []
        for request in requests:
            script = self.replies[request.key % len(self.replies)]
            text = script[min(request.turn, len(script)) - 1]
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"] + [self.end]
            out.append(cut_reply(ids, None, self.eos, request.max_new_tokens))
        return out
