"""vcoder's three settings as OpenEnv environments: ``openenv.core``'s own server, one session per client.

OpenEnv's ``create_app`` serves an ``Environment`` over HTTP and WebSocket (``/reset``, ``/step``, ``/state``,
``/schema``, ``/ws``); each WebSocket client gets its own instance from the factory, so its own episode, and the
cores give each episode a fresh origin in the hermetic pool (a browsing site's state starts empty; a rendered page
sees nothing of another's). One action type serves the three settings: a tool name and its arguments, the same
tools the TRL adapters expose (``render``; ``write_file``, ``delete_file``, ``build``; ``act``).

Limits: sessions (``max_sessions``), seconds per step (``step_timeout_s``: a step past it answers an error and the
episode ends), the cores' own budgets (renders, turns, actions); the renderer's containment (render deadline,
dialogs dismissed, popups closed, no network) holds for every page a client sends.

Example::

    vcoder serve-env refine --port 8011        # then, from any OpenEnv client:
    from openenv.core import GenericEnvClient
    with GenericEnvClient(base_url="http://127.0.0.1:8011").sync() as env:
        env.reset(html="<h1>Hi</h1>")
        env.step({"tool": "render", "arguments": {"html": "<h1>Hi</h1>"}})
"""

from __future__ import annotations

import asyncio
import base64
import io
import uuid
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from vcoder.envs import driver
from vcoder.envs.browse import BrowseCore
from vcoder.envs.refine import RefineCore, RefineSettings
from vcoder.envs.site import SiteCore

TOOLS = {"refine": ("render",), "site": ("write_file", "delete_file", "build"), "browse": ("act",)}


class VcoderAction(Action):
    """One tool call: ``tool`` (see ``TOOLS``) and its keyword ``arguments``."""

    tool: str = Field(description="render | write_file | delete_file | build | act")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's keyword arguments.")


class VcoderObservation(Observation):
    """What the environment shows: text, an optional PNG screenshot (base64), the scores of a render."""

    text: str = Field(default="", description="The observation or feedback text.")
    image_png_b64: str | None = Field(default=None, description="A screenshot, PNG as base64 (None: none).")
    scores: dict[str, float | None] = Field(default_factory=dict, description="Reward scores of a render.")


def _b64(image: Any) -> str | None:
    if image is None:
        return None
    if isinstance(image, bytes):
        return base64.b64encode(image).decode("ascii")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _image(b64: str | None) -> Any:
    if not b64:
        return None
    from vcoder.images import to_pil

    return to_pil(base64.b64decode(b64))


def _client_error(exc: ValueError):
    """A client's mistake as HTTP 400 with its message (OpenEnv's WebSocket path reports the same text)."""
    from fastapi import HTTPException

    return HTTPException(status_code=400, detail=str(exc))


