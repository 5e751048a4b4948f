"""Design2Code block metrics: Block-Match, Text, Position and Colour between two rendered pages.

Definitions follow Si et al. (2024) and their reference implementation (``metrics/visual_score.py``):

1. Blocks: the layout's text blocks that a person can see, lower-cased, identical boxes merged, boxes normalised by
   each page's own width and height (``vcoder.metrics._blocks.prepare_blocks``). The official scorer finds blocks by
   their rendered pixels; here the layout names them and the screenshot decides whether they show (ink in the box,
   ``vcoder.metrics.ink``), and a block's box is the tight box of its ink, as the official box is of its pixels.
2. Similarity: ``SequenceMatcher(None, pred_text, ref_text).ratio()``; cost = -similarity; rows are prediction
   blocks, columns reference blocks.
3. Merging: repeatedly, for each side (prediction first), try merging every pair of list-adjacent blocks; a merge
   is a candidate when the re-solved Hungarian assignment improves the mean of the matched similarities that
   changed by more than 0.05 (the reference ``difference_of_means``); candidates are applied best first, never two
   touching the same block; rounds repeat until no side changes.
4. Final assignment (``scipy.optimize.linear_sum_assignment``) on costs where each cell with similarity > 0.5
   gets a context bonus of 0.1 x the two best similarities among its 8 neighbours (window 1); matched pairs
   with similarity < 0.5 are dropped.
5. Block-Match = matched areas (both sides) / (matched + unmatched areas on both sides); Text = mean similarity;
   Position = mean ``1 - max(|dcx|, |dcy|)`` of box centres; Colour = mean ``max(0, 1 - CIEDE2000 / 100)`` of the
   text colours (``skimage.color.rgb2lab`` D65 + ``deltaE_ciede2000``). No block on either side, or no matched
   pair: 0 on all four.

Deliberate deviations, and why:

- Visibility is judged on the page as rendered. The official scorer re-renders the page with every text-tag element
  recoloured (``!important``, opacity 1) and every background made transparent, so text that is transparent, the
  colour of its background, or covered by a coloured box still counts there; here it does not (text a reader cannot
  see earned full Block-Match, Text and Position and, with half the blocks missing and the rest hidden, a composite
  above every honest attempt). Text clipped away, off the page, under a near-zero opacity ancestor or too small to
  read (glyphs under 6 px, e.g. a 1 px font or ``transform: scale(0.05)``) counts in neither. Pages whose text is
  all visible score the same as before (``tests/eval/test_agreement.py``).
- Bounded cost (only on large pages): the reference search re-solves the assignment for every adjacent pair, every
  round, and can run for minutes. Here a merge is tried only when the merged text's best possible similarity
  (difflib ``quick_ratio`` bound, then the exact row maximum) beats the worse of the two blocks' current matches by
  more than 0.05 (otherwise it cannot improve the changed matches' mean, barring re-assignments elsewhere); at most
  ``max_merge_evals`` (64) assignment re-solves in the whole search (fewer on big pages: at most 4M assignment cells
  in all, but at least 8), best bound first, and at most ``max_merge_rounds`` (8) rounds. Above 20,000 distinct
  text pairs, similarity cells come from a top-k candidate search (``vcoder.metrics._textsim``). Pages of up to ~140
  blocks get the published matrix exactly.

Training forms vs the official definitions (the one place this difference is documented). ``BlockMatching.scores``
gives the published scores; ``vcoder eval design2code`` reports them. Text, Position and Colour there average over
MATCHED pairs only, so a page that drops the blocks it is unsure of scores higher on them (reported: deleting every
third block of a flex page raised Position from 0.61 to 0.695), and Block-Match ignores size (a page under
``scale(0.5)`` keeps 1.0). The rewards (``vcoder.rewards``: block, text, position, color, visual) use
``BlockMatching.training_scores`` instead. With R the reference's blocks, U the page's unmatched blocks, and for
each kept pair (p, r) its size agreement ``s = sqrt(min(area_p, area_r) / max(area_p, area_r))``::

    aspect = sum_pairs(area_r * s * q) / (sum_R(area) + sum_U(area))

with q = 1 for Block-Match and the pair's text similarity, position score or colour score for the others. Deleting
a matched block removes its term from the numerator and nothing from the denominator, so it cannot raise any aspect;
extra or repeated content enlarges the denominator; text shown at the wrong size reproduces less. On a page whose
blocks all match at their reference size the training forms equal the official Block-Match and weight the other
three by reference area instead of counting pairs equally.

References:
    Si, C., Zhang, Y., Yang, Z., Liu, R., Yang, D. "Design2Code: How Far Are We From Automating Front-End
    Engineering?" arXiv:2403.03163 (2024). Sharma, G., Wu, W., Dalal, E. "The CIEDE2000 color-difference
    formula" (2005).
"""

from __future__ import annotations

import numpy as np

from vcoder.layout import Layout
from vcoder.metrics._blocks import MergedBlock, prepare_blocks
from vcoder.metrics._matcher import KEEP, Matcher
from vcoder.metrics._scores import BlockMatching, BlockPair, BlockScores
from vcoder.metrics.image import check_screenshot

__all__ = [
    "BlockScores",
    "BlockPair",
    "BlockMatching",
    "MergedBlock",
    "block_scores",
    "match_blocks",
    "match_prepared_blocks",
    "page_blocks",
]


def _validate(layout, image, name: str):
    """The layout checked, and the screenshot's RGB view (or None)."""
    if not isinstance(layout, Layout):
        raise TypeError(f"{name} must be a vcoder.layout.Layout (Rendered.layout), got {type(layout).__name__}")
    if layout.width <= 0 or layout.height <= 0:
        raise ValueError(f"{name} has size {layout.width}x{layout.height}; a rendered layout has a positive size")
    return None if image is None else check_screenshot(image, f"{name} image")


