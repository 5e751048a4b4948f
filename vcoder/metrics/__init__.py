"""vcoder.metrics: pure metrics (arrays, HTML strings, layout records in; floats in [0, 1] out).

No browser, no torch, no trainer: importing this package is cheap and safe everywhere (scipy and scikit-image
are imported inside the functions that need them).
"""

from vcoder.metrics._blocks import MergedBlock
from vcoder.metrics.clip import clip_similarities, clip_similarity, mask_text, squash_to_square
from vcoder.metrics.design2code import BlockMatching, BlockPair, BlockScores, block_scores, match_blocks
from vcoder.metrics.dom import dom_similarity, dom_tokens, lcs_length
from vcoder.metrics.extract import FORMAT_STYLES, extract_html, format_score
from vcoder.metrics.image import align, content_coverage, content_fraction, histogram_similarity, is_blank, ssim
from vcoder.metrics.validity import validity_report, validity_score

__all__ = [
    "FORMAT_STYLES",
    "BlockMatching",
    "BlockPair",
    "BlockScores",
    "MergedBlock",
    "align",
    "block_scores",
    "clip_similarities",
    "clip_similarity",
    "content_coverage",
    "content_fraction",
    "dom_similarity",
    "dom_tokens",
    "extract_html",
    "format_score",
    "histogram_similarity",
    "is_blank",
    "lcs_length",
    "mask_text",
    "match_blocks",
    "squash_to_square",
    "ssim",
    "validity_report",
    "validity_score",
]
