"""Design2Code's block matching (:mod:`vcoder.metrics.design2code` scores the pairs it finds): the reference's
text-similarity assignment, its merging of neighbouring blocks while a merge lowers the matched cost, and the context
bonus of the final assignment. The constants are the reference's (see that module's docstring for the deviations).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from vcoder.metrics._blocks import MergedBlock, merge_pair
from vcoder.metrics._textsim import TextSimilarity

MERGE_GAIN = 0.05
KEEP = 0.5
BONUS, WINDOW = 0.1, 1
TRIAL_CELLS = 4_000_000


def assign(sim: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The assignment of rows to columns that maximises the summed similarity (Hungarian)."""
    from scipy.optimize import linear_sum_assignment

    return linear_sum_assignment(-sim)


def diff_of_means(current: list[float], updated: list[float]) -> float:
    """The reference ``difference_of_means`` on matched costs (-similarity): drop common values, compare means."""
    a, b = Counter(current), Counter(updated)
    for value in set(a) & set(b):
        common = min(a[value], b[value])
        a[value] -= common
        b[value] -= common
    ua, ub = list(a.elements()), list(b.elements())
    mean_a = sum(ua) / len(ua) if ua else 0.0
    mean_b = sum(ub) / len(ub) if ub else 0.0
    if mean_a - mean_b > 0:
        return mean_a - mean_b if min(ua) > min(ub) else 0.0
    return mean_a - mean_b


def matched_costs(sim: np.ndarray) -> list[float]:
    """The costs (-similarity) of the best assignment's pairs."""
    rows, cols = assign(sim)
    return (-sim[rows, cols]).tolist()


def context_bonus(sim: np.ndarray) -> np.ndarray:
    """Similarities plus 0.1 x the two best neighbouring similarities (window 1) for cells above 0.5."""
    n, m = sim.shape
    padded = np.full((n + 2 * WINDOW, m + 2 * WINDOW), -np.inf)
    padded[WINDOW : WINDOW + n, WINDOW : WINDOW + m] = sim
    shifts = [
        padded[WINDOW + di : WINDOW + di + n, WINDOW + dj : WINDOW + dj + m]
        for di in range(-WINDOW, WINDOW + 1)
        for dj in range(-WINDOW, WINDOW + 1)
        if (di, dj) != (0, 0)
    ]
    neigh = np.sort(np.stack(shifts), axis=0)[-2:]  # the two best neighbours (-inf where fewer exist)
    bonus = BONUS * np.where(np.isfinite(neigh), neigh, 0.0).sum(axis=0)
    return np.where(sim > KEEP, sim + bonus, sim)


class Matcher:
    """The reference's block matching: merge neighbouring blocks on either side while a merge lowers the matched
    cost by more than ``MERGE_GAIN``, then assign with the context bonus; ``run()`` gives the matched pairs."""

    def __init__(self, pred: list[MergedBlock], ref: list[MergedBlock], *, max_merge_evals: int, max_rounds: int):
        self.pred, self.ref = pred, ref
        self.textsim = TextSimilarity()
        self.sim = self.textsim.matrix([b.text for b in pred], [b.text for b in ref])
        # each trial is one assignment solve (~n*m work): cap the total cells solved, not just the count
        self.evals_left = min(max_merge_evals, max(8, TRIAL_CELLS // max(self.sim.size, 1)))
        self.max_rounds = max_rounds

    def _merge_side(self, side: str) -> bool:
        blocks = self.pred if side == "pred" else self.ref
        if len(blocks) < 2:
            return False
        sim = self.sim if side == "pred" else self.sim.T  # rows = the side being merged
        other = [b.text for b in (self.ref if side == "pred" else self.pred)]
        exact = self.textsim.is_exact(len(set(b.text for b in blocks)), len(set(other)))
        rows, cols = assign(sim)
        current = (-sim[rows, cols]).tolist()
        matched = np.zeros(sim.shape[0])
        matched[rows] = sim[rows, cols]
        is_matched = np.zeros(sim.shape[0], dtype=bool)
        is_matched[rows] = True
        scored = []
        for i in range(len(blocks) - 1):
            text = f"{blocks[i].text} {blocks[i + 1].text}"
            old = [matched[k] for k in (i, i + 1) if is_matched[k]]
            # a merge can only pass the reference test if the merged block beats both old matches and their mean
            # by the gain threshold (assuming the rest of the assignment stays): prune on an upper bound first
            need = max(max(old, default=0.0), float(np.mean(old)) + MERGE_GAIN if old else MERGE_GAIN)
            bound = float(self.textsim.char_upper_bounds(text, other).max(initial=0.0))
            if bound > need:
                scored.append((bound - need, i, text, need))
        scored.sort(key=lambda t: -t[0])
        candidates = []
        for _, i, text, need in scored:
            if self.evals_left <= 0:
                break
            if self.textsim.best_bound(text, other, text_is_pred=side == "pred") <= need:
                continue
            self.evals_left -= 1
            row = self.textsim.against(text, other, text_is_pred=side == "pred", exact=exact)
            trial = np.delete(sim, i + 1, axis=0)
            trial[i] = row
            diff = diff_of_means(current, matched_costs(trial))
            if diff > MERGE_GAIN:
                candidates.append((diff, i, row))
        if not candidates:
            return False
        candidates.sort(key=lambda t: -t[0])
        taken: set[int] = set()
        merged_rows: dict[int, np.ndarray] = {}
        new_blocks = list(blocks)
        for _, i, row in candidates:
            if i in taken or i + 1 in taken:
                continue
            taken.update((i, i + 1))
            new_blocks[i] = merge_pair(blocks[i], blocks[i + 1])
            merged_rows[i] = row
        drop = sorted(i + 1 for i in merged_rows)
        new_sim = sim.copy()
        for i, row in merged_rows.items():
            new_sim[i] = row
        new_sim = np.delete(new_sim, drop, axis=0)
        new_blocks = [b for k, b in enumerate(new_blocks) if k not in set(drop)]
        if side == "pred":
            self.pred, self.sim = new_blocks, new_sim
        else:
            self.ref, self.sim = new_blocks, new_sim.T.copy()
        return True

    def run(self) -> list[tuple[int, int]]:
        for _ in range(self.max_rounds):
            changed_pred = self._merge_side("pred")
            changed_ref = self._merge_side("ref")
            if not (changed_pred or changed_ref):
                break
        rows, cols = assign(context_bonus(self.sim))
        return list(zip(rows.tolist(), cols.tolist()))
