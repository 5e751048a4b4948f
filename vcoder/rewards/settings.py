"""Reward parameters, declared once: one frozen, flat, prefixed dataclass shared by every reward.

Everything else is derived from it: ``build_rewards(**params)`` and every ``make_*_reward`` validate through
``RewardSettings.from_params`` (did-you-mean on a typo), the training recipes' fields
(``vcoder.pipelines.grpo.args.VCoderScriptArguments`` gets them through ``reward_fields``) and ``vcoder score``'s flags
(``add_reward_flags``). A parameter added here is settable from YAML, the command line and Python at once.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from vcoder.chat.endpoint import Endpoint
from vcoder.gui.agents import GUI_POLICIES, check_gui_policy, gui_policy_field
from vcoder.gui.limits import CASE_DEADLINE_MS, CaseLimits
from vcoder.metrics.extract import FORMAT_STYLES
from vcoder.names import accepts_old_names, carries, from_flat, generated_fields, renamed_keywords
from vcoder.rendering import defaults
from vcoder.rendering.spec import RenderSpec
from vcoder.suggest import unknown_names

logger = logging.getLogger(__name__)

__all__ = ["GUI_POLICIES", "VISUAL_COMPONENTS", "RewardSettings", "add_reward_flags", "parse_weights", "reward_fields"]

VISUAL_COMPONENTS = ("block", "text", "position", "color", "clip", "ssim", "ink")
DEFAULT_VISUAL_WEIGHTS = {
    "block": 1.0,
    "text": 1.0,
    "position": 1.0,
    "color": 1.0,
    "clip": 0.0,
    "ssim": 0.5,
    "ink": 0.5,
}
_POSITIVE_INTS = (
    "render_width",
    "render_height",
    "render_timeout_ms",
    "render_max_pages",
    "ssim_width",
    "gui_step_limit",
    "gui_deadline_ms",
    "gui_timeout_ms",
    "gui_action_timeout_ms",
    "gui_max_tokens",
    "judge_timeout_ms",
    "judge_max_concurrency",
    "judge_max_tokens",
    "orm_batch_size",
)


#: one GUI-agent request's default timeout, the same as a case's default deadline (the step reward's too)
_GUI_TIMEOUT_MS = CASE_DEADLINE_MS


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@accepts_old_names()  # load_timeout_ms, judge_url, case_deadline_ms, ... (vcoder.names.RENAMED)
@dataclass(frozen=True)
@carries(
    "judge",
    Endpoint,
    only=("base_url", "model", "timeout_ms", "max_retries", "max_concurrency", "max_tokens", "temperature"),
    timeout_ms=60_000,
    max_retries=1,
    max_tokens=256,  # a reason and a score line
    temperature=0.0,
    about="screenshot_judge, the judge VLM",  # base_url / model: $VCODER_JUDGE_*, else the reward gives None
)
@carries(
    "gui",
    Endpoint,
    only=("base_url", "model", "timeout_ms", "max_tokens", "temperature"),
    timeout_ms=_GUI_TIMEOUT_MS,
    max_tokens=256,
    temperature=0.0,
    about="gui_agent, the VLM agent",  # no base_url: natural-language cases are not graded (scripted ones need none)
)
@carries("gui", CaseLimits, about="gui_agent")  # gui_step_limit, gui_deadline_ms, gui_action_timeout_ms
@carries("render", RenderSpec, about="Every reward render (pages render full-page)")
class RewardSettings:
    """Parameters of every vcoder reward. Flat and prefixed by the part they configure, so YAML recipes stay flat.

    The render spec, the GUI case limits and the two endpoints follow the class's own fields, generated from their
    value objects (:func:`vcoder.names.carries`): ``render_*``, ``gui_step_limit`` / ``gui_deadline_ms`` /
    ``gui_action_timeout_ms``, ``gui_*`` (the GUI agent's ``base_url``, ``model``, ``timeout_ms``, ``max_tokens``,
    ``temperature``) and ``judge_*``; the code that runs them gets them whole (:meth:`render_spec`,
    :meth:`case_limits`, :meth:`judge_endpoint`, :meth:`gui_endpoint`). Without ``gui_base_url`` natural-language
    test cases are not graded (scripted ones never need the agent); without ``judge_base_url`` /
    ``judge_model`` the judge takes ``$VCODER_JUDGE_BASE_URL`` / ``$VCODER_JUDGE_MODEL``, and with neither
    ``screenshot_judge`` gives None.

    Built once per reward (at ``build_rewards`` time) and validated there: bad configuration raises early with what
    to change, model output never raises. Each reward reads the fields it needs and ignores the others, so one set of
    parameters configures a whole reward list.
    """

    render_max_pages: int = field(
        default=defaults.MAX_PAGES, metadata=_help("Concurrent browser pages of this process's pool.")
    )
    clip_model: str = field(default="ViT-B-32", metadata=_help("open_clip model name of the clip reward."))
    clip_pretrained: str | None = field(
        default="openai", metadata=_help("open_clip pretrained tag (resolved offline) or a local checkpoint path.")
    )
    clip_tiny: bool = field(
        default=False, metadata=_help("Use a tiny random CLIP built offline (tests and CPU smoke runs only).")
    )
    clip_device: str | None = field(default=None, metadata=_help("Device of CLIP (default: CUDA if available)."))
    format_style: str = field(default="any", metadata=_help(f"Expected output format, one of {FORMAT_STYLES}."))
    ssim_width: int = field(default=320, metadata=_help("Width the screenshots are downscaled to for SSIM."))
    evidence_gate: bool = field(
        default=True,
        metadata=_help(
            "Scale ssim, clip and dom by how much of the reference's visible content the page shows backed by its "
            "own content (blank pages, hidden text, canvas drawings and coloured bars score near 0)."
        ),
    )
    visual_weights: dict[str, float] | str | None = field(
        default=None,
        metadata=_help(
            f"Weights of visual_reward's components, keys among {VISUAL_COMPONENTS}: a mapping in YAML, a JSON object "
            f"or 'block=1,ssim=0.5' on the command line; None means {DEFAULT_VISUAL_WEIGHTS}. Components that cannot "
            "be judged for a sample (block/text/position/color without reference html) drop out of its mean."
        ),
    )
    gui_policy: str = gui_policy_field("gui_agent")
    judge_max_image_side: int = field(
        default=1568, metadata=_help("screenshot_judge: longer image side sent, px (screenshots are downscaled).")
    )
    orm_model: str | None = field(
        default=None,
        metadata=_help("orm: the outcome reward model's folder (`vcoder orm train` output); the orm reward needs it."),
    )
    orm_binary: bool = field(
        default=False,
        metadata=_help("orm: 1.0 / 0.0 (P(YES) >= orm_threshold, WebRL's binary reward) instead of P(YES)."),
    )
    orm_threshold: float = field(default=0.5, metadata=_help("orm: the binary cut on P(YES), in (0, 1)."))
    orm_batch_size: int = field(default=8, metadata=_help("orm: sites per ORM forward pass."))
    orm_device: str | None = field(default=None, metadata=_help("orm: torch device (default: CUDA if available)."))
    verdict_log: str | None = field(
        default=None,
        metadata=_help(
            "gui_agent, screenshot_judge: append every verdict to this JSONL verdict log (what `vcoder orm train "
            "--verdicts` learns from; screenshots go to screens/ beside it). None: no log."
        ),
    )

    def __post_init__(self) -> None:
        for name in _POSITIVE_INTS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name}={value!r} must be a positive integer")
        if isinstance(self.judge_max_retries, bool) or not isinstance(self.judge_max_retries, int):
            raise ValueError(f"judge_max_retries={self.judge_max_retries!r} must be an integer >= 0")
        if self.judge_max_retries < 0 or self.judge_max_image_side < 64:
            raise ValueError(
                f"judge_max_retries={self.judge_max_retries} must be >= 0 and judge_max_image_side="
                f"{self.judge_max_image_side} >= 64"
            )
        if self.gui_action_timeout_ms >= self.gui_deadline_ms:
            raise ValueError(
                f"gui_action_timeout_ms={self.gui_action_timeout_ms} must be below gui_deadline_ms="
                f"{self.gui_deadline_ms}, the deadline of a whole test case"
            )
        if self.gui_timeout_ms > max(self.gui_deadline_ms, _GUI_TIMEOUT_MS):
            # gui_timeout_ms was the case deadline before issue 19: a recipe raising it meant a longer deadline
            logger.warning(
                "gui_timeout_ms=%d (one GUI-agent request) exceeds gui_deadline_ms=%d (a whole test case), which cuts "
                "it short; to give a case more time set gui_deadline_ms (gui_timeout_ms is the request timeout)",
                self.gui_timeout_ms,
                self.gui_deadline_ms,
            )
        if bool(self.gui_base_url) != bool(self.gui_model):
            raise ValueError(
                f"gui_base_url={self.gui_base_url!r} and gui_model={self.gui_model!r}: give both (the VLM endpoint "
                "that runs natural-language test cases) or neither"
            )
        check_gui_policy(self.gui_policy)
        threshold = self.orm_threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold < 1:
            raise ValueError(f"orm_threshold={threshold!r} must be a number in (0, 1) (WebRL uses 0.5)")
        if self.verdict_log is not None and (not isinstance(self.verdict_log, str) or not self.verdict_log.strip()):
            raise ValueError(f"verdict_log={self.verdict_log!r} must be a file path (or None for no log)")
        if self.format_style not in FORMAT_STYLES:
            raise ValueError(f"format_style={self.format_style!r} is not one of {FORMAT_STYLES}")
        # frozen: the parsed mapping replaces the given form (YAML mapping, JSON or k=v string, None)
        object.__setattr__(self, "visual_weights", parse_weights(self.visual_weights))

    def __hash__(self) -> int:
        return hash(tuple((f.name, _freeze(getattr(self, f.name))) for f in dataclasses.fields(self)))

    @classmethod
    def from_params(cls, **params: Any) -> RewardSettings:
        """Build from flat keyword parameters, refusing unknown keys with a "did you mean"."""
        known = sorted(f.name for f in dataclasses.fields(cls))
        params = renamed_keywords(cls, params)  # an old name (load_timeout_ms) works, with a DeprecationWarning
        unknown = [k for k in params if k not in known]
        if unknown:
            raise TypeError(
                f"unknown reward parameter(s) {unknown_names(unknown, known, prefixed=True)}; known: {', '.join(known)}"
            )
        return cls(**params)

    def params(self) -> dict[str, Any]:
        """The settings as flat keyword parameters (``from_params(**s.params()) == s``)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def render_kwargs(self) -> dict[str, Any]:
        """The render spec as ``pool.render`` keywords."""
        return dataclasses.asdict(self.render_spec())

    def render_spec(self) -> RenderSpec:
        """The ``render_*`` fields as the one ``vcoder.rendering.spec.RenderSpec``."""
        return from_flat("render", RenderSpec, self)

    def judge_endpoint(self, **overrides: Any) -> Endpoint:
        """The ``judge_*`` fields as the one ``vcoder.chat.Endpoint`` (``$VCODER_JUDGE_*`` not applied here;
        ``overrides`` win)."""
        return from_flat("judge", Endpoint, self, **overrides)

    def gui_endpoint(self) -> Endpoint:
        """The ``gui_*`` endpoint fields as the one ``vcoder.chat.Endpoint``, the fields the recipe does not carry
        (retries, concurrency) at ``vcoder.gui.vlm_policy.GUI_AGENT_DEFAULTS``."""
        from vcoder.gui.vlm_policy import gui_endpoint

        return gui_endpoint(self)

    def case_limits(self) -> CaseLimits:
        """The ``gui_*`` case limits as the one ``vcoder.gui.limits.CaseLimits``."""
        return from_flat("gui", CaseLimits, self)


