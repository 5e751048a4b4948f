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
def orm_dir(untrained_orm):
    return str(untrained_orm)  # the session's untrained ORM (tests/conftest.py), built once per run


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

    from vcoder.data.prompts import make_site_conversation
    from vcoder.pipelines.curriculum.policy import sample_completions
    from vcoder.rendering import BrowserPool

    torch.manual_seed(0)
    model = AutoModelForImageTextToText.from_pretrained(tiny_vlm_dir, dtype=torch.float32)
    processor = AutoProcessor.from_pretrained(tiny_vlm_dir)
    other = {**TASK, "id": "other"}
    fenced = f"```html\n{PAGE}\n```"
    with BrowserPool(max_pages=2) as pool:
        predict = OrmPredictor(orm_dir, model, processor, samples=3, max_new_tokens=16, pool=pool, threshold=1e-6)
        # P(YES) is 0.0 for a sample without HTML and in (0, 1) for a rendered page (test above), so at a threshold
        # of 1e-6 a share counts the samples holding a page: 2 of 3, 1 of 3, 0 of 2; no samples: None
        samples = [["no html", PAGE, fenced], ["nothing", "still nothing", PAGE], ["a", "b"], []]
        assert predict.shares([TASK, other, TASK, TASK], samples) == [2 / 3, 1 / 3, 0.0, None]
        (p_page,) = orm_p_yes(predict.orm, [TASK], [PAGE], pool=pool)
        predict.threshold = 0.5  # WebRL's: the page counts only if the untrained ORM happens to say YES to it
        assert predict.shares([TASK], [["no html", PAGE, PAGE]]) == [2 * int(p_page >= 0.5) / 3]

        predict.threshold = 1e-6
        torch.manual_seed(1)
        got = predict([TASK, other])
        torch.manual_seed(1)  # the policy's own samples again, counted one by one
        rows = [{"prompt": make_site_conversation(t["instruction"])} for t in (TASK, other)]
        sampled = sample_completions(model, processor, rows, n=3, max_new_tokens=16)
        counted = [
            sum(orm_p_yes(predict.orm, [task], [c], pool=pool)[0] > 0.0 for c in completions) / 3
            for task, completions in zip((TASK, other), sampled)
        ]
    assert got == counted
