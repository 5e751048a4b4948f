"""The ORM's class balance and tuned decision threshold on hand-made numbers (no model)."""

from __future__ import annotations

from collections import Counter

import pytest

from vcoder.orm.examples import Example
from vcoder.orm.report import tune_threshold
from vcoder.orm.train import TrainOptions, balanced


def _ex(i: int, label: int) -> Example:
    return Example(text=f"site {i}", image=None, label=label, task_id=f"t{i}", view="site")


def test_tuned_threshold_maximises_balanced_accuracy():
    # an ORM that never says YES at 0.5 although it ranks perfectly: every P(YES) is below 0.5
    # t = 0.30: YES recall 2/2, NO recall 3/3 -> 1.0 (t = 0.2: 1 and 2/3 -> 0.833; t = 0.35: 1/2 and 1 -> 0.75)
    assert tune_threshold([0.05, 0.10, 0.20, 0.30, 0.35], [0, 0, 0, 1, 1]) == 0.30
    # overlapping scores; YES = {0.2, 0.3}, NO = {0.1, 0.25, 0.4}; balanced accuracy (YES recall + NO recall) / 2:
    # t=0.1: (1 + 0) / 2 = 0.5; t=0.2: (1 + 1/3) / 2 = 0.667; t=0.25: (1/2 + 1/3) / 2 = 0.417;
    # t=0.3: (1/2 + 2/3) / 2 = 0.583; t=0.4: (0 + 2/3) / 2 = 0.333 -> 0.2
    assert tune_threshold([0.1, 0.2, 0.25, 0.3, 0.4], [0, 1, 0, 1, 0]) == 0.2
    # a tie: YES = {0.4, 0.8}, NO = {0.2, 0.6}; t=0.4: (1 + 1/2) / 2 = 0.75; t=0.8: (1/2 + 1) / 2 = 0.75;
    # t=0.2 and t=0.6: 0.5 -> the tie goes to the candidate nearest 0.5: 0.4
    assert tune_threshold([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1]) == 0.4
    assert tune_threshold([0.9, 0.8], [1, 1]) == 0.5  # one class: nothing to tune
    with pytest.raises(ValueError, match="2 predictions for 1 labels"):
        tune_threshold([0.1, 0.2], [1])


def test_balanced_repeats_the_rarer_label():
    examples = [_ex(0, 1), _ex(1, 1), *(_ex(i, 0) for i in range(2, 7))]  # 2 YES, 5 NO
    out = balanced(examples, seed=0)
    # 3 repeats of the YES examples, cycling: site 0 twice more, site 1 once more -> 5 YES, 5 NO
    assert Counter(ex.label for ex in out) == {1: 5, 0: 5}
    assert Counter(ex.text for ex in out if ex.label) == {"site 0": 3, "site 1": 2}
    assert Counter(ex.text for ex in out if not ex.label) == {f"site {i}": 1 for i in range(2, 7)}
    assert balanced(examples, seed=0) == out  # seeded
    same = [_ex(0, 1), _ex(1, 1)]
    assert balanced(same) == same and balanced([_ex(0, 1), _ex(1, 0)]) == [_ex(0, 1), _ex(1, 0)]


def test_training_balances_and_tunes_by_default():
    options = TrainOptions()
    assert options.balance_classes and options.tune_threshold