class VcoderEnvironment(Environment):
    """One session of a setting (``refine``, ``site`` or ``browse``); built by :func:`make_app`'s factory."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, setting: str, *, step_timeout_s: float = 120.0, core: Any = None) -> None:
        super().__init__()
        if setting not in TOOLS:
            raise ValueError(f"setting={setting!r}: use one of {tuple(TOOLS)}")
        self.setting, self.step_timeout_s = setting, step_timeout_s
        self.core = core or {"refine": RefineCore, "site": SiteCore, "browse": BrowseCore}[setting]()
        self._state = State(episode_id=None, step_count=0)
        self._reward: float | None = None
        self._done = False

    @property
    def state(self) -> State:
        return self._state

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> VcoderObservation:
        return driver.run(self.reset_async(seed=seed, episode_id=episode_id, **kwargs))

    def step(self, action: VcoderAction, timeout_s: float | None = None, **kwargs: Any) -> VcoderObservation:
        return driver.run(self.step_async(action, timeout_s=timeout_s))

    async def reset_async(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> VcoderObservation:
        try:
            return await self._reset(seed, episode_id, **kwargs)
        except ValueError as exc:
            raise _client_error(exc) from None

    async def step_async(
        self, action: VcoderAction, timeout_s: float | None = None, **kwargs: Any
    ) -> VcoderObservation:
        """Run one tool call within the step deadline; the reward comes with the observation that ends the episode."""
        try:
            return await self._step(action, timeout_s)
        except ValueError as exc:
            raise _client_error(exc) from None

    async def _reset(self, seed: int | None, episode_id: str | None, **kwargs: Any) -> VcoderObservation:
        """Start an episode. refine: ``html`` (the reference page, rendered here) or ``image_png_b64``; site:
        ``task`` (a SiteTask dict); browse: ``task`` (a WebArena-format task dict), or ``site`` and ``seed`` to
        draw one of the generated tasks."""
        self._state = State(episode_id=episode_id or uuid.uuid4().hex, step_count=0)
        self._reward, self._done = None, False
        if self.setting == "refine":
            html, image = kwargs.get("html"), _image(kwargs.get("image_png_b64"))
            if image is None and not html:
                raise ValueError("refine reset needs html (the reference page) or image_png_b64 (its screenshot)")
            if image is None:
                page = await self._reference(html)
                image = page
            self.core.reset(image=image, html=html)
            return VcoderObservation(text="the reference screenshot; call render(html)", image_png_b64=_b64(image))
        if self.setting == "site":
            if "task" not in kwargs:
                raise ValueError("site reset needs task={'instruction': ..., 'test_cases': [...]}")
            return VcoderObservation(text=await self.core.reset(kwargs["task"]))
        task = kwargs.get("task")
        if task is None:
            from vcoder.browse.generate import generate_tasks

            task = generate_tasks(kwargs.get("site", "shop"), seed=seed or 0, n=1)[0]
        return VcoderObservation(text=await self.core.reset(task))

    async def _reference(self, html: str) -> Any:
        from vcoder.images import to_pil
        from vcoder.rewards.context import get_context

        page = await get_context().render(html, self.core.reward_settings, reference=True)
        if not page.ok:
            raise ValueError(f"the reference page did not render: {page.rendered.error}")
        return to_pil(page.image)

    async def _step(self, action: VcoderAction, timeout_s: float | None) -> VcoderObservation:
        if self._state.episode_id is None:
            raise ValueError(
                "no episode: call reset first (an episode lives in one session: use OpenEnv's EnvClient over /ws; "
                "the stateless POST /step starts from no episode)"
            )
        if action.tool not in TOOLS[self.setting]:
            raise ValueError(f"unknown tool {action.tool!r} for {self.setting}: use one of {TOOLS[self.setting]}")
        self._state.step_count += 1
        try:
            obs = await asyncio.wait_for(self._call(action), timeout_s or self.step_timeout_s)
        except TypeError as exc:  # wrong or missing arguments: the client's error, the session goes on
            raise ValueError(f"bad arguments for {action.tool}: {exc}") from None
        except asyncio.TimeoutError:
            self._done = True
            return VcoderObservation(text=f"the step took over {timeout_s or self.step_timeout_s} s", done=True)
        return obs

    async def _call(self, action: VcoderAction) -> VcoderObservation:
        args = action.arguments
        if self.setting == "refine":
            step = await self.core.render(**args)
            done = len(self.core.steps) >= self.core.settings.max_turns
            reward = await self.core.reward() if done else None
            return VcoderObservation(
                text=step.text(), image_png_b64=_b64(step.image), scores=step.scores, done=done, reward=reward
            )
        if self.setting == "site":
            if action.tool != "build":
                return VcoderObservation(text=getattr(self.core, action.tool)(**args))
            step = await self.core.build(**args)
            reward = await self.core.reward() if step.done else None
            return VcoderObservation(text=step.text, image_png_b64=_b64(step.image), done=step.done, reward=reward)
        step = await self.core.act(**args)
        reward = await self.core.reward() if step.done else None
        return VcoderObservation(text=step.text, done=step.done, reward=reward)

    def close(self) -> None:
        close = getattr(self.core, "close", None)
        if close is not None:
            try:
                driver.run(close(), timeout=60)
            except Exception:  # closing a session must never take the server down
                pass


def make_app(setting: str, *, max_sessions: int = 4, step_timeout_s: float = 120.0, settings: Any = None):
    """The OpenEnv FastAPI app of ``setting`` (``create_app`` with vcoder's action and observation types).

    Args:
        setting: ``refine``, ``site`` or ``browse``.
        max_sessions: concurrent WebSocket sessions (episodes) served.
        step_timeout_s: the deadline of one step.
        settings: the core's settings (``RefineSettings`` for refine, ``EpisodeOptions`` for site); None: defaults.
    """
    from openenv.core.env_server.http_server import create_app

    if setting not in TOOLS:
        raise ValueError(f"setting={setting!r}: use one of {tuple(TOOLS)}")

    def factory() -> VcoderEnvironment:
        core = None
        if setting == "refine":
            core = RefineCore(settings or RefineSettings())
        elif setting == "site" and settings is not None:
            core = SiteCore(settings)
        return VcoderEnvironment(setting, step_timeout_s=step_timeout_s, core=core)

    factory.SUPPORTS_CONCURRENT_SESSIONS = True  # read on the factory before any instance exists
    return create_app(
        factory, VcoderAction, VcoderObservation, env_name=f"vcoder-{setting}", max_concurrent_envs=max_sessions
    )
