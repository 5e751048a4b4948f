"""WebRL's ``--add_reward`` in vcoder: the ORM's verdict becomes the outcome of rollouts whose task has no evaluator
(kind ``llm``), and the phase report says how well the ORM agrees with the graded ones. A real (untrained) ORM from
the tiny VLM, a real Chromium; the last test runs one real Step-GRPO phase."""

from __future__ import annotations

import json
import os

import pytest

from tests.pipelines.runs import ROOT
from vcoder.pipelines.curriculum.orm import has_evaluator, orm_label_records, orm_p_yes

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CASES = [{"task": "Click +", "expected_result": "The count shows 1"}]
WRITTEN = {"id": "llm-1", "kind": "llm", "source": "llm", "instruction": "A counter page with a plus button",
           "test_cases": CASES, "seed": None}  # fmt: skip
GENERATED = {**WRITTEN, "id": "counter-0", "kind": "counter", "source": "generator", "seed": 0}
PAGE = "<html><body><h1>Counter</h1><p id='count'>0</p><button id='inc'>+</button></body></html>"


def test_written_tasks_have_no_evaluator():
    assert not has_evaluator(WRITTEN) and has_evaluator(GENERATED)


def test_orm_labels_written_tasks_and_reports_agreement_on_the_rest(untrained_orm, pool):
    from vcoder.orm import OutcomeRewardModel

    records = [
        {"task_id": "llm-1", "completion": "no html at all", "score": 0.9},
        {"task_id": "llm-1", "completion": PAGE, "score": 0.0},
        {"task_id": "counter-0", "completion": PAGE, "score": 1.0},
        {"task_id": "counter-0", "completion": "no html", "score": 0.0},
        {"task_id": "gone", "completion": PAGE, "score": 1.0},  # not in the pool: dropped
    ]
    orm = OutcomeRewardModel.load(untrained_orm, device="cpu")
    (p_page,) = orm_p_yes(orm, [WRITTEN], [PAGE], pool=pool)
    assert 0.0 < p_page < 1.0

    # at a threshold of 1e-6 the verdict is "a page was rendered": the written task's rollouts become 0 and 1, whatever
    # the graded scores said (0.9 and 0.0); the generator task's keep theirs
    out, report = orm_label_records(untrained_orm, records, [WRITTEN, GENERATED], threshold=0.5, orm_threshold=1e-6)
    assert [r["score"] for r in out] == [0.0, 1.0, 1.0, 0.0]
    assert [r.get("label") for r in out] == ["orm", "orm", None, None]
    assert [r.get("graded_score") for r in out[:2]] == [0.9, 0.0]
    assert out[1]["p_yes"] == pytest.approx(p_page, abs=1e-6)
    # agreement on the two graded rollouts: labels [1, 0], P(YES) [p_page, 0] -> both right at 1e-6; AUC 1
    assert report == {
        "accuracy": 1.0,
        "auc": 1.0,
        "majority_baseline": 0.5,
        "n": 2,
        "labelled": 2,
        "threshold": 1e-6,
    }

    # the ORM folder's own threshold (0.5, untuned): the page is YES only if the untrained ORM says so
    out, report = orm_label_records(untrained_orm, records, [WRITTEN, GENERATED], threshold=0.5)
    yes = float(p_page >= 0.5)
    assert [r["score"] for r in out[:2]] == [0.0, yes] and report["threshold"] == 0.5
    # graded labels [1, 0], predictions [yes, 0]: the NO rollout is always right, the YES one when the ORM says YES
    assert report["accuracy"] == (yes + 1) / 2

    out, report = orm_label_records(None, records, [WRITTEN, GENERATED], threshold=0.5)
    assert [r["score"] for r in out] == [0.9, 0.0, 1.0, 0.0] and report["labelled"] == 0 and report["n"] == 0


def test_a_step_grpo_phase_labels_written_tasks_with_the_orm(tiny_vlm_dir, untrained_orm, tmp_path):
    from vcoder.pipelines.curriculum.config import config_from_mapping
    from vcoder.pipelines.curriculum.phase import read_jsonl, run_phase

    config = config_from_mapping(
        {
            "trainer": "step_grpo",
            "train_recipe": os.path.join(ROOT, "configs", "step_grpo", "tiny_cpu.yaml"),
            "model_name_or_path": str(tiny_vlm_dir),
            "train_overrides": {
                "max_steps": 1,
                "max_turns": 1,
                "per_device_train_batch_size": 4,
                "num_generations": 2,
            },
            "phases": 1,
            "kinds": ["counter"],
            "initial_pool_size": 2,
            "new_tasks_per_phase": 0,
            "replay_weight": 0.0,
            "orm_model": str(untrained_orm),
        }
    )
    report = run_phase(config, tmp_path, 0, [WRITTEN, GENERATED], [], str(tiny_vlm_dir))
    outcomes = read_jsonl(tmp_path / "phase_0" / "outcomes.jsonl")
    written = [r for r in outcomes if r["task_id"] == "llm-1"]
    graded = [r for r in outcomes if r["task_id"] == "counter-0"]
    assert len(written) == 2 and len(graded) == 2  # one step: both tasks, 2 episodes each
    assert all(r["label"] == "orm" and r["score"] in (0.0, 1.0) and "graded_score" in r for r in written)
    assert all("label" not in r for r in graded)
    assert report["orm"]["labelled"] == 2 and report["orm"]["n"] == 2 and report["orm"]["threshold"] == 0.5
    details = json.loads((tmp_path / "phase_0" / "details.json").read_text())
    # the phase's per-task success follows the ORM's verdicts for the written task
    assert details["per_task"]["llm-1"]["success_rate"] == sum(r["score"] for r in written) / 2
