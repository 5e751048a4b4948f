"""Thin adapters of the environment cores for ``trl.GRPOTrainer(environment_factory=...)`` (TRL >= 1.16).

TRL builds one instance per rollout, calls ``reset(**row)`` with the dataset row (its return value is appended to
the prompt), exposes every public method but ``reset``/``get_reward`` as a tool (its docstring is the tool's
schema), feeds a tool's list of ``{"type": "image"}`` / ``{"type": "text"}`` parts back to a VLM as images, masks
the tool responses out of the loss, and calls ``get_reward()`` once the rollout is over. Public methods here are
exactly the tools; helpers are private. The cores do the work (``vcoder.envs.refine``, ``site``, ``browse``); these
classes only translate rows and return values, and run the cores' coroutines on ``vcoder.envs.driver``'s loop.

Example::

    from trl import GRPOTrainer
    from vcoder.envs.trl import refine_environment
    trainer = GRPOTrainer(model=..., args=..., train_dataset=rows,   # rows: {"prompt", "image", "html"}
                          environment_factory=refine_environment(RefineSettings(rewards=("ssim", "text"))))
"""

from __future__ import annotations

import functools
from typing import Any

from vcoder.envs import driver
from vcoder.envs.browse import BrowseCore
from vcoder.envs.refine import RefineCore, RefineSettings
from vcoder.envs.site import SiteCore


def _parts(text: str, image: Any) -> list[dict[str, Any]] | str:
    if image is None:
        return text
    from vcoder.images import to_pil

    return [{"type": "image", "image": to_pil(image)}, {"type": "text", "text": text}]


class RefineEnv:
    """Screenshot-to-HTML refinement for TRL: the row's ``image`` is the reference (TRL shows it in the prompt),
    ``html`` its source when known; the tool ``render`` shows the model its page; the reward is the core's."""

    def __init__(self, settings: RefineSettings | None = None) -> None:
        self._core = RefineCore(settings)

    def reset(self, **row: Any) -> str:
        self._core.reset(image=row.get("image"), html=row.get("html"))
        turns = self._core.settings.max_turns
        return f"\nCall render(html) to see your page rendered (up to {turns} times); your last attempt is scored."

    def render(self, html: str) -> list[dict[str, Any]] | str:
        """Render an HTML document in the browser and show its screenshot (and its scores against the reference).

        Args:
            html: The complete HTML document to render.

        Returns:
            The screenshot of the rendered page and a short report.
        """
        step = driver.run(self._core.render(html))
        return _parts(step.text(), step.image)

    def get_reward(self) -> float:
        return driver.run(self._core.reward())


class SiteEnv:
    """Site building for TRL: the row holds the task (``task``: a SiteTask dict or JSON, or ``instruction`` and
    ``test_cases``); tools stage files and build (render, run the task's cases, grade); the reward is the episode's
    final reward. ``show_images`` puts the page's screenshot in ``build``'s response (VLM policies)."""

    def __init__(self, options: Any = None, *, show_images: bool = True, grader: Any = None) -> None:
        self._core = SiteCore(options, grader)
        self._show_images = show_images

    def reset(self, **row: Any) -> str:
        task = row.get("task") or {k: row[k] for k in ("instruction", "test_cases", "reference", "id") if k in row}
        driver.run(self._core.reset(task))
        return "\nUse write_file(path, content) for each file, then build() to render and test the site."

    def write_file(self, path: str, content: str) -> str:
        """Write one file of the site (sent with the next build).

        Args:
            path: The file's path inside the site, e.g. index.html.
            content: The file's complete content.

        Returns:
            A confirmation.
        """
        return self._core.write_file(path, content)

    def build(self, finish: bool = False) -> list[dict[str, Any]] | str:
        """Build the site from the files written so far: render it, run the task's test cases and grade it.

        Args:
            finish: Whether this is the final version of the site.

        Returns:
            The grades, the failing cases and the page's screenshot.
        """
        step = driver.run(self._core.build(finish=finish))
        return _parts(step.text, step.image if self._show_images else None)

    def get_reward(self) -> float | None:
        return driver.run(self._core.reward())


class BrowseEnv:
    """Web browsing for TRL: the row's ``task`` (a WebArena-format task dict or JSON) opens its site fresh; the
    first observation is appended to the prompt; the tool ``act`` takes one WebRL action; the reward is the task's
    evaluation."""

    def __init__(self, *, step_budget: int = 10, **episode_kwargs: Any) -> None:
        self._core = BrowseCore(step_budget=step_budget, **episode_kwargs)

    def reset(self, **row: Any) -> str:
        return "\n" + driver.run(self._core.reset(row["task"]))

    def act(self, action: str) -> str:
        """Take one action on the web page, written in the action space, e.g. do(action="Click", element="3").

        Args:
            action: One action line: do(action=..., element=..., argument=...), go_backward() or exit(message=...).

        Returns:
            The page after the action, or the end of the episode.
        """
        return driver.run(self._core.act(action)).text

    def get_reward(self) -> float:
        return driver.run(self._core.reward())


def refine_environment(settings: RefineSettings | None = None):
    """An ``environment_factory`` of :class:`RefineEnv` with ``settings``."""
    return functools.partial(RefineEnv, settings)


def site_environment(options: Any = None, **kwargs: Any):
    """An ``environment_factory`` of :class:`SiteEnv` (``options``: ``EpisodeOptions``; kwargs: ``show_images``,
    ``grader``)."""
    return functools.partial(SiteEnv, options, **kwargs)


def browse_environment(**kwargs: Any):
    """An ``environment_factory`` of :class:`BrowseEnv` (kwargs: ``step_budget``, ``arun_episode``'s options)."""
    return functools.partial(BrowseEnv, **kwargs)
