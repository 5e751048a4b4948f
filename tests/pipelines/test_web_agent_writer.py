"""WebRL's task writer for the web agent and the ORM that judges its tasks: parsing, every failure path against a
real loopback OpenAI-compatible server, an ORM-judged outcome of a real episode (real Chromium, the tiny ORM), and
a curriculum run with the writer on (tiny LM)."""

from __future__ import annotations

import json
import logging

import pytest

from tests.servers import ScriptedServer, dead_port
from vcoder.browse import WebTask, generate_tasks
from vcoder.chat.endpoint import Endpoint
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.writer import (
    WebTaskWriter,
    check_intent,
    failed_tasks,
    intent_key,
    parse_intents,
    writing_prompt,
)

SHOP = generate_tasks("shop", seed=0, n=2)
FORUM = generate_tasks("forum", seed=0, n=1)
REPLY = "\n".join(
    [
        "Here are the new tasks:",
        "1. `Add two Red Lamps to the cart and open the cart`",
        "2. `Show the orders page`",
        f"3. `{SHOP[0].intent.upper()}.`",  # a failed intent again (case and end punctuation do not matter)
        "4. `Go`",  # too short
        "5. `Another given task about the shop`",  # names the prompt
        "```",
        "6. `Find the cheapest product in Kitchen`",
        "```",
    ]
)
GOOD = [
    "Add two Red Lamps to the cart and open the cart",
    "Show the orders page",
    "Find the cheapest product in Kitchen",
]


def endpoint(base_url: str, model: str = "scripted", **kw) -> Endpoint:
    return Endpoint(base_url, model, timeout_ms=kw.pop("timeout_ms", 5000), max_retries=0, temperature=1.0, **kw)


def test_intents_are_read_from_backticks_and_checked():
    assert parse_intents(REPLY) == [
        GOOD[0],
        GOOD[1],
        f"{SHOP[0].intent.upper()}.",
        "Go",
        "Another given task about the shop",
        GOOD[2],
    ]
    assert parse_intents("I cannot write tasks.") is None and parse_intents("``\n` `") is None
    assert [check_intent(i) for i in ("Go", "x" * 301, "The created task: buy a mug", GOOD[0])] == [
        "too_short",
        "too_long",
        "names_the_prompt",
        None,
    ]
    assert intent_key("  Open the  CART! ") == intent_key("open the cart") == "open the cart"


def test_the_prompt_is_webrls_task_creator_ask_for_the_site():
    [message] = writing_prompt("forum", ["Upvote the post about tea", "Open the travel forum"], 4)
    text = message["content"]
    assert message["role"] == "user" and "discussion forum" in text and "Write 4 new" in text
    assert "- `Upvote the post about tea`\n- `Open the travel forum`" in text
    assert "between backticks" in text and "similar" in text and "Reuse the names" in text


def test_the_writer_writes_tasks_for_the_failed_site_without_an_evaluator(tmp_path, caplog):
    with ScriptedServer(REPLY) as server, caplog.at_level(logging.WARNING):
        writer = WebTaskWriter(endpoint(server.base_url), failures_shown=10, requests=2, cache=tmp_path / "c.jsonl")
        result = writer.write([*SHOP, SHOP[0]], n=4, exclude=[SHOP[1].intent], phase=3, seed=7)
    assert server.chat_hits == 2 and result.requests == 2 and result.failed == 0
    body = server.bodies[0]
    assert body["temperature"] == 1.0 and body["seed"] == 7 + 300 and body["model"] == "scripted"
    assert SHOP[0].intent in body["messages"][0]["content"] and SHOP[1].intent in body["messages"][0]["content"]
    assert [t.intent for t in result.tasks] == GOOD
    # the failed intent again in both replies, and the second reply (the same text) repeats the three kept ones
    assert result.written == 12
    assert dict(result.rejected) == {"duplicate": 2 + 3, "too_short": 2, "names_the_prompt": 2}
    for k, task in enumerate(result.tasks):
        assert task.sites == ("shop",) and task.start_url == "__SHOP__/#/" and task.site_seed == SHOP[0].site_seed
        assert task.eval is None and task.judged_by_orm and task.eval_types == ("orm",) and task.task_id == f"w3-{k}"
        data = task.to_dict()
        assert data["eval"] is None and set(data["written_from"]) == {SHOP[0].task_id, SHOP[1].task_id}
        assert WebTask.from_dict(json.loads(json.dumps(data))) == task
    bad = [r.getMessage() for r in caplog.records if "rejected" in r.getMessage()]
    assert len(bad) == 4 and "(too_short) 'Go'" in bad[0] and "from tasks" in bad[0]  # duplicates are not warnings
    summary = result.summary()
    assert summary["kept"] == 3 and summary["written"] == 12 and not result.no_reply


