"""The web agent's update (``algorithm: filtered_bc | webrl``) as an object chosen once per phase.

:func:`update_of` turns the recipe's string into an :class:`Update` (:data:`UPDATES`), and
:func:`~vcoder.pipelines.web_agent.run.run_phase` calls its :meth:`~Update.run`; nothing compares the strings. A new
update is a subclass and an entry in :data:`UPDATES` (and its name in ``web_agent.config.ALGORITHMS``).

Example:
    >>> UPDATES["webrl"].has_reference, UPDATES["filtered_bc"].has_reference
    (True, False)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class Update:
    """``filtered_bc``: the NLL of the successful episodes' actions and of the kept replay; no critic, no reference.

    Attributes:
        name: the recipe's string.
        has_reference: the update is constrained to the phase's start policy (the report names it).
    """

    name = "filtered_bc"
    has_reference = False

    def run(
        self, config, folder: Path, phase: int, model, tokenizer, rollouts, buffer, *, pool, heldout, browser,
        previous_critic: Path | None, candidates,
    ) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any], dict[str, Any] | None]:  # fmt: skip
        """Train ``model`` in place on the phase's episodes.

        Returns:
            ``(fresh buffer items, replay counts, train stats, webrl)``; ``webrl`` is None here, and WebRL's
            :func:`~vcoder.pipelines.web_agent.webrl_phase.webrl_update` result (critic, candidates, next pool).
        """
        return (*filtered_bc(config, phase, model, tokenizer, rollouts, buffer), None)

    def __repr__(self) -> str:
        return f"<update {self.name}>"


class WebRLUpdate(Update):
    """WebRL's actor-critic objective (:mod:`vcoder.pipelines.web_agent.webrl_phase`), KL-bound to the start."""

    name = "webrl"
    has_reference = True

    def run(
        self, config, folder: Path, phase: int, model, tokenizer, rollouts, buffer, *, pool, heldout, browser,
        previous_critic: Path | None, candidates,
    ):  # fmt: skip
        from vcoder.pipelines.web_agent.webrl_phase import webrl_update

        webrl = webrl_update(
            config, folder, phase, model, tokenizer, rollouts, buffer, pool=pool, heldout=heldout, browser=browser,
            previous_critic=previous_critic, candidates=candidates,
        )  # fmt: skip
        return webrl["fresh"], webrl["replay"], webrl["train"], webrl


#: the recipe's ``algorithm`` strings and their objects
UPDATES: dict[str, Update] = {u.name: u for u in (Update(), WebRLUpdate())}


def update_of(config) -> Update:
    """The update object of ``config.algorithm`` (checked when the config was made)."""
    return UPDATES[config.algorithm]


def filtered_bc(config, phase: int, model, tokenizer, rollouts, buffer):
    """``algorithm: filtered_bc``: the NLL of the successful episodes' actions and of the replayed steps the start
    policy's confidence keeps; returns ``(fresh buffer items, replay counts, train stats)``."""
    import math

    from vcoder.browse.records import replay_items
    from vcoder.pipelines.curriculum.replay import replay_filter
    from vcoder.pipelines.web_agent.lm import completion_logprobs, train_nll

    fresh = [item for e in rollouts for item in replay_items(e, phase=phase)]
    samples = [(item["task"], item["completion"]) for item in fresh]
    replay = {"kept": 0, "dropped_easy": 0, "dropped_unlikely": 0}
    if buffer:
        confidence = completion_logprobs(
            model,
            tokenizer,
            [(b["task"], b["completion"]) for b in buffer],
            max_prompt_tokens=config.max_prompt_tokens,
            system=config.system_prompt,
        )
        kept, replay = replay_filter([math.exp(c) for c in confidence], low=config.replay_low, high=config.replay_high)
        samples += [(buffer[i]["task"], buffer[i]["completion"]) for i in kept]
    train = train_nll(
        model,
        tokenizer,
        samples,
        epochs=config.epochs,
        learning_rate=config.learning_rate,
        batch_size=config.batch_size,
        max_prompt_tokens=config.max_prompt_tokens,
        seed=config.seed * 100 + phase,
        system=config.system_prompt,
    )
    return fresh, replay, train
