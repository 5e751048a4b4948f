"""The token ids of a chat prompt as vcoder's causal-LM agents see it, one function for the trainer and the server.

The web agent's trainer (``vcoder.pipelines.web_agent.lm``) and ``vcoder serve`` (:mod:`.server`) shape prompts with
it, so a served agent reads exactly what it was trained on.
"""

from __future__ import annotations

__all__ = ["prompt_ids"]


def prompt_ids(tokenizer, messages: list[dict[str, str]], max_prompt_tokens: int | None = None, system: bool = True):
    """The prompt's token ids: the chat template with its generation prompt, the system turn left out unless
    ``system`` (a model trained from scratch learns nothing from a constant preamble), the last
    ``max_prompt_tokens`` kept (None or 0: all)."""
    if not system:
        messages = [m for m in messages if m["role"] != "system"]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return ids[-max_prompt_tokens:] if max_prompt_tokens else ids
