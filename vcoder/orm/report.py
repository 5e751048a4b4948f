"""Held-out quality of an ORM: accuracy, AUC and calibration (ECE) against the majority-class baseline.

- Accuracy: P(YES) >= the threshold counts as YES (0.5: WebRL's binary reward; an ORM trained by vcoder carries its
  tuned decision threshold, :func:`tune_threshold`).
- AUC: the probability that a random YES example scores above a random NO example, ties counting one half
  (the Mann-Whitney U statistic / (n_yes n_no)); None when the held-out set has one class only.
- ECE: expected calibration error of P(YES) as a probability of YES, over 10 equal-width bins of P(YES) on [0, 1]
  (the last bin closed): sum over bins of (bin size / n) |mean label - mean P(YES)|.
- Baseline: always answer the training set's majority class; its accuracy on the held-out set (its AUC is 0.5 and
  its ECE is |held-out YES rate - training YES rate| when it outputs the training YES rate).

Example:
    >>> r = binary_report([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 1], train_yes_rate=0.75)
    >>> r["accuracy"], r["auc"], r["baseline"]["accuracy"]
    (0.75, 0.6666666666666666, 0.75)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

ECE_BINS = 10


def auc(probs: Sequence[float], labels: Sequence[int]) -> float | None:
    """ROC AUC by ranks (ties get average ranks); None without both classes."""
    pos = sum(1 for y in labels if y)
    neg = len(labels) - pos
    if pos == 0 or neg == 0:
        return None
    order = sorted(range(len(probs)), key=lambda i: probs[i])
    ranks = [0.0] * len(probs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and probs[order[j + 1]] == probs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    rank_sum = sum(r for r, y in zip(ranks, labels) if y)
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def ece(probs: Sequence[float], labels: Sequence[int], *, bins: int = ECE_BINS) -> float:
    """Expected calibration error of P(YES) over ``bins`` equal-width bins on [0, 1]."""
    if not probs:
        raise ValueError("ece needs at least one prediction")
    sums = [[0, 0.0, 0.0] for _ in range(bins)]
    for p, y in zip(probs, labels):
        b = sums[min(int(p * bins), bins - 1)]
        b[0] += 1
        b[1] += p
        b[2] += y
    return sum(abs(s[2] - s[1]) for s in sums if s[0]) / len(probs)


def binary_report(
    probs: Sequence[float], labels: Sequence[int], *, train_yes_rate: float, threshold: float = 0.5
) -> dict[str, Any]:
    """Accuracy, AUC, ECE and the majority baseline of one set of held-out predictions.

    Args:
        probs: P(YES) per example.
        labels: 1 (YES) / 0 (NO) per example.
        train_yes_rate: share of YES labels in the training examples (decides the baseline's class).
        threshold: P(YES) at or above which the ORM answers YES.

    Returns:
        ``{"n", "yes_rate", "accuracy", "auc", "ece", "ece_bins", "brier", "baseline": {"answer", "accuracy"}}``.
    """
    if len(probs) != len(labels):
        raise ValueError(f"{len(probs)} predictions for {len(labels)} labels")
    if not probs:
        raise ValueError("no held-out predictions to report on (is the held-out split empty?)")
    if any(not math.isfinite(p) or not 0.0 <= p <= 1.0 for p in probs):
        raise ValueError("probabilities must lie in [0, 1]")
    n = len(labels)
    answer = int(train_yes_rate >= 0.5)
    return {
        "n": n,
        "yes_rate": sum(labels) / n,
        "accuracy": sum(int(p >= threshold) == y for p, y in zip(probs, labels)) / n,
        "auc": auc(probs, labels),
        "ece": ece(probs, labels),
        "ece_bins": ECE_BINS,
        "brier": sum((p - y) ** 2 for p, y in zip(probs, labels)) / n,
        "baseline": {"answer": "YES" if answer else "NO", "accuracy": sum(y == answer for y in labels) / n},
    }


def tune_threshold(probs: Sequence[float], labels: Sequence[int]) -> float:
    """The decision threshold on P(YES) with the best balanced accuracy (mean of the YES and NO recalls).

    Candidates are the scores themselves (``p >= t`` answers YES); ties go to the candidate nearest 0.5 (WebRL's
    threshold), then the lower one. With one class only there is nothing to balance: 0.5.

    Example:
        >>> tune_threshold([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
        0.3
        >>> tune_threshold([0.9, 0.8], [1, 1])
        0.5
    """
    if len(probs) != len(labels):
        raise ValueError(f"{len(probs)} predictions for {len(labels)} labels")
    n_yes = sum(1 for y in labels if y)
    n_no = len(labels) - n_yes
    if not n_yes or not n_no:
        return 0.5
    best, best_key = 0.5, None
    for t in sorted(set(float(p) for p in probs)):
        yes_recall = sum(1 for p, y in zip(probs, labels) if y and p >= t) / n_yes
        no_recall = sum(1 for p, y in zip(probs, labels) if not y and p < t) / n_no
        key = (-(yes_recall + no_recall) / 2, abs(t - 0.5), t)
        if best_key is None or key < best_key:
            best, best_key = t, key
    return best
