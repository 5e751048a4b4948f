"""Held-out metrics: AUC against a brute-force pair count, ECE by hand, the majority baseline."""

from __future__ import annotations

import random

import pytest

from vcoder.orm.report import auc, binary_report, ece


def brute_auc(probs, labels):
    pos = [p for p, y in zip(probs, labels) if y]
    neg = [p for p, y in zip(probs, labels) if not y]
    wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


def test_auc_equals_the_pair_count_with_ties():
    rng = random.Random(0)
    for _ in range(50):
        n = rng.randint(2, 40)
        probs = [rng.choice([0.1, 0.3, 0.5, 0.7, 0.9, rng.random()]) for _ in range(n)]
        labels = [rng.randint(0, 1) for _ in range(n)]
        if 0 < sum(labels) < n:
            assert auc(probs, labels) == pytest.approx(brute_auc(probs, labels))
    assert auc([0.2, 0.8], [0, 1]) == 1.0 and auc([0.8, 0.2], [0, 1]) == 0.0 and auc([0.5, 0.5], [0, 1]) == 0.5
    assert auc([0.1, 0.9], [1, 1]) is None


def test_ece_by_hand():
    # bins: [0.0, 0.1) holds 0.05 (label 0); [0.9, 1.0] holds 0.95 and 1.0 (labels 1, 0)
    assert ece([0.05, 0.95, 1.0], [0, 1, 0]) == pytest.approx((0.05 + abs(1 - 1.95)) / 3)
    assert ece([0.0, 1.0], [0, 1]) == 0.0
    assert ece([0.5] * 4, [1, 1, 0, 0]) == 0.0


def test_binary_report_and_its_baseline():
    r = binary_report([0.9, 0.6, 0.4, 0.2, 0.7], [1, 0, 0, 0, 1], train_yes_rate=0.3)
    assert r["n"] == 5 and r["yes_rate"] == 0.4 and r["accuracy"] == 0.8 and r["auc"] == 1.0
    assert r["baseline"] == {"answer": "NO", "accuracy": 0.6} and r["ece_bins"] == 10
    assert r["brier"] == pytest.approx((0.01 + 0.36 + 0.16 + 0.04 + 0.09) / 5)
    assert binary_report([0.1], [1], train_yes_rate=0.5)["baseline"]["answer"] == "YES"
    with pytest.raises(ValueError, match="no held-out predictions"):
        binary_report([], [], train_yes_rate=0.5)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        binary_report([1.2], [1], train_yes_rate=0.5)
