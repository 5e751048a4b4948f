"""Reward parameters: one frozen, flat, prefixed dataclass shared by every reward (YAML-friendly)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

FORMAT_STYLES = ("any", "fenced", "think", "bare")
VISUAL_COMPONENTS = ("block", "text", "position", "color", "clip", "ssim")


@dataclass(frozen=True)
class RewardSettings:
    """Parameters of the rendering-based rewards. Every field is flat and prefixed so YAML recipes stay flat.

    Built once per reward (at `build_rewards` time) and validated there: bad configuration raises early, model
    output never raises.
    """

    render_width: int = field(default=1280, metadata={"help": "Viewport width in CSS px for every render."})
    render_height: int = field(default=720, metadata={"help": "Viewport height in CSS px (the page is full-page)."})
    render_timeout_ms: int = field(default=15000, metadata={"help": "Deadline of one render, in ms."})
    render_max_pages: int = field(default=2, metadata={"help": "Concurrent browser pages of this process's pool."})
    clip_model: str = field(default="ViT-B-32", metadata={"help": "open_clip model name for clip_reward."})
    clip_pretrained: str | None = field(
        default="openai",
        metadata={"help": "open_clip pretrained tag (resolved offline) or a local checkpoint path."},
    )
    clip_tiny: bool = field(
        default=False, metadata={"help": "Use a tiny random CLIP built offline (tests, CPU smoke runs only)."}
    )
    clip_device: str | None = field(default=None, metadata={"help": "Device for CLIP (default: CUDA if available)."})
    format_style: str = field(default="any", metadata={"help": f"Expected output format, one of {FORMAT_STYLES}."})
    ssim_width: int = field(default=320, metadata={"help": "Width screenshots are downscaled to for SSIM."})
    blank_gate: bool = field(
        default=True,
        metadata={"help": "Scale whole-image rewards by how much of the reference's content the page has."},
    )
    visual_weights: dict[str, float] = field(
        default_factory=lambda: {"block": 1.0, "text": 1.0, "position": 1.0, "color": 1.0, "clip": 0.0, "ssim": 0.5},
        metadata={
            "help": f"Weights of visual_reward's components, keys among {VISUAL_COMPONENTS}. CLIP is off by default "
            "because it needs weights; give it a weight once clip_pretrained points at them."
        },
    )
    cache_size: int = field(default=256, metadata={"help": "Renders kept per cache (completions, references)."})

    def __post_init__(self) -> None:
        for name in ("render_width", "render_height", "render_timeout_ms", "render_max_pages", "ssim_width"):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name}={value!r} must be a positive integer")
        if self.format_style not in FORMAT_STYLES:
            raise ValueError(f"format_style={self.format_style!r} is not one of {FORMAT_STYLES}")
        unknown = set(self.visual_weights) - set(VISUAL_COMPONENTS)
        if unknown:
            raise ValueError(
                f"visual_weights has unknown components {sorted(unknown)}; use keys among {VISUAL_COMPONENTS}"
            )
        if any(w < 0 for w in self.visual_weights.values()) or not any(self.visual_weights.values()):
            raise ValueError(f"visual_weights={self.visual_weights!r} must be non-negative with a positive sum")
        # a dict field would make the frozen dataclass unhashable; freeze it as a sorted tuple-backed dict copy
        object.__setattr__(self, "visual_weights", dict(sorted(self.visual_weights.items())))

    def __hash__(self) -> int:
        return hash(tuple((f.name, _freeze(getattr(self, f.name))) for f in dataclasses.fields(self)))

    @classmethod
    def from_params(cls, **params: Any) -> RewardSettings:
        """Build from flat keyword parameters, refusing unknown keys with a "did you mean"."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = [k for k in params if k not in known]
        if unknown:
            import difflib

            hints = []
            for key in unknown:
                close = difflib.get_close_matches(key, sorted(known), n=1)
                hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
            raise TypeError(f"unknown reward parameter(s) {', '.join(hints)}; known: {sorted(known)}")
        return cls(**params)

    def render_kwargs(self) -> dict[str, Any]:
        return {"width": self.render_width, "height": self.render_height, "timeout_ms": self.render_timeout_ms}


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return value
