"""Screenshot-to-HTML refinement: the model writes HTML, sees its render next to the reference, and writes again.

The setting of VisionCoder's multi-turn environment: ``reset`` gives the reference screenshot; each ``render(html)``
renders the attempt in the hermetic pool (one render, shared with the rewards through
:func:`vcoder.rewards.context.get_context`) and returns its screenshot and, optionally, the scores the rewards give
it; the reward is vcoder's reward mix (the recipe's ``reward_funcs`` and ``reward_weights``) for the last attempt, or
its improvement over the first attempt. Nothing here renders or scores on its own: rendering is ``vcoder.rendering``,
scoring is ``vcoder.rewards``.

Example (inside a coroutine)::

    core = RefineCore(RefineSettings(rewards=("ssim", "text")))
    core.reset(image=reference_png, html=reference_html)
    step = await core.render("<html><body><h1>Hello</h1></body></html>")
    step.scores, step.image.size, await core.reward()
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

REWARD_MODES = ("final", "improvement")


@dataclass(frozen=True)
class RefineSettings:
    """The refinement setting, declared once (TRL adapter, OpenEnv server and CLI read it whole).

    Example:
        >>> RefineSettings(rewards=("ssim",), max_turns=3).reward_mode
        'final'
    """

    rewards: tuple[str, ...] = field(default=("visual",), metadata={"help": "vcoder reward names of the mix."})
    reward_weights: tuple[float, ...] | None = field(default=None, metadata={"help": "Weights (None: all 1)."})
    reward_mode: str = field(
        default="final",
        metadata={"help": f"One of {REWARD_MODES}: the last attempt's mix, or its gain over the first."},
    )
    max_turns: int = field(default=5, metadata={"help": "Renders allowed per episode (VisionCoder's env: 5)."})
    show_scores: bool = field(default=True, metadata={"help": "Return the rewards' scores with each render."})
    image_side: int = field(default=448, metadata={"help": "Longer side of the screenshot shown to the model, px."})
    reward_params: tuple[tuple[str, Any], ...] = field(
        default=(("render_width", 640), ("render_height", 480)),
        metadata={"help": "RewardSettings fields as (name, value) pairs (render size, CLIP model, ...)."},
    )

    def __post_init__(self) -> None:
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode={self.reward_mode!r}: use one of {REWARD_MODES}")
        if not self.rewards:
            raise ValueError("rewards is empty: name at least one vcoder reward, e.g. ('visual',)")
        if self.reward_weights is not None and len(self.reward_weights) != len(self.rewards):
            raise ValueError(
                f"reward_weights has {len(self.reward_weights)} values for {len(self.rewards)} rewards: give one each"
            )
        if self.max_turns < 1:
            raise ValueError(f"max_turns={self.max_turns} must be >= 1")


@dataclass(frozen=True)
class RefineStep:
    """One render of an attempt.

    Attributes:
        turn: 1 for the first attempt.
        ok: whether the attempt rendered.
        image: the screenshot (PIL, longer side at most ``image_side``), None when it did not render.
        scores: ``{reward name: score in [0, 1] or None}`` (empty when ``show_scores`` is off).
        error: why it did not render, or why the render was refused (turn budget spent).
    """

    turn: int
    ok: bool
    image: Any = None
    scores: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None

    def text(self) -> str:
        """The step as the model reads it: the scores (or the error) in one line each."""
        if self.error:
            return f"attempt {self.turn}: {self.error}"
        lines = [f"attempt {self.turn} rendered."]
        lines += [f"{name}: {'n/a' if v is None else f'{v:.3f}'}" for name, v in self.scores.items()]
        return "\n".join(lines)


class RefineCore:
    """One refinement episode at a time (see the module docstring); async, on any event loop."""

    def __init__(self, settings: RefineSettings | None = None) -> None:
        from vcoder.rewards import RewardSettings, build_rewards

        self.settings = settings or RefineSettings()
        params = dict(self.settings.reward_params)
        self.reward_settings = RewardSettings(**params)
        self.funcs = build_rewards(list(self.settings.rewards), **params)
        self.weights = list(self.settings.reward_weights or [1.0] * len(self.funcs))
        self.reset(image=None)

    def reset(self, *, image: Any = None, html: str | None = None) -> Any:
        """Start an episode on a reference (its screenshot ``image``, and its ``html`` when known: layout rewards
        need it). Returns the reference screenshot as given."""
        self.image, self.html = image, html
        self.steps: list[RefineStep] = []
        self.mixes: list[float | None] = []
        return image

    async def _scores(self, attempt: str) -> dict[str, float | None]:
        names = list(self.settings.rewards)
        values = await asyncio.gather(*(f([attempt], image=[self.image], html=[self.html]) for f in self.funcs))
        return {name: v[0] for name, v in zip(names, values, strict=True)}

    def _mix(self, scores: dict[str, float | None]) -> float | None:
        judged = [(w, s) for w, s in zip(self.weights, scores.values(), strict=True) if s is not None]
        if not judged or sum(w for w, _ in judged) <= 0:
            return None
        return sum(w * s for w, s in judged) / sum(w for w, _ in judged)

    async def render(self, html: str) -> RefineStep:
        """Render one attempt (raw model output is fine: the HTML is extracted as the rewards extract it)."""
        from vcoder.images import to_pil
        from vcoder.rewards.common import render_completion

        turn = len(self.steps) + 1
        if turn > self.settings.max_turns:
            return RefineStep(turn, False, error=f"no renders left: the episode allows {self.settings.max_turns}")
        page = await render_completion(html, self.reward_settings, name="refine")
        scores = await self._scores(html)
        self.mixes.append(self._mix(scores))
        if page is None or isinstance(page, float):
            error = "the page could not be rendered" if page == 0.0 else "the renderer failed (not your page)"
            step = RefineStep(turn, False, None, scores if self.settings.show_scores else {}, error)
        else:
            image = to_pil(page.image)
            image.thumbnail((self.settings.image_side, self.settings.image_side))
            step = RefineStep(turn, True, image, scores if self.settings.show_scores else {})
        self.steps.append(step)
        return step

    async def reward(self) -> float:
        """The mix of the last attempt (0.0 without one), or in ``improvement`` mode its gain over the first."""
        if not self.mixes:
            return 0.0
        last = self.mixes[-1] or 0.0
        if self.settings.reward_mode == "improvement":
            return last - (self.mixes[0] or 0.0)
        return last