def test_replies_are_cached_per_request(tmp_path):
    cache = tmp_path / "writer_cache.jsonl"
    with ScriptedServer(REPLY) as server:
        first = WebTaskWriter(endpoint(server.base_url), requests=1, cache=cache).write(SHOP, n=3, seed=1)
        again = WebTaskWriter(endpoint(server.base_url), requests=1, cache=cache).write(SHOP, n=3, seed=1)
        other_seed = WebTaskWriter(endpoint(server.base_url), requests=1, cache=cache).write(SHOP, n=3, seed=2)
        next_phase = WebTaskWriter(endpoint(server.base_url), requests=1, cache=cache).write(
            SHOP, n=3, seed=1, phase=1
        )
    assert server.chat_hits == 3  # the second writer asked nothing
    assert again.cached == 1 and [t.intent for t in again.tasks] == [t.intent for t in first.tasks] == GOOD
    assert other_seed.cached == 0 and next_phase.cached == 0 and len(cache.read_text().splitlines()) == 3


def test_a_cache_line_cut_by_a_killed_run_is_asked_again(tmp_path, caplog):
    cache = tmp_path / "writer_cache.jsonl"
    with ScriptedServer(REPLY) as server:
        WebTaskWriter(endpoint(server.base_url), requests=1, cache=cache).write(SHOP, n=3, seed=1)
        whole = cache.read_text()
        cache.write_text(whole + whole[: len(whole) // 2])  # a second reply, cut mid-line
        with caplog.at_level(logging.WARNING):
            again = WebTaskWriter(endpoint(server.base_url), requests=1, cache=cache).write(SHOP, n=3, seed=1)
    assert "line 2 unreadable, skipped" in caplog.text
    assert server.chat_hits == 1 and again.cached == 1 and [t.intent for t in again.tasks] == GOOD


def test_failed_sites_are_asked_separately():
    forum_reply = "`Open the travel forum and read the newest post`"
    with ScriptedServer([REPLY, forum_reply]) as server:
        result = WebTaskWriter(endpoint(server.base_url), requests=1).write([*FORUM, *SHOP], n=2)
    prompts = [b["messages"][0]["content"] for b in server.bodies]
    assert "discussion forum" in prompts[0] and FORUM[0].intent in prompts[0]  # sites in name order
    assert "online shop" in prompts[1] and SHOP[0].intent in prompts[1]
    assert {t.site for t in result.tasks} == {"forum", "shop"}
    assert next(t for t in result.tasks if t.site == "forum").intent == GOOD[0]  # what the forum request got back


def test_a_reply_without_tasks_is_counted_and_logged(caplog):
    with ScriptedServer("Sorry, I can't help with that.") as server, caplog.at_level(logging.WARNING):
        result = WebTaskWriter(endpoint(server.base_url), requests=2).write(SHOP, n=2)
    assert result.tasks == [] and dict(result.rejected) == {"unparseable": 2} and result.failed == 0
    assert not result.no_reply and not result.unreachable
    assert len(result.errors) == 2 and "no backticked task" in result.errors[0] and "Sorry" in result.errors[0]
    assert sum("no backticked task" in r.getMessage() for r in caplog.records) == 2
    assert str(SHOP[0].task_id) in result.errors[0]  # which failed tasks the request showed


@pytest.mark.parametrize(
    "server_kw, error",
    [
        ({"statuses": (500, 500)}, "RequestFailed"),
        ({"body": {"id": "x", "object": "chat.completion"}}, "BadResponse"),
        ({"models": ("another",)}, "UnknownModel"),
    ],
)
def test_a_failed_request_is_one_line_and_the_phase_falls_back(server_kw, error):
    with ScriptedServer(REPLY, **server_kw) as server:
        result = WebTaskWriter(endpoint(server.base_url), requests=2).write(SHOP, n=2)
    assert result.tasks == [] and result.failed == 2 and result.no_reply and not result.unreachable
    assert all(error in e and "\n" not in e for e in result.errors)


def test_an_unreachable_writer_is_reported():
    result = WebTaskWriter(endpoint(f"http://127.0.0.1:{dead_port()}"), requests=1).write(SHOP, n=2)
    assert result.unreachable and result.no_reply and result.summary()["failed_requests"] == 1
    assert WebTaskWriter(endpoint("http://x")).write([], n=4).requests == 0  # no failures: nothing asked


def test_the_writer_settings_are_checked():
    with pytest.raises(ValueError, match="set orm_model"):
        WebAgentConfig(writer_base_url="http://127.0.0.1:1", writer_model="m")
    with pytest.raises(ValueError, match="give both"):
        WebAgentConfig(writer_model="m", orm_model="orm")
    with pytest.raises(ValueError, match="orm_threshold=2"):
        WebAgentConfig(orm_threshold=2)
    with pytest.raises(ValueError, match="timeout_ms"):
        WebAgentConfig(writer_base_url="http://h", writer_model="m", orm_model="o", writer_timeout_ms=0)
    config = WebAgentConfig.from_dict({"writer_base_url": "http://h:8000", "writer_model": "m", "orm_model": "o"})
    assert config.writer_endpoint() == Endpoint("http://h:8000", "m", timeout_ms=120_000, max_retries=1,
                                                 temperature=1.0, max_tokens=1024)  # fmt: skip
    with pytest.raises(ValueError, match="failures_shown"):
        WebTaskWriter(config.writer_endpoint(), failures_shown=0)


def test_failed_tasks_are_the_failed_episodes_tasks_once():
    from vcoder.browse.episode import WebEpisode
    from vcoder.browse.evaluators import Evaluation

    def ep(task, score):
        return WebEpisode(task, "p", (), None, task.start_url, Evaluation(score))

    assert failed_tasks([ep(SHOP[0], 0.0), ep(SHOP[1], 1.0), ep(SHOP[0], 0.0), ep(FORUM[0], 0.0)]) == [
        SHOP[0],
        FORUM[0],
    ]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_orm_decides_the_outcome_of_an_episode_without_an_evaluator(pool, untrained_orm):
    from tests.browse.conftest import Lines, run_episode
    from vcoder.orm import OutcomeRewardModel, trajectory_prompt
    from vcoder.orm.model import ORMInput
    from vcoder.pipelines.web_agent.judging import episode_trajectory, judge_episodes

    written = WebTask(sites=("shop",), task_id="w0-0", start_url="__SHOP__/#/", intent="Open the cart", eval=None)
    episode = run_episode(written, Lines(['do(action="Click", element="1")', 'exit(message="done")']), pool=pool)
    graded = run_episode(SHOP[0], Lines(['exit(message="")']), pool=pool)
    assert episode.evaluation.judged_by == "pending" and episode.evaluation.score == 0.0
    assert len(episode.steps) == 2 and episode.final_page  # a real page was read at the end
    trajectory = episode_trajectory(episode)
    assert trajectory.intent == "Open the cart" and trajectory.answer == "done" and len(trajectory.actions) == 2
    prompt = trajectory_prompt(trajectory)
    assert episode.final_page.splitlines()[0] in prompt

    orm = OutcomeRewardModel.load(untrained_orm, device="cpu")
    [p] = orm.p_yes([ORMInput(prompt)])
    assert 0.0 < p < 1.0
    for threshold, success in ((0.0, True), (1.0, False), (None, p >= orm.config.decision_threshold)):
        out, report = judge_episodes(orm, [graded, episode], threshold=threshold)
        assert out[0] is graded  # an episode an evaluator judged is left alone
        judged = out[1].evaluation
        assert judged.judged_by == "orm" and judged.success is success and judged.score == float(success)
        assert judged.scores["orm"] == pytest.approx(p, abs=1e-5)
        assert report == {
            "judged": 1,
            "yes": int(success),
            "tasks": 1,
            "threshold": orm.config.decision_threshold if threshold is None else threshold,
        }
        assert out[1].to_dict()["judged_by"] == "orm"
    with pytest.raises(ValueError, match="set orm_model"):
        judge_episodes(None, [episode])
    assert judge_episodes(None, [graded])[1]["judged"] == 0  # nothing pending: no ORM needed


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    from vcoder.browse.prompt import step_prompt
    from vcoder.models.tiny_lm import build_tiny_lm

    corpus = [m["content"] for t in SHOP for m in step_prompt(t.intent, [], "<a id='1'>Cart</a>", route="/")] * 2
    return build_tiny_lm(tmp_path_factory.mktemp("writer-lm") / "lm", size="tiny", corpus=corpus)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_curriculum_with_the_writer_grows_its_pool_with_orm_judged_tasks(tiny_lm, untrained_orm, tmp_path):
    from vcoder.pipelines.web_agent.run import run_web_curriculum

    with ScriptedServer("1. `Open the cart and read how many items it holds`\n2. `Show the orders page`") as server:
        config = WebAgentConfig(
            model_name_or_path=str(tiny_lm),
            sites=("shop",),
            train_per_site=1,
            heldout_per_site=1,
            phases=2,
            rollouts_per_task=1,
            step_budget=2,
            max_prompt_tokens=128,
            max_new_tokens=12,
            new_tasks_per_phase=1,
            writer_base_url=server.base_url,
            writer_model="scripted",
            writer_requests=1,
            orm_model=str(untrained_orm),
            orm_threshold=1.0,  # every ORM verdict NO: phase 1's written task fails and is written from again
        )
        summary = run_web_curriculum(config, tmp_path)
    first, second = summary["phases"]
    # phase 0: the generated task failed (a random tiny LM); the writer wrote 2 intents, the pool took 1
    assert first["orm_judged"]["judged"] == 0 and first["rollouts"]["success"] == 0.0
    assert first["writer"] | {"errors": []} == {
        "requests": 1, "failed_requests": 0, "cached": 0, "unreachable": False, "written": 2, "kept": 2,
        "rejected": {}, "errors": [], "accepted": 1, "fell_back_to_offline": False,
    }  # fmt: skip
    assert first["accepted"] == 1 and second["pool_size"] == 2
    written = [json.loads(line) for line in (tmp_path / "phase_0" / "next_pool.jsonl").read_text().splitlines()][-1]
    assert written["eval"] is None and written["intent"] == "Open the cart and read how many items it holds"
    assert written["task_id"] == 1 and written["start_url"] == "__SHOP__/#/"
    # phase 1: its episode of the written task was judged by the ORM (NO), and only the graded one is a verdict
    assert second["orm_judged"] == {"judged": 1, "yes": 0, "tasks": 1, "threshold": 1.0}
    assert second["rollouts"]["per_eval_type"]["orm"] == 0.0
    episodes = [json.loads(x) for x in (tmp_path / "phase_1" / "episodes.jsonl").read_text().splitlines()]
    assert [e["judged_by"] for e in episodes if e["task_id"] == 1] == ["orm"]
    verdicts = (tmp_path / "phase_1" / "verdicts.jsonl").read_text().splitlines()
    assert len(verdicts) == 1 and json.loads(verdicts[0])["meta"]["judged_by"] == "evaluators"
    # the written task's failure was shown to the writer: its reply's intents are duplicates now, or new
    assert second["writer"]["written"] == 2 and second["writer"]["rejected"].get("duplicate", 0) >= 1
    assert summary["heldout_success"] is not None