def parse_weights(value: dict[str, float] | str | None) -> dict[str, float]:
    """``visual_weights`` in any accepted form -> a validated mapping, sorted by component name.

    Accepts a mapping, a JSON object string (``'{"block": 1, "ssim": 0.5}'``), ``"block=1,ssim=0.5"`` or None (the
    defaults). Components not named get weight 0 only when a mapping is given; None keeps every default.

    Example:
        >>> parse_weights("block=1,ssim=0.5")
        {'block': 1.0, 'ssim': 0.5}
    """
    if value is None:
        return dict(sorted(DEFAULT_VISUAL_WEIGHTS.items()))
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"visual_weights={text!r} is not a JSON object ({exc}); e.g. 'block=1,ssim=0.5'"
                ) from None
        else:
            pairs = [item.split("=", 1) for item in text.split(",") if item.strip()]
            if any(len(p) != 2 for p in pairs):
                raise ValueError(f"visual_weights={text!r}: write name=weight pairs, e.g. 'block=1,ssim=0.5'")
            value = {k.strip(): v.strip() for k, v in pairs}
    if not isinstance(value, dict):
        raise ValueError(f"visual_weights must be a mapping of component -> weight, got {type(value).__name__}")
    unknown = sorted(set(value) - set(VISUAL_COMPONENTS))
    if unknown:
        raise ValueError(
            f"visual_weights has unknown components {unknown_names(unknown, VISUAL_COMPONENTS)}; "
            f"use keys among {VISUAL_COMPONENTS}"
        )
    try:
        weights = {str(k): float(v) for k, v in value.items()}
    except (TypeError, ValueError):
        raise ValueError(f"visual_weights={value!r}: every weight must be a number") from None
    if any(w < 0 for w in weights.values()) or not any(weights.values()):
        raise ValueError(f"visual_weights={weights!r} must be non-negative with a positive sum")
    return dict(sorted(weights.items()))


