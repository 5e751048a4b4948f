"""The ORM's view of a browsing trajectory: the prompt's layout and its bounds (pure; the judged outcome on a real
episode is in tests/pipelines/test_web_agent_writer.py)."""

from __future__ import annotations

import pytest

from vcoder.orm.trajectory import LIMITS, QUESTION, Trajectory, judge_trajectories, trajectory_prompt


def test_the_prompt_shows_intent_actions_answer_and_final_page_in_order():
    text = trajectory_prompt(
        Trajectory(
            "  What is the price of the\nRed Lamp? ",
            ('do(action="Click", element="3")', 'do(action="Click", element="9")  (failed: no element 9)'),
            "<h1>Red Lamp</h1>\n<span>$12.50</span>",
            answer="$12.50",
            route="/product/3",
        )
    )
    lines = text.splitlines()
    assert lines[0] == "Task: What is the price of the Red Lamp?"
    assert lines[1:4] == [
        "Actions:",
        '1. do(action="Click", element="3")',
        '2. do(action="Click", element="9") (failed: no element 9)',  # one line, spaces collapsed
    ]
    assert lines[4] == "Answer: $12.50"
    assert lines[5:8] == ["Final page (/product/3):", "<h1>Red Lamp</h1>", "<span>$12.50</span>"]
    assert lines[-1] == QUESTION


def test_long_trajectories_keep_the_last_actions_and_the_start_of_the_page():
    actions = tuple(f'do(action="Click", element="{i}")' for i in range(1, 31))
    text = trajectory_prompt(Trajectory("Find it", actions, "x" * 5000))
    lines = text.splitlines()
    assert lines[2] == '11. do(action="Click", element="11")'  # numbered as in the episode
    assert sum(line.startswith(tuple(f"{i}. " for i in range(1, 31))) for line in lines) == LIMITS["actions"]
    page = lines[lines.index("Final page (/):") + 1]
    assert len(page) == LIMITS["page"] and page.endswith("…")
    empty = trajectory_prompt(Trajectory("Find it")).splitlines()
    assert empty[1:3] == ["Actions:", "none"] and "Answer: none" in empty and "(no page: the episode lost it)" in empty


def test_a_threshold_outside_the_unit_interval_is_refused():
    with pytest.raises(ValueError, match=r"threshold=1.5 must lie in \[0, 1\]"):
        judge_trajectories(None, [Trajectory("x")], threshold=1.5)
    assert judge_trajectories(None, []) == []
