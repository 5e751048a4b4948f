"""Curriculum pieces on hand-made numbers: the band filter, the replay filter, duplicates, the offline mix, the
outcome summary, the recorder and the recipe checks (no model, no browser)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections import Counter

import pytest

from vcoder.pipelines.curriculum.config import CurriculumConfigError, config_from_mapping, load_config
from vcoder.pipelines.curriculum.filters import band_reason, filter_candidates, ngram_overlap, normalise_candidate
from vcoder.pipelines.curriculum.outcomes import OutcomeRecorder, successes, summarise
from vcoder.pipelines.curriculum.replay import grow_buffer, replay_filter
from vcoder.pipelines.curriculum.tasks import choose_mix, initial_pool, new_offline_tasks, task_split

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BASE = {"train_recipe": "configs/tiny_cpu_grpo.yaml", "model_name_or_path": "outputs/tiny-model"}


def _task(tid, instruction, kind="llm"):
    cases = [{"task": "Click the button", "expected_result": "The count shows 1"}]
    return {"id": tid, "kind": kind, "source": "llm", "instruction": instruction, "test_cases": cases, "seed": None}


def test_band_reason_edges_are_webrl_closed_band():
    got = [band_reason(p, low=0.05, high=0.75) for p in (None, 0.0, 0.0499, 0.05, 0.4, 0.75, 0.7501, 1.0)]
    assert got == ["unpredicted", "too_hard", "too_hard", None, None, None, "too_easy", "too_easy"]


def test_replay_filter_window_is_open_below_closed_above():
    probs = [0.5, 0.5001, 0.95, 0.9501, 0.1, None, 0.7]
    kept, counts = replay_filter(probs, low=0.5, high=0.95)
    assert kept == [1, 2, 6]
    assert counts == {"kept": 3, "dropped_easy": 1, "dropped_unlikely": 3}


def test_filter_counts_each_reason_and_keeps_band():
    pool = [_task("t0", "Build a counter page with a plus button and a reset button")]
    cands = [
        _task("a", "Build a counter page with a plus button and a reset button please"),  # near-duplicate of t0
        _task("b", "Create a todo list where items can be added and removed"),
        _task("c", "Make a signup form that validates the email address field"),
        _task("d", "Design a tabbed panel with three tabs showing different text"),
        _task("e", "Write an accordion with four sections that expand on click"),
        _task("f", "Write an accordion with four sections that expand on click"),  # dup of e (accepted earlier)
        _task("t0", "An entirely different instruction about a modal dialog box"),  # same id as a pool task
    ]
    table = {"b": 0.3, "c": 0.01, "d": 0.9, "e": None}
    seen = []

    def predict(tasks):
        seen.append([t["id"] for t in tasks])
        return [table[t["id"]] for t in tasks]

    accepted, rejected, predicted = filter_candidates(cands, pool, predict, low=0.05, high=0.75, n=3, max_overlap=0.6)
    assert [t["id"] for t in accepted] == ["b"] and predicted == [0.3]
    assert accepted[0]["predicted_success"] == 0.3
    assert rejected == Counter({"duplicate": 3, "too_hard": 1, "too_easy": 1, "unpredicted": 1})
    assert seen == [["b", "c", "d", "e"]]  # duplicates never reach the (costly) predictor


def test_generator_tasks_are_deduplicated_by_id_only():
    pool = initial_pool(["counter"], 1, seed=0)
    same_template = new_offline_tasks(["counter"], phase=0, base_seed=0)[0]
    assert ngram_overlap(same_template["instruction"], pool[0]["instruction"], n=3) > 0.5
    written = {**same_template, "id": "llm-p0-0", "source": "llm"}
    accepted, rejected, _ = filter_candidates(
        [same_template, dict(pool[0]), written], pool, lambda ts: [0.5] * len(ts), low=0.05, high=0.75, max_overlap=0.5
    )
    assert [t["id"] for t in accepted] == ["counter-10000"] and rejected == Counter({"duplicate": 2})


def test_ngram_overlap_known_values():
    assert ngram_overlap("a b c d", "a b c d", n=2) == 1.0
    assert ngram_overlap("a b c d", "x b c y", n=2) == pytest.approx(1 / 3)
    assert ngram_overlap("", "a b", n=2) == 0.0


def test_normalise_accepts_webgen_bench_and_structured_cases():
    structured = {
        "instruction": "A counter (id count) with a + button (id inc)",
        "ui_instruct": [
            {
                "task": "Click +",
                "expected_result": "count is 1",
                "steps": [{"action": "click", "target": "#inc"}],
                "expect": [{"target": "#count", "text": "1"}],
            }
        ],
    }
    task = normalise_candidate(structured, task_id="x")
    assert task["id"] == "x" and task["source"] == "llm" and task["test_cases"][0]["steps"][0]["target"] == "#inc"
    bad = [
        "not a mapping",
        {"instruction": "too short", "ui_instruct": structured["ui_instruct"]},
        {"instruction": "A page with no test cases at all"},
        {"instruction": "A page whose case lacks its task", "ui_instruct": [{"expected_result": "x"}]},
        {"instruction": "A page with an unknown action", "ui_instruct": [{"task": "t", "steps": [{"action": "fly"}]}]},
    ]
    assert [normalise_candidate(b, task_id="y") for b in bad] == [None] * len(bad)


def test_choose_mix_prefers_band_middle_then_nearest():
    rates = {"screenshot-0": 0.9, "screenshot-1": 0.3, "screenshot-2": 0.0}
    kinds = list(rates)
    assert choose_mix(rates, kinds, 3, low=0.05, high=0.75) == ["screenshot-1"] * 3
    assert choose_mix({**rates, "screenshot-1": None}, kinds, 2, low=0.05, high=0.75) == ["screenshot-1"] * 2
    # none in the band: the nearest kinds (0.8 is 0.05 away, 0.0 is 0.05 away) share the tasks
    assert choose_mix({"a": 0.8, "b": 0.0, "c": 1.0}, ["a", "b", "c"], 4, low=0.05, high=0.75) == ["a", "b", "a", "b"]


def test_offline_tasks_are_fresh_and_deterministic():
    pool = initial_pool(["screenshot-0", "counter"], 4, seed=0)
    # screenshot seeds skip the pages outside the train split (seed 0's page is a validation or test page)
    assert [t["id"] for t in pool] == ["screenshot-0-1", "counter-0", "screenshot-0-2", "counter-1"]
    assert {task_split(t["kind"], t["seed"]) for t in pool if t["kind"] == "screenshot-0"} == {"train"}
    assert task_split("screenshot-0", 0) != "train"
    assert pool[1]["test_cases"] and pool[1]["test_cases"][0]["steps"]
    new = new_offline_tasks(["counter", "counter"], phase=0, base_seed=0)
    assert [t["id"] for t in new] == ["counter-10000", "counter-10001"]
    assert new == new_offline_tasks(["counter", "counter"], phase=0, base_seed=0)


def test_summary_and_successes_on_known_records():
    tasks = [{"id": "a", "kind": "k"}, {"id": "b", "kind": "k"}, {"id": "c", "kind": "j"}]
    records = [
        {"task_id": "a", "completion": "x", "score": 1.0},
        {"task_id": "a", "completion": "y", "score": 0.25},
        {"task_id": "b", "completion": "z", "score": 0.5},
        {"task_id": "zz", "completion": "w", "score": 1.0},  # not a pool task: ignored
    ]
    s = summarise(records, tasks, threshold=0.5)
    assert s["success_rate"] == pytest.approx(2 / 3) and s["n_rollouts"] == 3
    assert s["per_task"]["a"] == {"n": 2, "mean": 0.625, "success_rate": 0.5}
    assert s["per_kind"] == {"k": pytest.approx(2 / 3), "j": None}
    assert s["failed"] == [] and s["succeeded"] == ["a", "b"]
    items = successes(records, tasks, threshold=0.5, phase=2)
    assert [(i["task"]["id"], i["completion"], i["phase"]) for i in items] == [("a", "x", 2), ("b", "z", 2)]
    # the group mean each was sampled with: its recorded advantage is score - baseline (1.0 - 0.625, 0.5 - 0.5)
    assert [i["baseline"] for i in items] == [0.625, 0.5]
    buffer = grow_buffer(items, items + [{"task": {"id": "c"}, "completion": "n", "score": 1}], max_items=2)
    assert [(i["task"]["id"], i["completion"]) for i in buffer] == [("a", "x"), ("b", "z")]


def test_recorder_keeps_values_name_and_asyncness():
    recorder = OutcomeRecorder(scale=lambda v: v / 10)

    async def step_reward(completions, **kwargs):
        return [12.0, None, 5.0]

    def plain_reward(completions, **kwargs):
        return [0.5, 0.25, 1.0]

    wrapped = recorder.wrap(step_reward)
    assert wrapped.__name__ == "step_reward" and asyncio.iscoroutinefunction(wrapped)
    completions = [[{"role": "assistant", "content": "one"}], "two", "three"]
    assert asyncio.run(wrapped(completions, id=["a", "b", "c"])) == [12.0, None, 5.0]
    assert recorder.wrap(plain_reward)(completions, id=["a", "b", "c"]) == [0.5, 0.25, 1.0]
    got = [(r["task_id"], r["completion"], r["score"]) for r in recorder.records]
    assert got == [
        ("a", "one", 1.0),
        ("c", "three", 0.5),
        ("a", "one", 0.05),
        ("b", "two", 0.025),
        ("c", "three", 0.1),
    ]


def test_config_errors_name_the_fix(tmp_path):
    with pytest.raises(CurriculumConfigError, match=r"'band_hi'.*did you mean 'band_high'"):
        config_from_mapping({**BASE, "band_hi": 0.7})
    with pytest.raises(CurriculumConfigError, match="beta > 0"):
        config_from_mapping({**BASE, "beta": 0.0})
    with pytest.raises(CurriculumConfigError, match="did you mean 'step_grpo'"):
        config_from_mapping({**BASE, "trainer": "stepgrpo"})
    with pytest.raises(ValueError, match="did you mean 'screenshot-1'"):
        config_from_mapping({**BASE, "kinds": ["screenshot-1", "screenshot1"]})
    with pytest.raises(CurriculumConfigError, match="writer_base_url and writer_model go together"):
        config_from_mapping({**BASE, "writer_base_url": "http://127.0.0.1:1"})
    # Step-GRPO trajectories replay too (recorded tokens and step advantages): no longer refused
    assert config_from_mapping({**BASE, "trainer": "step_grpo", "kinds": ["counter"], "replay_weight": 0.5})
    with pytest.raises(CurriculumConfigError, match="train_overrides sets"):
        config_from_mapping({**BASE, "train_overrides": {"beta": 0.1}})
    path = tmp_path / "r.yaml"
    path.write_text("train_recipe: x\nmodel_name_or_path: y\nphase: 2\n")
    with pytest.raises(CurriculumConfigError, match=r"'phase' \(did you mean 'phases'\?\)"):
        load_config(str(path))


def test_differences_name_the_changed_keys():
    a = config_from_mapping({**BASE, "band_high": 0.75})
    b = config_from_mapping({**BASE, "band_high": 0.6, "phases": 9})
    assert b.differences(a.to_dict()) == ["band_high: 0.75 -> 0.6"]
    assert a.fingerprint() != b.fingerprint()
    assert a.fingerprint() == config_from_mapping({**BASE, "phases": 7}).fingerprint()


@pytest.mark.parametrize(
    "name",  # the web agent's recipes (trainer: web_agent) are checked in tests/pipelines/test_web_agent.py
    sorted(n for n in os.listdir(os.path.join(ROOT, "configs", "curriculum")) if not n.startswith("web_agent")),
)
def test_recipes_parse_with_their_training_recipe(name, tmp_path):
    from vcoder.pipelines.curriculum.config import parse_train_recipe

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({}))
    config = load_config(os.path.join(ROOT, "configs", "curriculum", name))
    config = dataclasses.replace(config, train_overrides={**config.train_overrides, "use_cpu": True})  # no GPU here
    assert config.beta > 0 and (config.band_low, config.band_high) == (0.05, 0.75)
    script_args, training_args, _ = parse_train_recipe(config, model=str(model), output_dir=str(tmp_path / "out"))
    assert training_args.beta == config.beta and training_args.save_strategy == "no"
    if name.startswith("tiny"):
        assert config.phases == 3 and not config.uses_writer and config.trainer == "grpo"
    else:
        assert config.uses_writer and config.trainer == "step_grpo" and training_args.num_generations == 5
        from vcoder.pipelines.step_grpo.train import check_step_config

        check_step_config(script_args, training_args)


def test_kind_predictor_uses_kind_rate_overall_rate_and_parents():
    from vcoder.pipelines.curriculum.phase import kind_predictor

    summary = {
        "per_kind": {"screenshot-0": None, "screenshot-1": 0.3},
        "success_rate": 0.2,
        "per_task": {"p": {"success_rate": 0.1}, "q": {"success_rate": 0.4}},
    }
    tasks = [
        {"kind": "screenshot-0", "source": "generator"},
        {"kind": "screenshot-1", "source": "generator"},
        {"kind": "llm", "source": "llm", "parents": ["p", "q"]},
        {"kind": "llm", "source": "llm", "parents": []},
    ]
    assert kind_predictor(summary)(tasks) == [0.2, 0.3, pytest.approx(0.25), None]
