"""Offline agent trajectories: scripted attempts (some flawed), the real environment's feedback, the fixing turn,
<finish/>; the feedback is what the environment returns when the same replies are replayed."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from vcoder.data.prompts import make_site_conversation
from vcoder.data.site_kinds import BROKEN, kind_tasks, make_site, split_of
from vcoder.sites.trajectories import (
    FINISH_NOTE,
    TrajectoryOptions,
    episode_options,
    file_reply,
    other_site,
    plan,
    replay_policy,
    site_files,
    write_trajectories,
)
from vcoder.sites.turns import parse_turn

TASKS = kind_tasks(4, split="train", kinds=("todo", "navigation", "message", "table"))


def _options(**kw) -> TrajectoryOptions:
    return TrajectoryOptions(expect_timeout_ms=1000, episode={"render_width": 800, "render_height": 600}, **kw)


def test_replies_parse_into_the_sites_files():
    site = make_site("cart", 2)
    for layout in ("single", "split"):
        files = site_files(site, layout)
        turn = parse_turn(file_reply(files, "Here it is."))
        assert turn.ok and {w.path: w.content for w in turn.writes} == {p: t.rstrip("\n") for p, t in files.items()}
    split = site_files(site, "split")
    assert set(split) == {"index.html", "style.css", "app.js"} and '<script src="app.js">' in split["index.html"]
    assert "app.js" not in site_files(make_site("cart", 2, broken="handler_missing"), "split")


def test_plan_fixes_only_what_the_flaw_changed():
    task = kind_tasks(1, split="train", kinds=("tabs",))[0]
    seen = set()
    for i in range(40):
        planned = plan(task, i, _options(flawed_share=0.75))
        seen.add((planned["flaw"], planned["layout"]))
        turns = [parse_turn(r) for r in planned["replies"]]
        assert all(t.ok for t in turns[1:]) and turns[-1].finish and planned["replies"][-1] == FINISH_NOTE
        assert turns[0].ok == (planned["flaw"] != "cut_off")
        assert len(turns) == (2 if planned["flaw"] is None else 3)
        if planned["flaw"] == "wrong_label" and planned["layout"] == "split":
            assert [w.path for w in turns[1].writes] == ["index.html"]  # style.css and app.js did not change
    assert len(seen) >= 8  # right and flawed first attempts (the four flaws), both layouts
    assert plan(task, 3, _options()) == plan(task, 3, _options())
    assert all(plan(task, i, _options(flawed_share=0.0))["flaw"] is None for i in range(10))


def test_wrong_values_is_another_requests_right_site():
    task = kind_tasks(1, split="train", kinds=("counter",))[0]
    for i in range(6):
        planned = plan(task, i, _options(flawed_share=1.0, flaws=("wrong_values",), layouts=("single",)))
        first, fix = (parse_turn(r).writes[0].content for r in planned["replies"][:2])
        assert planned["flaw"] == "wrong_values" and first != fix
        assert fix == site_files(make_site("counter", task["seed"]), "single")["index.html"].rstrip("\n")
        other = other_site(task, random.Random(i))
        assert other["test_cases"] != json.loads(task["test_cases"])  # another content, not just another title
        seed = next(s for s in range(task["seed"] + 1, task["seed"] + 10_001) if make_site("counter", s) == other)
        assert split_of("counter", seed) == "train"


def test_bad_options():
    with pytest.raises(ValueError, match="flaws"):
        TrajectoryOptions(flaws=("wrong_values", "typo"))
    with pytest.raises(ValueError, match="flawed_share"):
        TrajectoryOptions(flawed_share=1.5)
    with pytest.raises(ValueError, match="layouts"):
        TrajectoryOptions(layouts=("single", "bundle"))
    with pytest.raises(ValueError, match="style"):
        TrajectoryOptions(style="dark")


def test_accent_style_writes_the_accent_sites():
    task = kind_tasks(1, split="train", kinds=("counter",))[0]
    for i in range(6):
        planned = plan(task, i, _options(style="accent", layouts=("single",)))
        last_site = parse_turn(planned["replies"][-2]).writes[0].content
        assert last_site == make_site("counter", task["seed"], style="accent")["html"].rstrip("\n")


@pytest.mark.browser
def test_trajectories_carry_the_environments_feedback_and_end_passing(pool, tmp_path):
    from vcoder.gui.scripted import ScriptedPolicy
    from vcoder.sites.episode import run_site_episode
    from vcoder.sites.grading import SiteGrader

    # a choice seed whose trajectories start right, with a broken site and with a cut-off (malformed) reply
    def flaws(seed):
        return {plan(t, i, _options(seed=seed))["flaw"] for i, t in enumerate(TASKS)}

    seed = next(s for s in range(100) if {None, "cut_off"} <= flaws(s) and flaws(s) & set(BROKEN))
    options = _options(seed=seed)
    summary = write_trajectories(tmp_path / "traj.jsonl", TASKS, pool=pool, options=options)
    assert summary["written"] == 4 and summary["dropped"] == [] and 2 <= summary["flawed"] <= 3
    records = [json.loads(line) for line in (tmp_path / "traj.jsonl").read_text().splitlines()]
    metas = [json.loads(line) for line in (tmp_path / "traj.jsonl.meta.jsonl").read_text().splitlines()]
    assert all(sorted(r) == ["messages"] for r in records)
    assert [m["id"] for m in metas] == [t["id"] for t in TASKS]

    grader = SiteGrader(pool=pool, scripted=ScriptedPolicy(expect_timeout_ms=1000))

    async def replay(task, replies):
        return await run_site_episode(
            task, replay_policy(replies), grader=grader, options=episode_options(len(replies), options.episode)
        )

    for task, record, meta in zip(TASKS, records, metas):
        messages = record["messages"]
        roles = [m["role"] for m in messages]
        n = len(roles) // 2
        assert roles == ["system", "user"] + ["assistant", "user"] * (n - 1) + ["assistant"]
        assert messages[:2] == make_site_conversation(task["instruction"])
        replies = [m["content"] for m in messages if m["role"] == "assistant"]
        assert all(parse_turn(r).ok for r in replies[1:]) and parse_turn(replies[-1]).finish
        assert len(replies) == (2 if meta["flaw"] is None else 3)
        # the feedback turns are the environment's own: replaying the replies gives the same conversation
        result = asyncio.run(replay(task, replies))
        assert list(result.messages) == messages
        assert result.finished and result.steps[-1].gui == 1.0  # the final site passes every scripted case
        feedback = [m["content"] for m in messages[3::2]]
        if meta["flaw"] is None:
            assert result.steps[0].gui == 1.0 and "Failed test cases" not in feedback[0]
        else:
            assert result.steps[0].gui != 1.0 and ("Failed test cases:" in feedback[0] or "rejected" in feedback[0])
            assert "passed fully" in feedback[1] and "Failed test cases" not in feedback[1]
        assert meta["gui"] == [s.gui for s in result.steps]
        assert meta["flawed_turns"] == ([] if meta["flaw"] is None else [1])
