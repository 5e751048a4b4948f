"""The ORM's part in the curriculum with a real (untrained) ORM folder built from the tiny VLM by vcoder.orm's
``make_orm`` and a real Chromium: P(YES) per rollout, the agreement report, and the success predictor."""

from __future__ import annotations

import pytest

from vcoder.pipelines.curriculum.orm import EMPTY_REPORT, OrmPredictor, orm_agreement, orm_p_yes

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TASK = {
    "id": "counter-0",
    "kind": "counter",
    "instruction": "Write a page with a counter (id count) and a plus button (id inc)",
    "test_cases": [{"task": "Click +", "expected_result": "The count shows 1"}],
}
PAGE = "<html><body><h1>Counter</h1><p id='count'>0</p><button id='inc'>+</button></body></html>"


@pytest.fixture(scope="module")
def orm_dir(tiny_vlm_dir, tmp_path_factory):
    from vcoder.orm import make_orm

    return str(make_orm(tiny_vlm_dir, tmp_path_factory.mktemp("orm") / "orm"))


def test_p_yes_and_agreement(orm_dir):
    from vcoder.orm import OutcomeRewardModel
    from vcoder.rendering import BrowserPool

    completions = ["no html here at all", f"```html\n{PAGE}\n```", PAGE]
    with BrowserPool(max_pages=2) as pool:
        probs = orm_p_yes(OutcomeRewardModel.load(orm_dir, device="cpu"), [TASK] * 3, completions, pool=pool)
    assert probs[0] == 0.0 and all(0.0 < p < 1.0 for p in probs[1:])
    assert probs[1] == pytest.approx(probs[2], abs=1e-6)  # the same page, fenced or bare

    labels = [0, 1, 0]
    records = [{"task_id": "counter-0", "completion": c, "score": float(y)} for c, y in zip(completions, labels)]
    records.append({"task_id": "not-in-pool", "completion": PAGE, "score": 1.0})  # ignored
    report = orm_agreement(orm_dir, records, [TASK], threshold=0.5)
    assert sorted(report) == ["accuracy", "auc", "majority_baseline", "n"]
    assert report["n"] == 3 and report["majority_baseline"] == pytest.approx(2 / 3)
    assert report["accuracy"] == pytest.approx(sum(int(p >= 0.5) == y for p, y in zip(probs, labels)) / 3)
    # the one YES rollout ties the second NO one (same page) and beats the first (P = 0): AUC = (1 + 0.5) / 2
    assert report["auc"] == pytest.approx(0.75)
    assert orm_agreement(None, records, [TASK], threshold=0.5) == EMPTY_REPORT


def test_orm_predictor_gives_shares_of_samples(orm_dir, tiny_vlm_dir):
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from vcoder.rendering import BrowserPool

    torch.manual_seed(0)
    model = AutoModelForImageTextToText.from_pretrained(tiny_vlm_dir, dtype=torch.float32)
    processor = AutoProcessor.from_pretrained(tiny_vlm_dir)
    with BrowserPool(max_pages=2) as pool:
        predict = OrmPredictor(orm_dir, model, processor, samples=2, max_new_tokens=16, pool=pool)
        got = predict([TASK, {**TASK, "id": "other"}])
    assert len(got) == 2 and all(p in (0.0, 0.5, 1.0) for p in got)
