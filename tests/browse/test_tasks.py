"""WebArena's task-config template: read, written, round-tripped, validated."""

from __future__ import annotations

import json

import pytest

from vcoder.browse import TaskEval, WebTask, generate_all, read_tasks, write_tasks

# one of WebArena's configs in its own form (config_files/<id>.json), on vcoder's shop
WEBARENA_STYLE = {
    "sites": ["shop"],
    "task_id": 21,
    "require_login": True,
    "storage_state": "./.auth/shop_state.json",
    "start_url": "__SHOP__/#/",
    "geolocation": None,
    "intent_template": "What is the price of {{product}}",
    "instantiation_dict": {"product": "Red Mug"},
    "intent": "What is the price of Red Mug",
    "require_reset": False,
    "eval": {
        "eval_types": ["string_match", "program_html"],
        "reference_answers": {"must_include": ["$12.50"], "fuzzy_match": ["twelve dollars fifty"]},
        "reference_url": "",
        "program_html": [{"url": "last", "locator": "document.title", "required_contents": {"exact_match": "x"}}],
        "string_note": "",
        "reference_answer_raw_annotation": "$12.50",
    },
    "intent_template_id": 159,
    "comment": "a key vcoder does not know",
}


def test_a_webarena_config_round_trips_key_for_key():
    task = WebTask.from_dict(WEBARENA_STYLE)
    assert (
        task.site == "shop"
        and task.route == "/"
        and task.require_login
        and task.extra == {"comment": WEBARENA_STYLE["comment"]}
    )
    out = task.to_dict()
    assert {k: v for k, v in out.items() if k != "site_seed"} == WEBARENA_STYLE  # url_note is WebArena's default
    assert WebTask.from_dict(out) == task


def test_generated_tasks_round_trip_through_a_folder_and_a_file(tmp_path):
    tasks = generate_all(seed=1, per_site=3)
    assert len({t.task_id for t in tasks}) == len(tasks) == 12
    assert read_tasks(write_tasks(tasks, tmp_path / "config_files")) == tasks
    assert read_tasks(write_tasks(tasks, tmp_path / "test.raw.json")) == tasks
    one = json.loads((tmp_path / "config_files" / "0.json").read_text())
    assert set(one) >= {"sites", "task_id", "require_login", "storage_state", "start_url", "intent", "eval"}
    assert set(one["eval"]) >= {"eval_types", "reference_answers", "reference_url", "program_html"}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"sites": ["shopping"]}, "did you mean 'shop'"),
        ({"start_url": "__FORUM__/#/"}, "must start with __SHOP__"),
        ({"eval": {"eval_types": ["dom_match"]}}, "eval_types"),
        ({"eval": {"eval_types": ["url_match"], "reference_url": ""}}, "reference_url"),
    ],
)
def test_bad_configs_are_refused_with_the_fix(change, message):
    with pytest.raises(ValueError, match=message):
        WebTask.from_dict({**WEBARENA_STYLE, **change})


def test_string_match_needs_known_approaches():
    with pytest.raises(ValueError, match="exact_match"):
        TaskEval(("string_match",), reference_answers={"regex": "x"})