def reward_fields(cls: type) -> type:
    """Class decorator (put it under ``@dataclass``): give a dataclass every ``RewardSettings`` field, with its type,
    default and help, so a recipe sets any reward parameter by name (``vcoder.pipelines.grpo.args``)."""
    annotations = dict(getattr(cls, "__annotations__", {}))
    for f in dataclasses.fields(RewardSettings):
        if f.name in annotations:
            raise TypeError(f"{cls.__name__}.{f.name} is a reward parameter; declare it only in RewardSettings")
        annotations[f.name] = f.type
        setattr(cls, f.name, field(default=f.default, metadata=f.metadata))
    cls.__annotations__ = annotations
    cls.__generated__ = {**generated_fields(cls), **generated_fields(RewardSettings)}  # the declarations' fields
    return cls


def add_reward_flags(parser) -> None:
    """Add one ``--flag-name`` per ``RewardSettings`` field to an argparse parser (dest = the field name)."""
    import argparse

    for f in dataclasses.fields(RewardSettings):
        flag = "--" + f.name.replace("_", "-")
        help_text = f.metadata["help"] + f" (default: {f.default})"
        if f.type == "bool":
            parser.add_argument(
                flag, dest=f.name, action=argparse.BooleanOptionalAction, default=f.default, help=help_text
            )
            continue
        parser.add_argument(flag, dest=f.name, type=_converter(f.type), default=f.default, help=help_text)


def _converter(type_name: str):
    """The argparse ``type`` of a field typed ``type_name`` (``int``, ``float | None``, ``str | None``, ...)."""
    base = {"int": int, "float": float}.get(type_name.split(" | ")[0], str)
    if "None" not in type_name:
        return base

    def optional(value: str):
        return None if value.strip().lower() in ("none", "null") else base(value)

    optional.__name__ = base.__name__  # argparse names the type in its "invalid int value" message
    return optional


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return value
