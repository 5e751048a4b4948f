"""A scripted policy for TRL's trainer: the tiny random model cannot write a tool call, so its ``generate`` is
replaced by one that returns fixed replies (what TRL's own environment tests do), recording what the model was given.

Everything else is real: TRL's tool loop, the environment, the renderer, the loss over the tiny model's logits.
"""

from __future__ import annotations

import json
from typing import Any


def tool_call(name: str, **arguments: Any) -> str:
    """A Qwen-format tool call, as TRL's response parser reads it."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call><|im_end|>"


class ScriptedGenerate:
    """``model.generate`` replacement: a prompt holding k tool responses gets ``replies[k]`` (the last one repeats).

    Attributes:
        calls: for each call, ``{"batch": rows, "pixel_values": number of image patches or 0, "ids": input ids}``.
    """

    def __init__(self, tokenizer: Any, replies: list[str]) -> None:
        self.tokenizer, self.replies, self.calls = tokenizer, replies, []

    def reply_ids(self) -> list[list[int]]:
        """The token ids of each scripted reply (what the model "wrote")."""
        return [self.tokenizer(r, add_special_tokens=False)["input_ids"] for r in self.replies]

    def __call__(self, input_ids=None, **kwargs: Any):
        import torch

        pixels = kwargs.get("pixel_values")
        seen = self.tokenizer.decode(input_ids[0]).count("<tool_response>")
        turn = min(seen, len(self.replies) - 1)
        self.calls.append(
            {
                "batch": input_ids.shape[0],
                "pixel_values": 0 if pixels is None else int(pixels.shape[0]),
                "ids": input_ids.tolist(),
            }
        )
        ids = self.tokenizer(self.replies[turn], add_special_tokens=False)["input_ids"]
        reply = torch.tensor([ids] * input_ids.shape[0], device=input_ids.device)
        return torch.cat([input_ids, reply], dim=-1)
