"""WebRL's ``--add_reward`` in vcoder: the ORM's verdict is the outcome of rollouts whose task has no evaluator
(kind ``llm``) while the phase trains, so it reaches the update, and the phase report says how well the ORM agrees
with the graded ones. A real (untrained) ORM from the tiny VLM, a real Chromium, real Step-GRPO batches."""

from __future__ import annotations

import json
import os
import shutil

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


def test_orm_marks_written_rollouts_and_reports_agreement_on_the_rest(untrained_orm, pool):
    from vcoder.orm import OutcomeRewardModel

    records = [
        {"task_id": "llm-1", "completion": "no html at all", "score": 1.0},  # its score: the ORM's verdict already
        {"task_id": "llm-1", "completion": PAGE, "score": 0.0},
        {"task_id": "counter-0", "completion": PAGE, "score": 1.0},
        {"task_id": "counter-0", "completion": "no html", "score": 0.0},
        {"task_id": "gone", "completion": PAGE, "score": 1.0},  # not in the pool: dropped
    ]
    orm = OutcomeRewardModel.load(untrained_orm, device="cpu")
    (p_page,) = orm_p_yes(orm, [WRITTEN], [PAGE], pool=pool)
    assert 0.0 < p_page < 1.0

    # the written task's rollouts were judged by the ORM at rollout time: marked, never re-scored after the update
    out, report = orm_label_records(untrained_orm, records, [WRITTEN, GENERATED], threshold=0.5)
    assert [r["score"] for r in out] == [1.0, 0.0, 1.0, 0.0]
    assert [r.get("label") for r in out] == ["orm", "orm", None, None]
    # agreement on the two graded rollouts at the ORM folder's threshold (0.5, untuned): labels [1, 0], P(YES)
    # [p_page, 0]: the NO rollout is always right, the YES one when the ORM says YES
    yes = float(p_page >= 0.5)
    assert report["accuracy"] == (yes + 1) / 2 and report["auc"] == 1.0 and report["n"] == 2
    assert report["labelled"] == 2 and report["threshold"] == 0.5 and report["majority_baseline"] == 0.5

    out, report = orm_label_records(None, records, [WRITTEN, GENERATED], threshold=0.5)
    assert [r["score"] for r in out] == [1.0, 0.0, 1.0, 0.0] and report["labelled"] == 0 and report["n"] == 0


def _orm_at(untrained_orm, folder, threshold):
    """A copy of the untrained ORM whose decision threshold is ``threshold``."""
    shutil.copytree(untrained_orm, folder)
    config = json.loads((folder / "orm.json").read_text())
    (folder / "orm.json").write_text(json.dumps({**config, "decision_threshold": threshold}))
    return folder


def _rollout(tiny_vlm_dir, orm_dir, out, task, replies):
    """One Step-GRPO batch of a curriculum phase's trainer on ``task`` (2 trajectories, replayed ``replies``):
    TRL's batch (its ``advantages``, what the loss multiplies) and the recorder's outcomes."""
    from tests.pipelines.step_grpo.scripted import ScriptedTurns
    from vcoder.pipelines.curriculum.config import config_from_mapping, parse_train_recipe
    from vcoder.pipelines.curriculum.modes import build_phase_trainer, task_rows
    from vcoder.pipelines.curriculum.outcomes import OutcomeRecorder
    from vcoder.pipelines.curriculum.train import step_score_scale

    overrides = {"max_steps": 1, "max_turns": 1, "per_device_train_batch_size": 2, "num_generations": 2}
    overrides |= {"max_turn_tokens": 400, "max_completion_length": 2048}
    config = config_from_mapping(
        {
            "trainer": "step_grpo",
            "train_recipe": os.path.join(ROOT, "configs", "step_grpo", "tiny_cpu.yaml"),
            "model_name_or_path": str(tiny_vlm_dir),
            "train_overrides": overrides,
            "kinds": ["counter"],
            "replay_weight": 0.0,
            "orm_model": str(orm_dir),
        }
    )
    parsed = parse_train_recipe(config, model=str(tiny_vlm_dir), output_dir=str(out))
    rows = task_rows([task], trainer="step_grpo", script_args=parsed[0])
    recorder = OutcomeRecorder(scale=lambda r: max(0.0, r) / step_score_scale(parsed[0]))
    trainer = build_phase_trainer(
        "step_grpo", parsed, rows, recorder, success_reward=config.success_reward, tasks=[task], orm_model=str(orm_dir)
    )
    trainer.generator = ScriptedTurns(trainer.chat.tokenizer, replies, trainer.eos_token_ids)
    trainer.model.train()
    batch = trainer._generate_and_score_completions(next(iter(trainer.get_train_dataloader())))
    first = [row[mask.bool()][0].item() for row, mask in zip(batch["advantages"], batch["tool_mask"])]
    return first, [r["score"] for r in recorder.records]


def test_the_orm_verdict_is_the_written_task_reward_in_the_phase_update(tiny_vlm_dir, untrained_orm, tmp_path, pool):
    """The ORM label reaches the loss: flipping its verdict (its decision threshold) flips the advantages TRL's loss
    uses. The written task has the generated counter's scripted cases, which grade the complete page 10 and a reply
    without index.html 0 (advantages +-0.707 whatever an ORM says, as before the fix); the ORM overrides them."""
    import torch

    from tests.pipelines.step_grpo.scripted import counter_replies
    from vcoder.data.site_kinds.pages import site_tasks
    from vcoder.orm import OutcomeRewardModel

    torch.set_num_threads(1)
    counter = site_tasks(1)[0]
    task = {"id": "llm-7", "kind": "llm", "source": "llm", "instruction": counter["instruction"],
            "test_cases": json.loads(counter["test_cases"]), "seed": None}  # fmt: skip
    full = counter_replies(counter["instruction"])[1]
    no_entry = '<file path="style.css">\nbody { color: red; }\n</file>'
    (p_full,) = orm_p_yes(OutcomeRewardModel.load(untrained_orm, device="cpu"), [task], [full], pool=pool)
    assert 1e-6 <= p_full < 1 - 1e-6  # so the two thresholds below give YES and NO

    lenient = _orm_at(untrained_orm, tmp_path / "yes", 1e-6)  # a rendered page is YES
    advantages, scores = _rollout(tiny_vlm_dir, lenient, tmp_path / "a", task, [[full], [no_entry]])
    assert scores == [1.0, 0.0]  # YES / NO (no page): the rollouts' outcomes are the verdicts
    assert advantages == pytest.approx([2**-0.5, -(2**-0.5)], abs=1e-5)

    strict = _orm_at(untrained_orm, tmp_path / "no", 1 - 1e-6)  # every page is NO
    advantages, scores = _rollout(tiny_vlm_dir, strict, tmp_path / "b", task, [[full], [no_entry]])
    assert scores == [0.0, 0.0]  # the complete page's graded 10 does not count: the ORM said NO
    assert advantages == [0.0, 0.0]  # nothing to prefer: the update does not push toward the graded winner


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
    assert all(r["label"] == "orm" and r["score"] in (0.0, 1.0) for r in written)
    assert all("label" not in r for r in graded)
    assert report["orm"]["labelled"] == 2 and report["orm"]["n"] == 2 and report["orm"]["threshold"] == 0.5
    details = json.loads((tmp_path / "phase_0" / "details.json").read_text())
    # the phase's per-task success follows the ORM's verdicts for the written task
    assert details["per_task"]["llm-1"]["success_rate"] == sum(r["score"] for r in written) / 2
