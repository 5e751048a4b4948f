"""Web browsing as an environment: WebRL's text observation and actions on vcoder's stateful hermetic sites.

A push-style face on :func:`vcoder.browse.episode.arun_episode` through :class:`vcoder.envs.bridge.Bridge`: the
site opens at a fresh origin (its state starts empty), each observation is the episode's own step prompt
(WebRL's simplified HTML of the page, the earlier actions), each action one line of WebRL's action space, and the
reward the task's WebArena evaluators on the final state (``Evaluation.score``, 1.0 a success). A malformed action
costs its step and the error shows in the next observation, as in the episode.

Example (inside a coroutine)::

    core = BrowseCore(step_budget=6)
    text = await core.reset(generate_tasks("shop", seed=0, n=1)[0])
    text = (await core.act('do(action="Click", element="3")')).text
    await core.act('exit(message="$12.50")'); await core.reward()
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from vcoder.envs.bridge import Bridge
from vcoder.envs.messages import message_text


@dataclass(frozen=True)
class BrowseStep:
    """What an action shows: the next observation (or the outcome once the episode is over) and whether it is."""

    text: str
    done: bool = False


def as_task(task: Any):
    """A ``WebTask`` from a task, its dict form, or that dict as JSON."""
    from vcoder.browse.tasks import WebTask

    if isinstance(task, WebTask):
        return task
    return WebTask.from_dict(json.loads(task) if isinstance(task, str) else task)


class BrowseCore:
    """One browsing episode at a time (see the module docstring); async.

    Args:
        pool: the ``BrowserPool`` (default: the process's shared pool).
        step_budget: actions allowed per episode (``exit`` included).
        episode_kwargs: more keyword arguments of ``arun_episode`` (``deadline_ms``, ``action_timeout_ms``, ...).
    """

    def __init__(self, pool: Any = None, *, step_budget: int = 10, **episode_kwargs: Any) -> None:
        self.pool = pool
        self.step_budget = step_budget
        self.episode_kwargs = episode_kwargs
        self.bridge: Bridge | None = None
        self.episode = None

    def _pool(self):
        if self.pool is None:
            from vcoder.rendering import get_default_pool

            self.pool = get_default_pool()
        return self.pool

    async def reset(self, task: Any) -> str:
        """Open the task's site fresh and return the first observation (the step prompt's user turn)."""
        from vcoder.browse.episode import arun_episode
        from vcoder.envs.driver import loop

        await self.close()
        task, pool = as_task(task), self._pool()
        self.bridge = bridge = Bridge(name="browse-environment")
        self.episode = None
        turn = await bridge.start(
            lambda: arun_episode(task, bridge, pool=pool, step_budget=self.step_budget, **self.episode_kwargs),
            loop=loop(),
        )
        return self._read(turn).text

    def _read(self, turn) -> BrowseStep:
        if not turn.done:
            return BrowseStep(message_text(turn.messages[-1]))
        self.episode = turn.result
        if turn.result is None:
            return BrowseStep(f"the episode failed: {turn.error}", True)
        ev = turn.result.evaluation
        return BrowseStep(f"the episode is over (score {ev.score:.2f}, answer {turn.result.answer!r})", True)

    async def act(self, action: str) -> BrowseStep:
        """Take one action (one line of WebRL's action space); returns the next observation or the end."""
        if self.bridge is None or self.bridge.done:
            return BrowseStep("the episode is over: no more actions", True)
        return self._read(await self.bridge.step(action))

    async def reward(self) -> float:
        """The task's evaluation of the final state; an episode still running is ended first with ``exit()``
        (no answer: string-match tasks then score 0)."""
        if self.bridge is None:
            return 0.0
        if not self.bridge.done:
            await self.act('exit(message="")')
        while self.bridge is not None and not self.bridge.done:  # a malformed exit cannot happen, but never loop
            await self.act('exit(message="")')
        return 0.0 if self.episode is None else float(self.episode.evaluation.score)

    async def close(self) -> None:
        """End the running episode, if any."""
        if self.bridge is not None:
            await self.bridge.abandon()
            self.bridge = None
