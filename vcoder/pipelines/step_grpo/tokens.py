"""A multi-turn episode as one token sequence: the policy's chat template, turn by turn, with a mask of whose tokens.

Step-GRPO trains on a trajectory as TRL trains on a completion: ``prompt_ids`` (the first request, templated) then
``completion_ids``, here every reply of the model *and* the environment's feedback turns between them. The sequence
is built incrementally, so the tokens trained on are exactly the tokens the model conditioned on when it generated
(no re-tokenisation of its replies):

- the prompt: the chat template of the system + user messages with the generation prompt;
- a reply: the sampled token ids as generated (``turn`` k >= 1, env_mask 1);
- a feedback turn: the template's tokens between the end of an assistant turn and the next generation prompt
  (``turn`` 0, env_mask 0), found by templating a two-turn dummy conversation and cutting after the assistant's
  end-of-turn token; a reply cut off by its token cap gets the end-of-turn token as an environment token first.

Feedback screenshots (a VLM policy) travel as images of the trajectory, in order; their image tokens are environment
tokens.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass, field
from typing import Any

#: turn number of environment (template, feedback) tokens
ENV_TURN = 0


def hf_message(message: dict[str, Any], *, parts: bool) -> tuple[dict[str, Any], list[Any]]:
    """An OpenAI-format message as a transformers chat message, and the images it carries (PIL, in order).

    ``image_url`` parts holding ``data:`` URLs become ``{"type": "image", "image": PIL}``; with ``parts`` the content
    is a list of typed parts (VLM processors), else a string (tokenizers; a message with images is refused).
    """
    from vcoder.images import to_pil

    content = message.get("content")
    items = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    out, images = [], []
    for item in items:
        kind = item.get("type")
        if kind == "text":
            out.append({"type": "text", "text": item.get("text", "")})
        elif kind in ("image_url", "image"):
            image = item.get("image")
            if image is None:
                url = item["image_url"]["url"] if isinstance(item.get("image_url"), dict) else item.get("image_url")
                if not isinstance(url, str) or not url.startswith("data:"):
                    raise ValueError(f"only data: URLs can be templated for training, got {str(url)[:60]!r}")
                image = to_pil(base64.b64decode(url.split(",", 1)[1]))
            images.append(image)
            out.append({"type": "image", "image": image})
        else:
            raise ValueError(f"message part of type {kind!r} cannot be templated; use text or image parts")
    if not parts:
        if images:
            raise ValueError(
                "a feedback message carries a screenshot but the policy has a text tokenizer, not a VLM processor; "
                "set feedback_images: false, or train a vision-language model"
            )
        return {"role": message["role"], "content": "".join(p["text"] for p in out)}, []
    return {"role": message["role"], "content": out}, images


class ChatTokens:
    """The policy's chat template as token ids (a tokenizer for LM policies, a processor for VLM ones).

    Args:
        processing_class: the trainer's tokenizer or processor.
        chat_template_kwargs: extra template variables (e.g. ``{"enable_thinking": False}`` for Qwen3).
    """

    def __init__(self, processing_class: Any, *, chat_template_kwargs: dict[str, Any] | None = None):
        self.processing_class = processing_class
        self.tokenizer = getattr(processing_class, "tokenizer", processing_class)
        self.is_processor = self.tokenizer is not processing_class
        self.template_kwargs = dict(chat_template_kwargs or {})
        self.end_of_turn = self.tokenizer.eos_token_id
        if self.end_of_turn is None:
            raise ValueError("the tokenizer has no eos_token; the chat template's end-of-turn token must be its eos")
        self._head_ends = None

    def render(self, messages: list[dict[str, Any]], *, add_generation_prompt: bool) -> tuple[list[int], list]:
        """Token ids (and images) of a conversation under the chat template."""
        converted, images = [], []
        for message in messages:
            hf, found = hf_message(message, parts=self.is_processor)
            converted.append(hf)
            images += found
        out = self.processing_class.apply_chat_template(
            converted,
            add_generation_prompt=add_generation_prompt,
            tokenize=True,
            return_dict=True,
            **self.template_kwargs,
        )
        ids = out["input_ids"]
        if ids and isinstance(ids[0], list):  # processors return a batch of one
            ids = ids[0]
        return [int(i) for i in ids], images

    def prompt(self, messages: list[dict[str, Any]]) -> tuple[list[int], list]:
        """The first request's ids with the generation prompt."""
        return self.render(messages, add_generation_prompt=True)

    def feedback(self, message: dict[str, Any]) -> tuple[list[int], list]:
        """The environment tokens after an assistant turn's end-of-turn token: the feedback turn and the next
        generation prompt."""
        head = [{"role": "user", "content": "x"}]
        if self._head_ends is None:  # a default system turn (Qwen2.5) adds end-of-turn tokens before the dummy's
            self._head_ends = self.render(head, add_generation_prompt=False)[0].count(self.end_of_turn)
        ids, images = self.render([*head, {"role": "assistant", "content": "y"}, message], add_generation_prompt=True)
        ends = [i for i, token in enumerate(ids) if token == self.end_of_turn]
        if len(ends) <= self._head_ends:
            raise ValueError(
                f"the chat template does not end an assistant turn with the eos token {self.tokenizer.eos_token!r}; "
                "Step-GRPO needs a template whose turns end with eos (Qwen's <|im_end|>)"
            )
        return ids[ends[self._head_ends] + 1 :], images

    def decode(self, ids: list[int]) -> str:
        """A reply's text, as the episode sees it."""
        return self.tokenizer.decode(ids, skip_special_tokens=True)


