"""Site-building episodes end to end: a real loopback OpenAI-compatible server as the policy, real Chromium grading."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os

import pytest

from tests.servers import ScriptedServer, dead_port
from vcoder.chat import Endpoint, connect
from vcoder.data.site_kinds.pages import make_page
from vcoder.gui.judge import ScreenshotJudge
from vcoder.rendering import get_default_pool
from vcoder.sites.episode import run_site_episode
from vcoder.sites.grading import SiteGrader
from vcoder.sites.records import EpisodeOptions

pytestmark = pytest.mark.browser

BROKEN = make_page("counter", 1, broken="handler_removed")  # its buttons do nothing
FIXED = make_page("counter", 1)
TASK = {"id": "counter-1", "instruction": FIXED["instruction"], "test_cases": FIXED["test_cases"]}
OPTIONS = EpisodeOptions(render_width=640, render_height=400, gui_deadline_ms=15_000, settle_timeout_ms=20_000)


def file_reply(html: str, prose: str = "") -> str:
    return f'{prose}<file path="index.html">\n{html}\n</file>'


def tree(root) -> list[str]:
    found = []
    for here, dirs, names in os.walk(root):
        found += [os.path.relpath(os.path.join(here, n), root) for n in dirs + names]
    return sorted(found)


def run(task, policy, tmp_path, **kwargs):
    grader = kwargs.pop("grader", None) or SiteGrader(pool=get_default_pool())
    options = kwargs.pop("options", OPTIONS)
    return asyncio.run(run_site_episode(task, policy, grader=grader, options=options, out_dir=tmp_path / "ep"))


def test_broken_then_fixed_then_finish_raises_the_gui_score(tmp_path):
    replies = [file_reply(BROKEN["html"]), file_reply(FIXED["html"], "The buttons had no handlers. "), "<finish/>"]
    with ScriptedServer(replies) as agent, ScriptedServer("Clean layout.\nScore: 4") as judge_server:
        judge = ScreenshotJudge(judge_server.base_url, "scripted")
        grader = SiteGrader(pool=get_default_pool(), judge=judge)
        result = run(TASK, connect(Endpoint(agent.base_url, "scripted")), tmp_path, grader=grader)
    # the broken counter: every case NO (the count it still shows after Reset is its start, shown before any click,
    # which earns nothing: issue 34; it was PARTIAL, 0.125 in all)
    assert [s.gui for s in result.steps] == [0.0, 1.0, 1.0]
    assert [s.screenshot for s in result.steps] == [0.8, 0.8, 0.8]
    assert [s.reward for s in result.steps] == [pytest.approx(4.0), 9.0, 9.0]  # 5 * 0.8 + 5 * gui
    assert result.finished and result.final_reward == 9.0 and result.error is None
    assert [s.files for s in result.steps] == [("index.html",), ("index.html",), ()]
    # the broken and the fixed counter look the same before a click: the judge's cache answers the second, and the
    # finish turn (an unchanged site) is not graded again at all
    assert judge_server.chat_hits == 1
    assert [m["role"] for m in result.messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert [s.message_index for s in result.steps] == [2, 4, 6]
    # what the policy saw before its second reply: the first feedback, with the failed cases and reasons
    seen = agent.bodies[1]["messages"]
    assert seen[3]["role"] == "user" and seen[3]["content"] == result.steps[0].feedback
    feedback = result.steps[0].feedback
    assert "0 of 4 test cases passed fully" in feedback and "Click the + button three times" in feedback
    assert (
        "Expected: The count shows" in feedback
        and "unmet: #count" in feedback
        and "Reviewer: Clean layout" in feedback
    )
    assert result.to_dict() == {
        "steps": [
            {
                "turn": 1,
                "malformed": False,
                "files": ["index.html"],
                "screenshot": 0.8,
                "gui": 0.0,
                "reward": pytest.approx(4.0),
                "error": None,
            },
            {
                "turn": 2,
                "malformed": False,
                "files": ["index.html"],
                "screenshot": 0.8,
                "gui": 1.0,
                "reward": 9.0,
                "error": None,
            },
            {"turn": 3, "malformed": False, "files": [], "screenshot": 0.8, "gui": 1.0, "reward": 9.0, "error": None},
        ],
        "finished": True,
        "final_reward": 9.0,
        "error": None,
    }
    saved = json.loads((tmp_path / "ep" / "episode.json").read_text())
    assert saved["task_id"] == "counter-1" and saved["final_reward"] == 9.0
    assert (tmp_path / "ep/step_2/site/index.html").read_text() == FIXED["html"]
    assert (tmp_path / "ep/step_1/screenshot.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "ep/step_1/step.json").read_text())["cases"][0]["verdict"] == "NO"


def test_a_malformed_turn_scores_minus_one_says_why_and_writes_nothing_outside(tmp_path):
    hostile = '<file path="../../escape.html">pwned</file>\n<file path="index.html">also not applied</file>'
    replies = [file_reply(FIXED["html"]), hostile, "<finish/>"]
    with ScriptedServer(replies) as agent:
        result = run(TASK, connect(Endpoint(agent.base_url, "scripted")), tmp_path)
    first, bad, last = result.steps
    assert bad.malformed and bad.reward == -1.0 and bad.malformed_kind == "bad_path" and "'..'" in bad.error
    assert bad.files == () and bad.screenshot is None and bad.gui is None
    assert "rejected and changed nothing" in bad.feedback and "'..'" in bad.feedback and "<file path=" in bad.feedback
    assert agent.bodies[2]["messages"][-1]["content"] == bad.feedback  # the policy was told
    assert first.reward == 10.0 and last.reward == 10.0 and result.final_reward == 10.0  # gui 1, judge absent
    assert result.files == {"index.html": FIXED["html"]}
    assert tree(tmp_path) == sorted(
        ["ep", "ep/episode.json"]
        + [
            f"ep/step_{k}/{name}"
            for k in (1, 3)
            for name in ("reply.txt", "feedback.md", "screenshot.png", "step.json")
        ]
        + [f"ep/step_{k}{sub}" for k in (1, 3) for sub in ("", "/site", "/site/index.html")]
        + ["ep/step_2", "ep/step_2/reply.txt", "ep/step_2/feedback.md", "ep/step_2/step.json"]
    )
    assert not list(tmp_path.parent.rglob("escape.html"))


def test_every_turn_malformed_and_the_budget_runs_out(tmp_path):
    replies = ["I will write it.", "```css\nbody{}\n```"]
    with ScriptedServer(replies) as agent:
        result = run(
            TASK, connect(Endpoint(agent.base_url, "scripted")), tmp_path, options=EpisodeOptions(max_turns=2)
        )
    assert [s.malformed_kind for s in result.steps] == ["no_action", "no_action"]
    assert not result.finished and result.final_reward == -1.0 and result.files == {}
    assert result.messages[-1]["role"] == "assistant" and agent.chat_hits == 2


def test_concurrent_episodes_with_callable_policies_share_one_grader(tmp_path):
    class Generation:  # what an in-process generator returns: text plus whatever training needs
        def __init__(self, text):
            self.text, self.token_ids = text, [1, 2, 3]

    def policy(replies):
        seen = []

        async def reply(messages):
            seen.append([m["role"] for m in messages])
            await asyncio.sleep(0)
            return Generation(replies[len(seen) - 1])

        reply.seen = seen
        return reply

    good, bad = policy([file_reply(FIXED["html"]) + "<finish/>"]), policy([file_reply(BROKEN["html"]), "<finish/>"])
    grader = SiteGrader(pool=get_default_pool())

    async def both():
        return await asyncio.gather(
            run_site_episode(TASK, good, grader=grader, options=OPTIONS, out_dir=tmp_path / "a"),
            run_site_episode(TASK, bad, grader=grader, options=OPTIONS, out_dir=tmp_path / "b"),
        )

    first, second = asyncio.run(both())
    assert [s.gui for s in first.steps] == [1.0] and first.finished
    assert [s.gui for s in second.steps] == [0.0, 0.0] and second.finished
    assert first.steps[0].generation.token_ids == [1, 2, 3]
    assert bad.seen == [["system", "user"], ["system", "user", "assistant", "user"]]
    assert (tmp_path / "a/step_1/site/index.html").read_text() == FIXED["html"]


def test_vlm_policy_gets_the_screenshot_in_a_user_turn(tmp_path):
    replies = [file_reply(FIXED["html"]), "<finish/>"]
    options = EpisodeOptions(render_width=640, render_height=400, feedback_images=True, feedback_image_side=320)
    with ScriptedServer(replies) as agent:
        result = run(TASK, connect(Endpoint(agent.base_url, "scripted")), tmp_path, options=options)
    feedback = agent.bodies[1]["messages"][3]
    assert feedback["role"] == "user" and feedback["content"][0]["type"] == "image_url"
    assert (
        feedback["content"][1]["text"] == result.steps[0].feedback and "Visible text" not in result.steps[0].feedback
    )
    assert "with a screenshot of the page" in agent.bodies[0]["messages"][0]["content"]


def test_a_policy_that_fails_ends_the_episode_with_an_error(tmp_path):
    client = connect(Endpoint(f"http://127.0.0.1:{dead_port()}", "m", max_retries=0, timeout_ms=2000))
    result = run(TASK, client, tmp_path)
    assert result.steps == () and result.final_reward is None and not result.finished
    assert result.error.startswith("policy failed on turn 1: ServerUnreachable")
    assert json.loads((tmp_path / "ep" / "episode.json").read_text())["error"] == result.error


def test_a_temporary_episode_folder_is_removed(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    async def finish(messages):
        return file_reply("<p>hi</p>") + "<finish/>"

    result = asyncio.run(run_site_episode({"instruction": "A greeting"}, finish, options=OPTIONS))
    assert result.out_dir is None and result.steps[0].gui is None and result.steps[0].reward is None
    assert result.steps[0].notes == (
        "appearance not judged: no screenshot judge endpoint configured",
        "functionality not judged: the task has no cases",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_orm_step_reward_judges_the_rendered_site(tmp_path, untrained_orm):
    from vcoder.rewards.orm import judge_sites, orm_site_scorer, site_input
    from vcoder.rewards.settings import RewardSettings
    from vcoder.sites.records import SiteTask

    settings = RewardSettings(orm_model=str(untrained_orm))
    grader = SiteGrader(pool=get_default_pool(), orm_scorer=orm_site_scorer(settings))
    replies = [file_reply(FIXED["html"]), "<finish/>"]

    def scripted():
        left = list(replies)

        async def policy(messages):
            return left.pop(0)

        return policy

    # no screenshot judge: appearance unjudged, so gui and orm are rescaled to the full weight 5 + 5 + 10
    options = dataclasses.replace(OPTIONS, orm_weight=10.0)
    result = asyncio.run(run_site_episode(TASK, scripted(), grader=grader, options=options, out_dir=tmp_path / "a"))
    first, second = result.steps
    assert first.gui == 1.0 and first.screenshot is None
    assert isinstance(first.orm, float) and 0.0 <= first.orm <= 1.0
    assert second.orm == first.orm  # the finish turn leaves the site unchanged: not judged again
    assert first.reward == pytest.approx((5 * first.gui + 10 * first.orm) * 20 / 15)
    assert json.loads((tmp_path / "a/step_1/step.json").read_text())["orm"] == first.orm
    assert not any(n.startswith("orm not judged") for n in first.notes)

    # the score is orm_reward's scorer on this step's render: the same input, scored again, gives the same value
    task = SiteTask.from_dict(TASK)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(FIXED["html"])
    grades = asyncio.run(grader.assess({"index.html": FIXED["html"]}, site, task, options))
    cases = [{"task": c.task, "expected_result": c.expected_result} for c in task.test_cases]
    texts = [b.text for b in grades.rendered.layout.text_blocks]
    again = judge_sites([site_input(task.instruction, cases, FIXED["html"], texts, grades.rendered.image)], settings)
    assert grades.orm == pytest.approx(again[0], abs=1e-6)

    # orm_weight 0: the ORM is not asked and the reward is the one without it (gui alone on the full scale)
    off = asyncio.run(run_site_episode(TASK, scripted(), grader=grader, options=OPTIONS, out_dir=tmp_path / "b"))
    assert [s.orm for s in off.steps] == [None, None]
    assert [s.reward for s in off.steps] == [10.0 * s.gui for s in off.steps] == [10.0, 10.0]

    # an ORM that cannot score (its orm.json without its weights): None ("could not judge"), said in a note
    hollow = tmp_path / "hollow_orm"
    hollow.mkdir()
    (hollow / "orm.json").write_text((untrained_orm / "orm.json").read_text())
    broken = SiteGrader(pool=get_default_pool(), orm_scorer=orm_site_scorer(RewardSettings(orm_model=str(hollow))))
    grades = asyncio.run(broken.assess({"index.html": FIXED["html"]}, site, task, options))
    assert grades.orm is None and "orm not judged: the outcome reward model failed" in grades.notes
