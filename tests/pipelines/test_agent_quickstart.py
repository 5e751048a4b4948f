"""`vcoder quickstart --agent --fast` end to end, and the held-out scoring's arithmetic on real episode records."""

from __future__ import annotations

import json

import pytest


def _step(turn, *, malformed=False, gui=None):
    from vcoder.sites.records import StepRecord

    reward = -1.0 if malformed else 10.0 * (gui or 0.0)
    return StepRecord(turn=turn, malformed=malformed, files=(), screenshot=None, gui=gui, reward=reward, error=None)


def _result(*steps, finished=False):
    from vcoder.sites.records import EpisodeResult

    return EpisodeResult(steps=tuple(steps), finished=finished, final_reward=None, messages=())


def test_episode_scores_read_the_first_and_the_final_site():
    from vcoder.pipelines.agent_quickstart import episode_scores, summarize

    # a malformed first turn leaves an empty site (0), the fix passes 2 of 3 cases, then a finish
    fixed = episode_scores(_result(_step(1, malformed=True), _step(2, gui=2 / 3), _step(3, gui=2 / 3), finished=True))
    assert fixed["first_turn_accuracy"] == 0.0 and fixed["last_turn_accuracy"] == pytest.approx(2 / 3)
    assert fixed["well_formed_turns"] == 2 and fixed["turns"] == 3 and fixed["finished"]
    # a right first attempt whose later reply is malformed: the final site is still the right one
    kept = episode_scores(_result(_step(1, gui=1.0), _step(2, malformed=True)))
    assert kept["first_turn_accuracy"] == kept["last_turn_accuracy"] == 1.0 and not kept["finished"]
    never = episode_scores(_result(_step(1, malformed=True)))
    assert never["last_turn_accuracy"] == 0.0 and never["well_formed_turns"] == 0
    assert episode_scores(None)["turns"] == 0  # an episode that raised scores nothing

    mean = summarize([fixed, kept, never])
    assert mean["accuracy"] == mean["last_turn_accuracy"] == pytest.approx((2 / 3 + 1.0) / 3)
    assert mean["first_turn_accuracy"] == pytest.approx(1 / 3)
    assert mean["well_formed"] == pytest.approx(3 / 6)  # well-formed replies over all replies, not over episodes
    assert mean["tasks"] == 3 and mean["errors"] == 0


def test_accuracy_by_kind_groups_tasks_by_the_kind_in_their_id():
    from vcoder.pipelines.agent_quickstart import accuracy_by_kind

    tasks = [
        {"id": "counter-3", "last_turn_accuracy": 1.0},
        {"id": "message-7", "last_turn_accuracy": 0.5},
        {"id": "counter-12", "last_turn_accuracy": 0.0},
    ]
    assert accuracy_by_kind(tasks) == {"counter": 0.5, "message": 0.5}
    assert list(accuracy_by_kind(tasks)) == ["counter", "message"]


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(1800)  # every stage for real, shrunk: ~3 min on 2 idle cores, 10+ on a shared one
def test_fast_agent_quickstart_writes_everything(tmp_path, capsys):
    import torch

    from vcoder.cli import main
    from vcoder.pipelines.agent_quickstart import FAST, HELDOUT_SEED, KINDS

    out = tmp_path / "qs"
    threads = torch.get_num_threads()
    try:
        assert main(["quickstart", "--agent", "--fast", "--out", str(out), "--seed", "3"]) == 0
    finally:
        torch.set_num_threads(threads)
    printed = capsys.readouterr().out
    assert "Site tasks of the test split (digest" in printed and str(out / "summary.json") in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3 and summary["fast"] is True and summary["wall_s"] > 0
    assert set(summary["heldout"]) == {"untrained", "sft", "step_grpo"}
    evals = {name: json.loads((out / "eval" / f"{name}.json").read_text()) for name in summary["heldout"]}
    assert all(e["mean"]["errors"] == 0 for e in evals.values())  # no episode cut short by the machine
    for figures in summary["heldout"].values():
        assert set(figures) == {"accuracy", "well_formed", "first_turn_accuracy", "last_turn_accuracy"}
        assert all(0.0 <= v <= 1.0 for v in figures.values())
    # the trajectories were played in the environment: every one ends in a site that passes its cases
    meta = [json.loads(line) for line in (out / "trajectories" / "train.jsonl.meta.jsonl").read_text().splitlines()]
    assert len(meta) == summary["trajectories"]["written"] > 0 and all(m["gui"][-1] == 1.0 for m in meta)
    assert {m["kind"] for m in meta} <= set(KINDS) and {m["split"] for m in meta} == {"train"}
    # the scored tasks are the fixed test split, whatever the seed, and the summary says so with the split's digest
    ids = [t["id"] for t in evals["sft"]["tasks"]]
    assert len(ids) == FAST["n_heldout"] and ids == [t["id"] for t in evals["step_grpo"]["tasks"]]
    from vcoder.data.site_kinds import kind_tasks
    from vcoder.data.splits import split_digest

    scored = kind_tasks(FAST["n_heldout"], HELDOUT_SEED, split="test", kinds=KINDS)
    assert ids == [r["id"] for r in scored] and summary["split"] == "test"
    assert summary["split_digest"] == split_digest(r["content_key"] for r in scored)
    train = kind_tasks(FAST["n_train"], 3, split="train", kinds=KINDS)
    assert summary["train_digest"] == split_digest(r["content_key"] for r in train) != summary["split_digest"]
    for model in ("model-init", "sft", "step_grpo"):
        assert (out / model / "config.json").exists()
    by_kind = summary["heldout_by_kind"]["sft"]
    assert set(by_kind) <= set(KINDS) and all(0.0 <= v <= 1.0 for v in by_kind.values())
    assert summary["step_reward"]["steps"] == FAST["grpo_steps"]
    assert (out / "curves" / "report.html").exists()