def _color_scores(pred_colors: np.ndarray, ref_colors: np.ndarray) -> np.ndarray:
    from skimage.color import deltaE_ciede2000, rgb2lab

    lab_p = rgb2lab(pred_colors.reshape(-1, 1, 3) / 255.0)
    lab_r = rgb2lab(ref_colors.reshape(-1, 1, 3) / 255.0)
    delta = deltaE_ciede2000(lab_p, lab_r).reshape(-1)
    return np.maximum(0.0, 1.0 - delta / 100.0)


def match_blocks(
    ref: Layout,
    pred: Layout,
    *,
    ref_image: np.ndarray | None = None,
    pred_image: np.ndarray | None = None,
    max_merge_evals: int = 64,
    max_merge_rounds: int = 8,
) -> BlockMatching:
    """Match a prediction's text blocks to a reference's, as Design2Code does (see the module docstring).

    Args:
        ref: the reference page's layout.
        pred: the predicted page's layout.
        ref_image: optional reference screenshot ((H, W, 3) uint8) for measured text colours.
        pred_image: optional prediction screenshot, likewise.
        max_merge_evals: most assignment re-solves (merge trials) in the whole merge search.
        max_merge_rounds: most merge rounds.

    Returns:
        The blocks after merging and the kept pairs (similarity >= 0.5).
    """
    ref_image, pred_image = _validate(ref, ref_image, "ref"), _validate(pred, pred_image, "pred")
    return match_prepared_blocks(
        prepare_blocks(ref, ref_image),
        prepare_blocks(pred, pred_image),
        max_merge_evals=max_merge_evals,
        max_merge_rounds=max_merge_rounds,
    )


def page_blocks(layout: Layout, image: np.ndarray | None = None, *, ink: np.ndarray | None = None):
    """A page's blocks as ``match_blocks`` prepares them (inputs validated the same way), for
    ``match_prepared_blocks``; ``ink`` is ``vcoder.metrics.ink_mask(image)`` when the caller has it already."""
    image = _validate(layout, image, "layout")
    return prepare_blocks(layout, image, ink=ink)


def match_prepared_blocks(
    ref_blocks: list[MergedBlock],
    pred_blocks: list[MergedBlock],
    *,
    max_merge_evals: int = 64,
    max_merge_rounds: int = 8,
) -> BlockMatching:
    """``match_blocks`` on blocks already prepared (``page_blocks``): a reference's blocks, prepared once, serve
    every prediction compared with it.

    Args:
        ref_blocks: ``page_blocks(ref_layout, ref_image)``.
        pred_blocks: ``page_blocks(pred_layout, pred_image)``.
        max_merge_evals: most assignment re-solves (merge trials) in the whole merge search.
        max_merge_rounds: most merge rounds.
    """
    if max_merge_evals < 0 or max_merge_rounds < 0:
        raise ValueError(f"max_merge_evals={max_merge_evals} and max_merge_rounds={max_merge_rounds} must be >= 0")
    ref_blocks, pred_blocks = list(ref_blocks), list(pred_blocks)
    if not ref_blocks or not pred_blocks:
        return BlockMatching(tuple(ref_blocks), tuple(pred_blocks), ())
    matcher = Matcher(pred_blocks, ref_blocks, max_merge_evals=max_merge_evals, max_rounds=max_merge_rounds)
    assignment = matcher.run()
    pred_blocks, ref_blocks = matcher.pred, matcher.ref
    kept = []
    for i, j in assignment:
        similarity = matcher.textsim.ratio(pred_blocks[i].text, ref_blocks[j].text)
        if similarity >= KEEP:
            kept.append((i, j, similarity))
    pairs: list[BlockPair] = []
    if kept:
        colors = _color_scores(
            np.array([pred_blocks[i].color for i, _, _ in kept], dtype=np.float64),
            np.array([ref_blocks[j].color for _, j, _ in kept], dtype=np.float64),
        )
        for (i, j, similarity), color in zip(kept, colors):
            (pcx, pcy), (rcx, rcy) = pred_blocks[i].center, ref_blocks[j].center
            position = 1.0 - max(abs(pcx - rcx), abs(pcy - rcy))
            pairs.append(BlockPair(i, j, float(similarity), float(min(max(position, 0.0), 1.0)), float(color)))
    return BlockMatching(tuple(ref_blocks), tuple(pred_blocks), tuple(pairs))


def block_scores(
    ref: Layout,
    pred: Layout,
    *,
    ref_image: np.ndarray | None = None,
    pred_image: np.ndarray | None = None,
) -> BlockScores:
    """Design2Code Block-Match, Text, Position and Colour of a prediction against a reference, each in [0, 1].

    Args:
        ref: the reference page's layout (``Rendered.layout``).
        pred: the predicted page's layout.
        ref_image: optional reference screenshot (``Rendered.image``): text colours are then measured from
            pixels; without it the CSS text colour is used.
        pred_image: optional prediction screenshot, likewise.

    Returns:
        ``BlockScores``; all four scores are 0 when either page has no text block or nothing matches.

    Example:
        >>> from vcoder.layout import Layout, TextBlock
        >>> page = Layout(100, 100, (TextBlock("Hi", (10, 10, 20, 10), (0, 0, 0), (255, 255, 255), 16, 400, "p"),))
        >>> block_scores(page, page).text
        1.0
    """
    return match_blocks(ref, pred, ref_image=ref_image, pred_image=pred_image).scores()
