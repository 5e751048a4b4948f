"""vcoder.metrics: pure metrics (arrays, HTML strings, layout records in; floats in [0, 1] out).

No browser, no torch, no trainer: importing this package is cheap and safe everywhere. Exports load their module on
first use (so ``vcoder --help`` and the settings that name ``FORMAT_STYLES`` do not pay for NumPy), and scipy and
scikit-image are imported inside the functions that need them.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "FORMAT_STYLES": "extract",
    "BlockMatching": "design2code",
    "BlockPair": "design2code",
    "BlockScores": "design2code",
    "InkProfile": "ink",
    "MergedBlock": "_blocks",
    "align": "image",
    "block_scores": "design2code",
    "clip_similarities": "clip",
    "clip_similarity": "clip",
    "content_coverage": "image",
    "content_fraction": "image",
    "dom_similarity": "dom",
    "dom_tokens": "dom",
    "extract_html": "extract",
    "format_score": "extract",
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
    "squash_to_square": "clip",
    "ssim": "image",
    "strip_think": "extract",
    "validity_report": "validity",
    "validity_score": "validity",
    "written_text_chars": "hidden",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vcoder.metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"vcoder.metrics.{module}"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
