"""vcoder.metrics: pure metrics (arrays, HTML strings, layout records in; floats in [0, 1] out).

No browser, no torch, no trainer: importing this package is cheap and safe everywhere. Exports load their module on
first use (so ``vcoder --help`` and the settings that name ``FORMAT_STYLES`` do not pay for NumPy), and scipy and
scikit-image are imported inside the functions that need them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names the lazy table below serves, for readers and tools
    from vcoder.metrics._blocks import MergedBlock
    from vcoder.metrics.clip import clip_similarities, clip_similarity, mask_text, squash_to_square
    from vcoder.metrics.design2code import (
        BlockMatching,
        BlockPair,
        BlockScores,
        block_scores,
        match_blocks,
        match_prepared_blocks,
        page_blocks,
    )
    from vcoder.metrics.dom import dom_similarity, dom_tokens, lcs_length, tour_similarity
    from vcoder.metrics.extract import FORMAT_STYLES, extract_html, format_score, strip_think
    from vcoder.metrics.hidden import height_ratio, hidden_text_share, written_text_chars
    from vcoder.metrics.image import (
        align,
        check_screenshot,
        content_coverage,
        content_fraction,
        grey_at_width,
        histogram_similarity,
        is_blank,
        ssim,
        ssim_of_greys,
    )
    from vcoder.metrics.ink import InkProfile, ink_evidence, ink_layout_similarity, ink_mask, ink_profile
    from vcoder.metrics.validity import validity_report, validity_score

# name -> module, loaded on first use (tests/test_exports.py checks it against the imports above)
_EXPORTS = {
    "FORMAT_STYLES": "extract",
    "BlockMatching": "design2code",
    "BlockPair": "design2code",
    "BlockScores": "design2code",
    "InkProfile": "ink",
    "MergedBlock": "_blocks",
    "align": "image",
    "check_screenshot": "image",
    "block_scores": "design2code",
    "clip_similarities": "clip",
    "clip_similarity": "clip",
    "content_coverage": "image",
    "content_fraction": "image",
    "dom_similarity": "dom",
    "dom_tokens": "dom",
    "extract_html": "extract",
    "format_score": "extract",
    "grey_at_width": "image",
    "height_ratio": "hidden",
    "hidden_text_share": "hidden",
    "histogram_similarity": "image",
    "ink_evidence": "ink",
    "ink_layout_similarity": "ink",
    "ink_mask": "ink",
    "ink_profile": "ink",
    "is_blank": "image",
    "lcs_length": "dom",
    "mask_text": "clip",
    "match_blocks": "design2code",
    "match_prepared_blocks": "design2code",
    "page_blocks": "design2code",
    "squash_to_square": "clip",
    "ssim": "image",
    "ssim_of_greys": "image",
    "strip_think": "extract",
    "tour_similarity": "dom",
    "validity_report": "validity",
    "validity_score": "validity",
    "written_text_chars": "hidden",
}

__all__ = [
    "BlockMatching",
    "BlockPair",
    "BlockScores",
    "FORMAT_STYLES",
    "InkProfile",
    "MergedBlock",
    "align",
    "block_scores",
    "check_screenshot",
    "clip_similarities",
    "clip_similarity",
    "content_coverage",
    "content_fraction",
    "dom_similarity",
    "dom_tokens",
    "extract_html",
    "format_score",
    "grey_at_width",
    "height_ratio",
    "hidden_text_share",
    "histogram_similarity",
    "ink_evidence",
    "ink_layout_similarity",
    "ink_mask",
    "ink_profile",
    "is_blank",
    "lcs_length",
    "mask_text",
    "match_blocks",
    "match_prepared_blocks",
    "page_blocks",
    "squash_to_square",
    "ssim",
    "ssim_of_greys",
    "strip_think",
    "tour_similarity",
    "validity_report",
    "validity_score",
    "written_text_chars",
]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vcoder.metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"vcoder.metrics.{module}"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
