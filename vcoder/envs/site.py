"""Site building as an environment: write files, build (render, run the task's cases, grade), look, finish.

A thin push-style face on :func:`vcoder.sites.episode.run_site_episode` through :class:`vcoder.envs.bridge.Bridge`:
the files written since the last build become one turn in vcoder's turn format (``<file path=...>``), which the
episode parses, applies to its workspace, renders and grades with :class:`vcoder.sites.grading.SiteGrader` exactly as
Step-GRPO's rollouts do; its feedback (grades, failing cases, the screenshot) is what ``build`` returns. The reward is
the episode's own final reward (``EpisodeResult.final_reward``: WebGen-Agent's 0-10 scale with the default weights).

Example (inside a coroutine)::

    core = SiteCore(EpisodeOptions(max_turns=3))
    await core.reset({"instruction": "A counter page", "test_cases": cases})
    core.write_file("index.html", "<button id=b onclick=...>0</button>")
    step = await core.build()          # SiteStep(text="... appearance ... functionality ...", image=b"...png")
    await core.reward()
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vcoder.envs.bridge import Bridge
from vcoder.envs.messages import message_images, message_text


@dataclass(frozen=True)
class SiteStep:
    """What a build shows: the feedback text, the page's screenshot (PNG bytes, None when none), the end."""

    text: str
    image: bytes | None = None
    done: bool = False


def turn_text(writes: Mapping[str, str | None], *, finish: bool = False) -> str:
    """Pending writes (``None``: delete) as one reply in vcoder's turn format.

    Example:
        >>> turn_text({"index.html": "<p>hi</p>"}, finish=True)
        '<file path="index.html">\\n<p>hi</p>\\n</file>\\n<finish/>'
    """
    parts = [
        f'<delete path="{path}"/>' if content is None else f'<file path="{path}">\n{content}\n</file>'
        for path, content in writes.items()
    ]
    return "\n".join(parts + (["<finish/>"] if finish else []))


class SiteCore:
    """One site-building episode at a time (see the module docstring); async.

    Args:
        options: the episode's settings (``EpisodeOptions``); feedback screenshots are always taken, the adapters
            decide whether the model sees them.
        grader: the ``SiteGrader`` (default: the shared pool, scripted cases).
    """

    def __init__(self, options: Any = None, grader: Any = None) -> None:
        from vcoder.sites.records import EpisodeOptions

        self.options = dataclasses.replace(options or EpisodeOptions(), feedback_images=True)
        self.grader = grader
        self.bridge: Bridge | None = None
        self.pending: dict[str, str | None] = {}
        self.last: SiteStep | None = None

    async def reset(self, task: Any) -> str:
        """Start an episode on ``task`` (a ``SiteTask``, its dict form, or that dict as JSON); returns the request
        as the model first reads it (the episode's first user turn)."""
        from vcoder.envs.driver import loop
        from vcoder.sites.episode import run_site_episode

        await self.close()
        if isinstance(task, str):
            task = json.loads(task)
        self.pending, self.last = {}, None
        self.bridge = bridge = Bridge(name="site-environment")
        turn = await bridge.start(
            lambda: run_site_episode(task, bridge, grader=self.grader, options=self.options), loop=loop()
        )
        if turn.done:
            raise RuntimeError(f"the site episode ended before its first turn: {turn.error}")
        return message_text(turn.messages[-1])

    def write_file(self, path: str, content: str) -> str:
        """Stage a file for the next build (nothing is checked until then: the episode's parser does it)."""
        self.pending[path] = content
        return f"staged {path} ({len(content)} characters); call build to render and test the site"

    def delete_file(self, path: str) -> str:
        """Stage a deletion for the next build."""
        self.pending[path] = None
        return f"staged the deletion of {path}"

    async def build(self, *, finish: bool = False) -> SiteStep:
        """Submit the staged files as one turn: the episode applies, renders, runs the cases and grades them."""
        if self.bridge is None or self.bridge.done:
            return SiteStep("the episode is over: no more builds", None, True)
        if not self.pending and not finish:
            return SiteStep("nothing staged: write_file first, then build", self.last.image if self.last else None)
        writes, self.pending = self.pending, {}
        turn = await self.bridge.step(turn_text(writes, finish=finish))
        if turn.done:
            result = turn.result
            last = result.steps[-1] if result is not None and result.steps else None
            text = last.feedback if last is not None else (turn.error or "the episode ended")
            self.last = SiteStep(text, self.last.image if self.last else None, True)
        else:
            message = turn.messages[-1]
            images = message_images(message)
            self.last = SiteStep(message_text(message), images[0] if images else None, False)
        return self.last

    def look(self) -> SiteStep | None:
        """The last build's feedback and screenshot (None before the first build)."""
        return self.last

    async def reward(self) -> float | None:
        """End the episode (if still running) and return its final reward (None: nothing could be judged)."""
        if self.bridge is None:
            return None
        turn = await self.bridge.abandon()
        result = turn.result if turn is not None else None
        return None if result is None else result.final_reward

    async def close(self) -> None:
        """End the running episode, if any."""
        if self.bridge is not None:
            await self.bridge.abandon()
            self.bridge = None
