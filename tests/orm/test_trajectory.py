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


def test_the_orm_trains_on_a_browsing_record_in_the_view_it_judges_the_episode_by(tmp_path):
    from vcoder.browse import generate_tasks
    from vcoder.browse.episode import WebEpisode, WebStep
    from vcoder.browse.evaluators import Evaluation
    from vcoder.browse.records import verdict_record
    from vcoder.orm.examples import build_examples
    from vcoder.pipelines.web_agent.judging import episode_trajectory
    from vcoder.verdicts.records import VerdictRecord

    task = generate_tasks("shop", seed=0, n=1)[0]
    steps = (
        WebStep("/", '<a id="1">Cart</a>', 'do(action="Click", element="1")', True),
        WebStep("/cart", "<h1>Cart</h1>", 'do(action="Click", element="7")', False, "no element 7"),
        WebStep("/cart", "<h1>Cart</h1>", 'exit(message="2 items")', True),
    )
    many = tuple(
        WebStep("/", "<p>x</p>", f'do(action="Scroll Down", element="{i}")', i % 3 > 0, "stuck") for i in range(25)
    )
    episodes = [
        WebEpisode(
            task, "p", steps, "2 items", "__SHOP__/#/cart", Evaluation(1.0), final_page="<h1>Cart</h1>\n\n2 items\n"
        ),
        WebEpisode(task, "p", steps[:1], None, "__SHOP__/#/", Evaluation(0.0), error="lost", final_page=""),
        # more actions than the prompt shows, failed ones among them: numbered from the episode's start either way
        WebEpisode(task, "p", many, None, "__SHOP__/#/product/3?q=1", Evaluation(0.0), final_page="<p>x</p>"),
    ]
    records = [VerdictRecord.from_dict(verdict_record(e).to_dict()) for e in episodes]  # through the log's JSON
    site = VerdictRecord(task_id="s", instruction="A page", site_hash="h", site_files={"index.html": "<p>hi</p>"}, score=1.0,
                         source="gui_agent", page_text=("hi",))  # fmt: skip
    examples = build_examples([records[0], site, *records[1:]], base_dir=tmp_path, image_width=0)
    web = [ex for ex in examples if ex.view == "trajectory"]
    assert [ex.view for ex in examples] == ["trajectory", "site", "trajectory", "trajectory"]  # in record order
    assert [ex.text for ex in web] == [trajectory_prompt(episode_trajectory(e)) for e in episodes]
    assert [ex.label for ex in web] == [1, 0, 0] and all(ex.image is None for ex in web)
    assert "Answer: 2 items" in web[0].text and "Final page (/cart):\n<h1>Cart</h1>\n2 items\n" in web[0].text
    assert '2. do(action="Click", element="7") (failed: no element 7)' in web[0].text
    assert '\n6. do(action="Scroll Down"' in web[2].text and "Final page (/product/3?q=1):" in web[2].text
    assert {ex.view for ex in examples if ex.task_id == "s"} == {"site"}  # a site record keeps its own views


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_log_mixing_sites_and_browsing_trains_each_example_in_the_view_it_is_judged_in(tiny_vlm_dir, tmp_path):
    from PIL import Image

    from tests.orm.test_verdicts import record
    from vcoder.browse import generate_tasks
    from vcoder.browse.episode import WebEpisode, WebStep
    from vcoder.browse.evaluators import Evaluation
    from vcoder.browse.records import verdict_record
    from vcoder.orm.examples import Example
    from vcoder.orm.train import TrainOptions, _rows, train_orm
    from vcoder.verdicts.log import VerdictLog

    # the rows: a site example keeps its screenshot, a trajectory example has none (it is judged without one)
    shot = Image.new("RGB", (16, 16), "white")
    rows = _rows([Example("site text", shot, 1, "s", "site"), Example("Task: x", None, 0, "w", "trajectory")])
    assert [len(images) for images in rows["images"]] == [1, 0]
    assert [[part["type"] for part in p[0]["content"]] for p in rows["prompt"]] == [["image", "text"], ["text"]]

    # a log of both kinds trains (TRL batches rows with and without a screenshot)
    log = VerdictLog(tmp_path / "verdicts.jsonl")
    for i in range(4):
        log.append(record(i, screenshot=None, score=float(i % 2)))
    task = generate_tasks("shop", seed=0, n=1)[0]
    step = WebStep("/", '<a id="1">Cart</a>', 'exit(message="done")', True)
    for i in range(4):
        episode = WebEpisode(task, "p", (step,), "done", "__SHOP__/#/", Evaluation(float(i % 2)), final_page="Cart")
        log.append(verdict_record(episode))
    options = TrainOptions(max_steps=2, batch_size=8, image_width=64, holdout=0.25, tune_threshold=False)
    report = train_orm(log.path, tiny_vlm_dir, tmp_path / "orm", options=options)
    assert report["training"]["steps"] == 2 and report["training"]["examples"] >= 6