@dataclass
class TrajectoryTokens:
    """One trajectory's tokens: the prompt, then replies and feedback turns, each token tagged with its turn.

    Attributes:
        prompt_ids: the first request, templated.
        ids: the completion (replies and feedback, in order).
        turns: per completion token, the reply number it belongs to (1, 2, ...) or ``ENV_TURN`` (0).
        logprobs: per completion token, the sampling logprob of a generated token (NaN for environment tokens and
            when the generator reports none).
        images: the trajectory's images in order of appearance (prompt first, then feedback screenshots).
        replies: number of replies so far.
        truncated: the last reply was cut by the trajectory's token budget (the trajectory ends there).
    """

    prompt_ids: list[int]
    ids: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    images: list = field(default_factory=list)
    replies: int = 0
    truncated: bool = False

    def add_environment(self, ids: list[int], images: list = ()) -> None:
        """Append environment tokens (masked out of the loss)."""
        self.ids += ids
        self.turns += [ENV_TURN] * len(ids)
        self.logprobs += [math.nan] * len(ids)
        self.images += list(images)

    def add_reply(self, ids: list[int], logprobs: list[float] | None) -> int:
        """Append a generated reply; returns its turn number."""
        if logprobs is not None and len(logprobs) != len(ids):
            raise ValueError(f"a reply of {len(ids)} tokens came with {len(logprobs)} logprobs")
        self.replies += 1
        self.ids += ids
        self.turns += [self.replies] * len(ids)
        self.logprobs += [math.nan] * len(ids) if logprobs is None else [float(x) for x in logprobs]
        return self.replies

    @property
    def env_mask(self) -> list[int]:
        """1 for the model's tokens, 0 for the environment's."""
        return [int(turn != ENV_TURN) for turn in self.turns]


def token_advantages(turns: list[list[int]], values: list[list[float]], width: int) -> list[list[float]]:
    """Per-token advantages: token t of trajectory b gets ``values[b][turns[b][t] - 1]`` (its reply's step value),
    0.0 for environment tokens, for replies without a value and for padding up to ``width``.

    Example:
        >>> token_advantages([[1, 1, 0, 0, 2]], [[0.5, -1.0]], 6)
        [[0.5, 0.5, 0.0, 0.0, -1.0, 0.0]]
    """
    out = []
    for row_turns, row_values in zip(turns, values, strict=True):
        if len(row_turns) > width:
            raise ValueError(f"a trajectory of {len(row_turns)} tokens does not fit the batch width {width}")
        row = [row_values[k - 1] if 0 < k <= len(row_values) else 0.0 for k in row_turns]
        out.append(row + [0.0] * (width - len(row)))
    return out
