"""The episode's records and settings (pure): tasks from rows, option checks, the step reward, the JSON forms."""

from __future__ import annotations

import pytest

from vcoder.gui.policy import CaseError
from vcoder.sites.episode import as_site_policy, step_reward
from vcoder.sites.records import EpisodeOptions, EpisodeResult, SiteTask, StepRecord
from vcoder.sites.turns import SiteLimits

CASE = {"task": "Click", "steps": [{"action": "click", "target": "#b"}], "expect": [{"target": "#n", "text": "1"}]}


def test_task_from_rows():
    task = SiteTask.from_dict(
        {"instruction": " A counter ", "test_cases": f"[{__import__('json').dumps(CASE)}]", "id": 7, "kind": "ignored"}
    )
    assert task.instruction == " A counter " and task.id == "7" and task.test_cases[0].scriptable
    assert SiteTask.from_dict({"instruction": "x", "test_cases": None}).test_cases == ()
    assert SiteTask.from_dict({"instruction": "x", "reference": "<p>r</p>"}).reference == "<p>r</p>"
    with pytest.raises(ValueError, match="non-empty instruction"):
        SiteTask.from_dict({"test_cases": [CASE]})
    with pytest.raises(CaseError, match="case 0"):
        SiteTask.from_dict({"instruction": "x", "test_cases": [{"steps": []}]})


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"max_turns": 0}, "max_turns"),
        ({"screenshot_weight": 0.0, "gui_weight": 0.0}, "not all 0"),
        ({"gui_weight": -1.0}, "must be >= 0"),
        ({"orm_weight": -1.0}, "orm_weight=-1.0 must be >= 0"),
        ({"reply_timeout_ms": 0}, "reply_timeout_ms"),
        ({"settle_quiet_ms": -1}, "settle_quiet_ms"),
    ],
)
def test_bad_options_raise(changes, says):
    with pytest.raises(ValueError, match=says):
        EpisodeOptions(**changes)


def test_options_are_one_frozen_value_with_help():
    options = EpisodeOptions(limits=SiteLimits(max_files=3))
    with pytest.raises(AttributeError):
        options.max_turns = 9
    assert all(f.metadata.get("help") for f in options.__dataclass_fields__.values())
    assert all(not name.endswith("_s") for name in options.__dataclass_fields__)  # timeouts in ms


@pytest.mark.parametrize(
    ("screenshot", "gui", "weights", "expected"),
    [
        (0.6, 1.0, (5.0, 5.0), 8.0),
        (0.0, 0.0, (5.0, 5.0), 0.0),
        (None, 0.5, (5.0, 5.0), 5.0),  # rescaled to the full weight 10
        (0.5, None, (1.0, 3.0), 2.0),  # 1 * 0.5 * 4 / 1
        (None, None, (5.0, 5.0), None),
        (0.6, 0.2, (0.0, 5.0), 1.0),  # screenshot-only ablation zeroed: gui alone
        (None, 0.2, (0.0, 5.0), 1.0),
        (0.6, None, (5.0, 0.0), 3.0),
    ],
)
def test_step_reward(screenshot, gui, weights, expected):
    options = EpisodeOptions(screenshot_weight=weights[0], gui_weight=weights[1])
    got = step_reward(screenshot, gui, options)
    assert got == (None if expected is None else pytest.approx(expected))


@pytest.mark.parametrize(
    ("screenshot", "gui", "orm", "weights", "expected"),
    [
        (0.6, 1.0, 0.25, (5.0, 5.0, 10.0), 10.5),  # 3 + 5 + 2.5
        (None, 1.0, 0.25, (5.0, 5.0, 10.0), 7.5 * 20 / 15),  # appearance not judged: rescaled to the full 20
        (0.6, 1.0, None, (5.0, 5.0, 10.0), 8.0 * 20 / 10),  # the ORM could not score: the other two rescaled
        (None, None, 0.25, (5.0, 5.0, 10.0), 5.0),  # the ORM alone
        (None, None, None, (5.0, 5.0, 10.0), None),
        (0.6, 1.0, 0.25, (0.0, 0.0, 4.0), 1.0),  # the ORM as the only component
    ],
)
def test_step_reward_with_the_orm_component(screenshot, gui, orm, weights, expected):
    options = EpisodeOptions(screenshot_weight=weights[0], gui_weight=weights[1], orm_weight=weights[2])
    got = step_reward(screenshot, gui, options, orm)
    assert got == (None if expected is None else pytest.approx(expected))


@pytest.mark.parametrize(("screenshot", "gui"), [(0.6, 1.0), (None, 0.5), (0.5, None), (None, None)])
def test_orm_weight_zero_leaves_the_step_reward_unchanged(screenshot, gui):
    options = EpisodeOptions()
    assert options.orm_weight == 0.0  # off by default
    for orm in (None, 0.0, 0.9):
        assert step_reward(screenshot, gui, options, orm) == step_reward(screenshot, gui, options)


def test_json_forms_are_the_stable_contract():
    step = StepRecord(
        turn=1,
        malformed=True,
        files=(),
        screenshot=None,
        gui=None,
        reward=-1.0,
        error="bad path",
        malformed_kind="bad_path",
        reply="r",
        feedback="f",
    )
    assert step.to_dict() == {
        "turn": 1,
        "malformed": True,
        "files": [],
        "screenshot": None,
        "gui": None,
        "reward": -1.0,
        "error": "bad path",
    }
    result = EpisodeResult(steps=(step,), finished=False, final_reward=-1.0, messages=())
    assert result.to_dict() == {"steps": [step.to_dict()], "finished": False, "final_reward": -1.0, "error": None}
    assert result.step_rewards == [-1.0]


def test_policy_adapter():
    async def generate(messages):
        return "x"

    assert as_site_policy(generate, EpisodeOptions()) is generate
    with pytest.raises(TypeError, match="ChatClient or an async callable"):
        as_site_policy("http://127.0.0.1:8000", EpisodeOptions())
