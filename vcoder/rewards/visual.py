"""Rendering-based rewards: SSIM, CLIP, Design2Code Block/Text/Position/Colour, and the weighted composite.

Every completion is rendered once per step however many of these rewards are stacked (see
`vcoder.rewards.context`); the reference comes from the dataset's ``html`` column (rendered once per prompt, gives
a layout) or, for SSIM/CLIP/visual, its ``image`` column. Layout rewards need ``html``: without it they return None.

Only what a person can see counts (``vcoder.metrics.ink``): hidden or unreadably small text is no text. The block
rewards use the TRAINING form of the Design2Code scores (``BlockMatching.training_scores``; how it differs from the
official definitions that ``vcoder eval design2code`` reports is documented once, in ``vcoder.metrics.design2code``):
deleting content can only lower them. The whole-image rewards (SSIM, CLIP) are scaled by the evidence gate
(``vcoder.rewards.features.evidence_gate``): a blank page, hidden text, a canvas drawing or coloured bars score near 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vcoder.rewards import features
from vcoder.rewards.common import configure, score_rendered, takes_reward_settings
from vcoder.rewards.settings import RewardSettings

_DEFAULT = RewardSettings()


async def ssim_reward(
    completions, *, settings: RewardSettings = _DEFAULT, image: Any = None, html: Any = None, **kwargs: Any
) -> list[float | None]:
    """Structural similarity of the rendered page to the reference screenshot, times the evidence gate, in [0, 1].

    See `vcoder.metrics.ssim` for the size policy (common width, height padded/cropped).
    """
    return await score_rendered(
        completions, settings, features.ssim_score, image=image, html=html, name="ssim_reward", **kwargs
    )


async def clip_reward(
    completions, *, settings: RewardSettings = _DEFAULT, image: Any = None, html: Any = None, **kwargs: Any
) -> list[float | None]:
    """CLIP image-image cosine between the rendered page and the reference, times the evidence gate, in [0, 1].

    The whole screenshots are squashed to CLIP's square input (never cropped) and compared as they are, text
    included: this is VisionCoder's CLIP reward, not Design2Code's CLIP score (which inpaints each page's text boxes
    first; ``vcoder eval design2code`` computes that one). Deliberately: a reference known only by its screenshot
    has no text boxes to inpaint, and inpainting the page alone would compare unlike images; the text is judged by
    the block rewards when they are stacked. The model comes from ``clip_model`` / ``clip_pretrained``.
    """
    return await score_rendered(
        completions,
        settings,
        features.clip_score,
        image=image,
        html=html,
        name="clip_reward",
        prepare=features.prepare_clip,
        prepare_page=features.clip_square,
        **kwargs,
    )


def _d2c(name: str):
    def score(ref, page, settings):
        return features.component(name, ref, page, settings)

    return score


async def block_reward(
    completions, *, settings: RewardSettings = _DEFAULT, html: Any = None, **kwargs: Any
) -> list[float | None]:
    """Design2Code Block-Match in its training form, in [0, 1] (needs ``html``): the reference's visible text area
    that the page reproduces at a similar size, over the reference's text area plus the page's unmatched text area.

    References:
        Si et al., "Design2Code: How Far Are We From Automating Front-End Engineering?", 2024.
    """
    return await score_rendered(
        completions, settings, _d2c("block"), html=html, needs_layout=True, name="block_reward", **kwargs
    )


async def text_reward(
    completions, *, settings: RewardSettings = _DEFAULT, html: Any = None, **kwargs: Any
) -> list[float | None]:
    """Design2Code Text in its training form: SequenceMatcher ratios of matched blocks, weighted by the reference
    area each reproduces, over all reference and unmatched page text area, in [0, 1] (needs ``html``)."""
    return await score_rendered(
        completions, settings, _d2c("text"), html=html, needs_layout=True, name="text_reward", **kwargs
    )


async def position_reward(
    completions, *, settings: RewardSettings = _DEFAULT, html: Any = None, **kwargs: Any
) -> list[float | None]:
    """Design2Code Position in its training form: 1 - max(|dx|, |dy|) of matched block centres, weighted like
    ``text_reward``, in [0, 1] (needs ``html``)."""
    return await score_rendered(
        completions, settings, _d2c("position"), html=html, needs_layout=True, name="position_reward", **kwargs
    )


async def color_reward(
    completions, *, settings: RewardSettings = _DEFAULT, html: Any = None, **kwargs: Any
) -> list[float | None]:
    """Design2Code Colour in its training form: 1 - CIEDE2000/100 of matched blocks' text colours, weighted like
    ``text_reward``, in [0, 1] (needs ``html``)."""
    return await score_rendered(
        completions, settings, _d2c("color"), html=html, needs_layout=True, name="color_reward", **kwargs
    )


async def visual_reward(
    completions, *, settings: RewardSettings = _DEFAULT, image: Any = None, html: Any = None, **kwargs: Any
) -> list[float | None]:
    """Weighted mean of the visual components (``visual_weights``), in [0, 1].

    Components: ``block``, ``text``, ``position``, ``color`` (training forms, need ``html``), ``ssim`` and ``clip``
    (times the evidence gate) and ``ink`` (``vcoder.metrics.ink_layout_similarity``: whether the page's visible,
    content-backed ink lies where the reference's does). Components that cannot be judged for a sample drop out of
    its mean, so with an image-only reference the default composite is ``(0.5 ssim + 0.5 ink) / 1.0``: SSIM alone
    ranked an honest copy nudged by a few px below a page of coloured bars; the ink layout tolerates the nudge and
    gives bars, canvas drawings and hidden text nothing.
    """
    return await score_rendered(
        completions,
        settings,
        features.visual_score,
        image=image,
        html=html,
        name="visual_reward",
        prepare=features.prepare_clip if features.uses_clip(settings, "visual") else None,
        prepare_page=features.clip_square if features.uses_clip(settings, "visual") else None,
        **kwargs,
    )


def _check_clip(settings: RewardSettings) -> None:
    """Load the CLIP model now (it is cached for the reward's later calls) so missing weights fail at build time,
    not as silent zeros or None mid-training."""
    features.clip_embedder(settings.clip_model, settings.clip_pretrained, settings.clip_tiny, settings.clip_device)


def _check_visual_clip(settings: RewardSettings) -> None:
    if features.uses_clip(settings, "visual"):
        _check_clip(settings)


@takes_reward_settings
def make_ssim_reward(**params: Any) -> Callable:
    """Build a configured ``ssim_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(ssim_reward, params)


@takes_reward_settings
def make_clip_reward(**params: Any) -> Callable:
    """Build a configured ``clip_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(clip_reward, params, check=_check_clip)


@takes_reward_settings
def make_block_reward(**params: Any) -> Callable:
    """Build a configured ``block_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(block_reward, params)


@takes_reward_settings
def make_text_reward(**params: Any) -> Callable:
    """Build a configured ``text_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(text_reward, params)


@takes_reward_settings
def make_position_reward(**params: Any) -> Callable:
    """Build a configured ``position_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(position_reward, params)


@takes_reward_settings
def make_color_reward(**params: Any) -> Callable:
    """Build a configured ``color_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(color_reward, params)


@takes_reward_settings
def make_visual_reward(**params: Any) -> Callable:
    """Build a configured ``visual_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(visual_reward, params, check=_check_visual_clip)
