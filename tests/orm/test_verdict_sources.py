"""Every grader can append its verdicts to a verdict log (``verdict_log``): the gui_agent and screenshot_judge
rewards, Step-GRPO's site grading, and ``vcoder eval webgen-bench``; what they write is what ``vcoder orm train``
reads back."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import ScriptedServer
from vcoder.data.site_kinds.pages import make_page
from vcoder.verdicts.log import read_verdicts

pytestmark = pytest.mark.browser


def test_the_gui_agent_reward_logs_one_record_per_distinct_graded_page(tmp_path):
    from vcoder.rewards import build_reward

    log = tmp_path / "v" / "verdicts.jsonl"
    working, broken = make_page("counter", 4), make_page("counter", 4, broken="handler_removed")
    reward = build_reward("gui_agent", verdict_log=str(log), gui_deadline_ms=15000)
    completions = [working["html"], broken["html"], working["html"], "no markup here"]
    scores = asyncio.run(
        reward(
            completions,
            test_cases=[working["test_cases"]] * 4,
            instruction=[working["instruction"]] * 4,
            id=["c4", "c4-broken", "c4-again", "c4-none"],
        )
    )
    assert scores[0] == scores[2] == 1.0 and scores[3] == 0.0 and scores[1] is not None and scores[1] < 1.0
    records = read_verdicts(log)  # validated line by line
    # a repeated page is graded (and logged) once, under its first sample; no HTML: nothing graded or logged
    assert [r.task_id for r in records] == ["c4", "c4-broken"]
    assert [r.score for r in records] == scores[:2]
    first = records[0]
    assert first.source == "gui_agent" and first.instruction == working["instruction"]
    assert first.site_files == {"index.html": working["html"].strip()} and first.meta == {
        "reward": "gui_agent",
        "step": None,
    }
    cases = working["test_cases"]
    assert [c.task for c in first.cases] == [c["task"] for c in cases] and {c.verdict for c in first.cases} == {"YES"}
    assert [c["task"] for c in first.test_cases] == [c["task"] for c in cases]
    assert "NO" in {c.verdict for c in records[1].cases}


def test_the_gui_agent_reward_writes_nothing_without_a_log(tmp_path, monkeypatch):
    from vcoder.rewards import build_reward

    monkeypatch.chdir(tmp_path)
    page = make_page("tabs", 1)
    reward = build_reward("gui_agent", gui_deadline_ms=15000)
    assert asyncio.run(reward([page["html"]], test_cases=[page["test_cases"]])) == [1.0]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_the_screenshot_judge_logs_its_grades_with_screenshots(tmp_path):
    from vcoder.rewards import build_reward

    log = tmp_path / "verdicts.jsonl"
    page = make_page("counter", 2)
    prompt = [{"role": "user", "content": [{"type": "text", "text": "Build a counter page."}]}]
    with ScriptedServer("Tidy. Score: 4") as server:
        reward = build_reward(
            "screenshot_judge", judge_base_url=server.base_url, judge_model="scripted", verdict_log=str(log)
        )
        scores = asyncio.run(reward([page["html"], "no markup"], prompts=[prompt, prompt]))
    assert scores == [pytest.approx(0.8), 0.0]
    (record,) = read_verdicts(log)
    assert record.source == "judge" and record.score == pytest.approx(0.8) and record.cases == ()
    assert record.instruction == "Build a counter page."  # no instruction column: the prompt's user text
    assert record.task_id.startswith("site-") and record.meta["reward"] == "screenshot_judge"
    assert (tmp_path / record.screenshot).read_bytes()[:4] == b"\x89PNG"
    assert any("Count" in t or "0" in t for t in record.page_text)


def test_site_grading_logs_the_graded_site_by_folder(tmp_path):
    from vcoder.rendering import get_default_pool
    from vcoder.sites.grading import SiteGrader
    from vcoder.sites.records import EpisodeOptions, SiteTask

    page = make_page("counter", 5)
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    (site_dir / "index.html").write_text(page["html"])
    task = SiteTask.from_dict(
        {"id": "counter-5", "instruction": page["instruction"], "test_cases": page["test_cases"]}
    )
    log = tmp_path / "log" / "verdicts.jsonl"
    grader = SiteGrader(pool=get_default_pool(), verdict_log=log)
    options = EpisodeOptions(render_width=640, render_height=400, gui_deadline_ms=20_000, settle_timeout_ms=5000)
    grades = asyncio.run(grader.grade({"index.html": page["html"]}, site_dir, task, options))
    assert grades.gui == 1.0
    (record,) = read_verdicts(log)
    assert (record.task_id, record.source, record.score) == ("counter-5", "site_grading", 1.0)
    assert record.site_dir == str(site_dir.resolve()) and record.site_files is None
    assert record.site_html(log.parent) == page["html"]
    assert record.meta["score_from"] == "gui" and record.meta["gui"] == 1.0
    assert (log.parent / record.screenshot).is_file() and record.page_text
    assert len(record.cases) == len(task.test_cases) and all(c.verdict == "YES" for c in record.cases)
    assert record.history == ()  # graded outside an episode: no build turns


def test_an_episode_logs_each_graded_site_with_the_build_turns_so_far(tmp_path):
    from vcoder.orm.examples import record_text
    from vcoder.rendering import get_default_pool
    from vcoder.sites.episode import run_site_episode
    from vcoder.sites.grading import SiteGrader
    from vcoder.sites.records import EpisodeOptions

    broken, fixed = make_page("counter", 1, broken="handler_removed"), make_page("counter", 1)
    replies = iter(
        [
            "Let me think about the layout first.",  # malformed: no file, no deletion, no finish
            # its buttons do nothing: gui 0 (0.125 before issue 34, when the start value it shows counted)
            f'<file path="index.html">\n{broken["html"]}\n</file>',
            f'<file path="index.html">\n{fixed["html"]}\n</file><finish/>',
        ]
    )

    async def policy(messages):
        return next(replies)

    log = tmp_path / "verdicts.jsonl"
    grader = SiteGrader(pool=get_default_pool(), verdict_log=log)  # no judge: the step reward is 10 * gui
    options = EpisodeOptions(render_width=640, render_height=400, gui_deadline_ms=15_000, settle_timeout_ms=20_000)
    task = {"id": "counter-1", "instruction": fixed["instruction"], "test_cases": fixed["test_cases"]}
    result = asyncio.run(run_site_episode(task, policy, grader=grader, options=options, out_dir=tmp_path / "ep"))
    assert [s.reward for s in result.steps] == [-1.0, 0.0, 10.0] and result.finished
    # the malformed turn is not graded, so not logged; each graded site carries the turns up to its own
    first, second = read_verdicts(log)
    assert (first.score, second.score) == (0.0, 1.0)
    malformed = "turn 1: malformed reply (no_action): the reply has no <file> block and no <finish/>: write each …"
    assert first.history == (malformed, "turn 2: wrote index.html (the site shown)")
    assert second.history == (
        malformed,
        "turn 2: wrote index.html",
        "turn 3: wrote index.html; finished (the site shown)",
    )
    prompt = record_text(second, second.page_text, second.site_html(log.parent), view="site")
    assert prompt.endswith(
        f"Build turns:\n1. {malformed}\n2. {second.history[1]}\n3. {second.history[2]}\n"
        "Does the site do what the task asks? Answer YES or NO."
    )


def test_a_site_without_files_is_graded_zero_and_not_logged(tmp_path):
    from vcoder.rendering import get_default_pool
    from vcoder.sites.grading import SiteGrader
    from vcoder.sites.records import EpisodeOptions, SiteTask

    page = make_page("counter", 1)  # an episode whose turn deleted every file: nothing to render or point at
    task = SiteTask.from_dict({"id": "c1", "instruction": page["instruction"], "test_cases": page["test_cases"]})
    log = tmp_path / "verdicts.jsonl"
    grader = SiteGrader(pool=get_default_pool(), verdict_log=log)
    grades = asyncio.run(grader.grade({}, tmp_path, task, EpisodeOptions(screenshot_weight=0), history=("turn 1",)))
    assert grades.gui == 0.0 and "no index.html" in grades.error
    assert not log.exists()


def test_the_step_grpo_recipe_passes_its_verdict_log_to_the_grader(tmp_path):
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments
    from vcoder.pipelines.step_grpo.grading import build_grader

    grader = build_grader(StepGRPOScriptArguments(verdict_log=str(tmp_path / "v.jsonl")))
    assert grader.verdict_log == str(tmp_path / "v.jsonl") and grader.verdict_source == "site_grading"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_webgen_bench_logs_the_judge_and_the_test_cases(tmp_path):
    from tests.eval.test_webgen_bench import TASKS, command, write_tasks
    from tests.eval.webgen_servers import RoutedServer

    write_tasks(tmp_path / "tasks.jsonl", TASKS[:1])  # t-ok: YES, PARTIAL, NO; the judge says 4
    log = tmp_path / "verdicts.jsonl"
    with RoutedServer() as server:
        proc = subprocess.run(
            command(tmp_path, server, "--verdict-log", str(log)), capture_output=True, text=True, timeout=500
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = read_verdicts(log)
    by_source = {r.source: r for r in records}
    assert sorted(by_source) == ["eval", "eval_judge"] and len(records) == 2
    judged, tested = by_source["eval_judge"], by_source["eval"]
    assert judged.score == pytest.approx(0.8) and judged.meta["score_from"] == "judge"
    assert tested.task_id == "t-ok" and tested.score == pytest.approx(0.5)
    assert [c.verdict for c in tested.cases] == ["YES", "PARTIAL", "NO"]
    assert Path(tested.site_dir).is_dir() and "Bakery" in tested.site_html(log.parent)
    assert judged.instruction == tested.instruction == "A bakery page. [site:good]"
    # the command line documents the flag
    help_text = subprocess.run(
        [sys.executable, "-m", "vcoder", "eval", "webgen-bench", "--help"], capture_output=True, text=True, timeout=120
    ).stdout
    assert "--verdict-log" in help_text
