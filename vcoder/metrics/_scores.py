"""Design2Code block scores from a matching: the published definitions and the training forms.

Both are defined, and their difference explained, in ``vcoder.metrics.design2code``'s module docstring.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcoder.metrics._blocks import MergedBlock

__all__ = ["BlockMatching", "BlockPair", "BlockScores"]


@dataclass(frozen=True)
class BlockScores:
    """Design2Code block scores of one prediction against one reference, each in [0, 1]."""

    block_match: float
    text: float
    position: float
    color: float
    n_ref: int
    n_pred: int
    n_matched: int


@dataclass(frozen=True)
class BlockPair:
    """One kept match: indices into ``BlockMatching.pred_blocks`` / ``ref_blocks`` and the per-pair scores."""

    pred: int
    ref: int
    text: float
    position: float
    color: float


@dataclass(frozen=True)
class BlockMatching:
    """The matching behind ``BlockScores`` (for reports and debugging): blocks after merging, and kept pairs."""

    ref_blocks: tuple[MergedBlock, ...]
    pred_blocks: tuple[MergedBlock, ...]
    pairs: tuple[BlockPair, ...]

    def scores(self) -> BlockScores:
        """Aggregate the pairs into Design2Code's four block scores (the published definitions)."""
        n_ref, n_pred, n = len(self.ref_blocks), len(self.pred_blocks), len(self.pairs)
        if n == 0:
            return BlockScores(0.0, 0.0, 0.0, 0.0, n_ref, n_pred, 0)
        matched_pred = {p.pred for p in self.pairs}
        matched_ref = {p.ref for p in self.pairs}
        matched = sum(self.pred_blocks[p.pred].area + self.ref_blocks[p.ref].area for p in self.pairs)
        unmatched = sum(b.area for k, b in enumerate(self.pred_blocks) if k not in matched_pred)
        unmatched += sum(b.area for k, b in enumerate(self.ref_blocks) if k not in matched_ref)
        total = matched + unmatched
        return BlockScores(
            block_match=float(matched / total) if total > 0 else 0.0,
            text=float(np.mean([p.text for p in self.pairs])),
            position=float(np.mean([p.position for p in self.pairs])),
            color=float(np.mean([p.color for p in self.pairs])),
            n_ref=n_ref,
            n_pred=n_pred,
            n_matched=n,
        )

    def training_scores(self) -> BlockScores:
        """The four scores in their training form, which deleting content cannot raise (see the module docstring).

        Each aspect sums a per-pair quality q (1 for Block-Match; the text similarity, position or colour score for
        the others) weighted by the reference block's area times the pair's size agreement
        ``s = sqrt(min(area_pred, area_ref) / max(area_pred, area_ref))``, over the whole reference's block area plus
        the unmatched predicted area: ``sum_pairs(area_ref * s * q) / (area_ref_all + area_pred_unmatched)``.
        """
        n_ref, n_pred, n = len(self.ref_blocks), len(self.pred_blocks), len(self.pairs)
        matched_pred = {p.pred for p in self.pairs}
        total = sum(b.area for b in self.ref_blocks)
        total += sum(b.area for k, b in enumerate(self.pred_blocks) if k not in matched_pred)
        if n == 0 or total <= 0:
            return BlockScores(0.0, 0.0, 0.0, 0.0, n_ref, n_pred, n)
        weights = []
        for p in self.pairs:
            a, b = self.pred_blocks[p.pred].area, self.ref_blocks[p.ref].area
            weights.append(b * np.sqrt(min(a, b) / max(a, b)) / total if max(a, b) > 0 else 0.0)

        def weighted(values) -> float:
            return float(min(1.0, np.dot(weights, np.asarray(values, dtype=np.float64))))

        return BlockScores(
            block_match=weighted(np.ones(n)),
            text=weighted([p.text for p in self.pairs]),
            position=weighted([p.position for p in self.pairs]),
            color=weighted([p.color for p in self.pairs]),
            n_ref=n_ref,
            n_pred=n_pred,
            n_matched=n,
        )
