"""The GUI-test writer (WebGen-RL's recipe) against real loopback HTTP servers, its cache, and the grader that runs
its test with a VLM GUI agent on real Chromium."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from tests.servers import ScriptedServer
from vcoder.chat import Endpoint, connect
from vcoder.gui.vlm_policy import VLMPolicy
from vcoder.sites.gui_tests import (
    MAX_TRIES,
    SUFFIX,
    GuiTestWriter,
    WrittenTestGrader,
    extract_gui_test,
)
from vcoder.sites.records import EpisodeOptions, SiteTask
from vcoder.sites.turns import parse_turn
from vcoder.sites.workspace import SiteWorkspace

INSTRUCTION = "Please implement a todo website. Users can add and delete todos. Use white and navy."
TEST = "Verify white background and navy buttons. Add a todo and delete it."
TAGGED = f'<boltAction type="gui_agent_test">{TEST}</boltAction>'


def writer(server, **kwargs) -> GuiTestWriter:
    return GuiTestWriter(connect(Endpoint(server.base_url, "scripted", max_retries=0)), **kwargs)


def test_extract_reads_the_seed_tag_only():
    assert extract_gui_test(f"Here it is:\n{TAGGED}\nDone.") == TEST
    assert extract_gui_test("<boltAction type='GUI_AGENT_TEST'>\n x \n</boltAction>") == "x"
    assert extract_gui_test('<boltAction type="file" filePath="a">x</boltAction>') is None
    assert extract_gui_test('<boltAction type="gui_agent_test">  </boltAction>') is None
    assert extract_gui_test(TEST) is None


def test_the_writer_follows_the_seed_recipe(tmp_path):
    with ScriptedServer(["Sure, I will test it.", TAGGED]) as server:
        text = asyncio.run(writer(server, cache_dir=tmp_path).write("train_1", INSTRUCTION))
    assert text == TEST + SUFFIX  # the tag's text, then the seed's suffix
    assert "admin123456" in text and "- YES:" in text and "- NO:" in text
    assert server.chat_hits == 2  # the first reply had no tag: asked again
    (request,) = {json.dumps(b["messages"]) for b in server.bodies}  # the same request each time
    (message,) = json.loads(request)
    assert message["role"] == "user"
    assert f"<instruction>{INSTRUCTION}</instruction>" in message["content"]
    assert "self-driving tour" in message["content"] and 'type="gui_agent_test"' in message["content"]


def test_a_writer_that_never_answers_in_the_tag_is_an_error_and_no_score(tmp_path, caplog):
    with ScriptedServer("Verify the background. Add a todo.") as server:
        w = writer(server, cache_dir=tmp_path)
        with caplog.at_level(logging.ERROR, logger="vcoder.sites.gui_tests"):
            first = asyncio.run(w.write("train_7", INSTRUCTION))
            again = asyncio.run(w.write("train_7", INSTRUCTION))
    assert first is None and again is None
    assert server.chat_hits == MAX_TRIES  # five tries, then remembered: no more requests for the task
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "train_7" in errors[0].getMessage() and "gui_agent_test" in errors[0].getMessage()
    assert list(tmp_path.iterdir()) == []  # a failure is not cached on disk: a later run asks again


def test_the_test_is_written_once_per_task_and_kept_on_disk(tmp_path):
    cache = tmp_path / "gui_tests"
    with ScriptedServer([TAGGED, '<boltAction type="gui_agent_test">Other test.</boltAction>']) as server:
        w = writer(server, cache_dir=cache)

        async def many():  # the G trajectories of one task ask at the same time
            return await asyncio.gather(*(w.write("train_1", INSTRUCTION) for _ in range(5)))

        texts = asyncio.run(many())
        assert server.chat_hits == 1 and set(texts) == {TEST + SUFFIX}
        (path,) = cache.iterdir()
        assert json.loads(path.read_text())["test"] == TEST + SUFFIX
        # a new writer (a resumed run, another process) reads the file instead of asking
        assert asyncio.run(writer(server, cache_dir=cache).write("train_1", INSTRUCTION)) == TEST + SUFFIX
        assert server.chat_hits == 1
        # another task is another test
        other = asyncio.run(w.write("train_2", INSTRUCTION + " Also a calendar."))
    assert other.startswith("Other test.") and len(list(cache.iterdir())) == 2


def test_the_first_published_test_wins(tmp_path):
    # two processes write the same task at once: the slower one adopts the test the faster one published
    cache = tmp_path / "gui_tests"
    slow_reply = '<boltAction type="gui_agent_test">Slow test.</boltAction>'
    with ScriptedServer(TAGGED) as fast, ScriptedServer(slow_reply, delay_s=1.0) as slow:

        async def both():
            late = asyncio.create_task(writer(slow, cache_dir=cache).write("t", INSTRUCTION))
            await asyncio.sleep(0.2)  # the slow one has looked at the disk and is waiting for its server
            return await writer(fast, cache_dir=cache).write("t", INSTRUCTION), await late

        assert asyncio.run(both()) == (TEST + SUFFIX, TEST + SUFFIX)
        assert slow.chat_hits == 1 and fast.chat_hits == 1 and len(list(cache.iterdir())) == 1


def test_the_server_failing_is_no_score_and_not_remembered(tmp_path):
    with ScriptedServer(TAGGED, statuses=(500,)) as server:
        w = writer(server, cache_dir=tmp_path)
        assert asyncio.run(w.write("t", INSTRUCTION)) is None
        assert asyncio.run(w.write("t", INSTRUCTION)) == TEST + SUFFIX  # the next step asks again


# --- the written test, run by the VLM GUI agent on a real site -----------------------------------------------------

OPTIONS = EpisodeOptions(render_width=640, render_height=400, gui_deadline_ms=20_000, gui_action_timeout_ms=10_000)
SITE = '<file path="index.html"><h1>Todos</h1><input id="new"><button>Add</button><ul></ul></file>'


def _graded(tmp_path, writer_reply, agent_reply, *, writer_statuses=(), verdict_log=None):
    from vcoder.rendering import get_default_pool

    ws = SiteWorkspace(tmp_path / "ep")
    assert ws.apply(parse_turn(SITE)).malformed is None
    site_dir = ws.write_site(1)
    task = SiteTask(INSTRUCTION, id="train_3")
    writer_server = ScriptedServer(writer_reply, statuses=writer_statuses)
    with writer_server, ScriptedServer(agent_reply) as agent_server:
        grader = WrittenTestGrader(
            writer(writer_server, cache_dir=tmp_path / "gui_tests"),
            pool=get_default_pool(),
            gui_agent=VLMPolicy(agent_server.base_url, "scripted", max_retries=0),
            verdict_log=verdict_log,
        )
        grades = asyncio.run(grader.grade(ws.files, site_dir, task, OPTIONS))
    return grades, agent_server, writer_server


@pytest.mark.browser
@pytest.mark.parametrize(("verdict", "score"), [("YES", 1.0), ("PARTIAL", 0.5), ("NO", 0.0)])
def test_the_gui_agent_runs_the_written_test(tmp_path, verdict, score):
    answer = json.dumps({"action": "answer", "verdict": verdict, "reason": "checked"})
    log = tmp_path / "verdicts.jsonl"
    grades, agent, _ = _graded(tmp_path, TAGGED, answer, verdict_log=log)
    assert TEST in log.read_text() and "admin123456" in log.read_text()  # the verdict log keeps the test that ran
    assert grades.gui == score and [c.verdict.value for c in grades.cases] == [verdict]
    assert grades.cases[0].task == TEST + SUFFIX
    first_turn = json.dumps(agent.bodies[0]["messages"])
    assert TEST in first_turn and "admin123456" in first_turn  # the agent was given the written test


@pytest.mark.browser
def test_no_written_test_means_the_gui_score_is_not_judged(tmp_path, caplog):
    answer = json.dumps({"action": "answer", "verdict": "YES", "reason": "checked"})
    with caplog.at_level(logging.ERROR, logger="vcoder.sites.gui_tests"):
        grades, agent, written = _graded(tmp_path, "I would test the todo list.", answer)
    assert written.chat_hits == MAX_TRIES  # one grading, one round of tries
    assert grades.gui is None and grades.cases == ()  # "could not judge", not 0
    assert any("test writer gave no test" in note for note in grades.notes)
    assert agent.chat_hits == 0 and any("train_3" in r.getMessage() for r in caplog.records)
    assert grades.rendered is not None and grades.rendered.ok  # the site itself was fine


@pytest.mark.browser
def test_a_failing_writer_server_is_no_score(tmp_path):
    answer = json.dumps({"action": "answer", "verdict": "YES", "reason": "checked"})
    grades, agent, written = _graded(tmp_path, TAGGED, answer, writer_statuses=(500,))
    assert grades.gui is None and agent.chat_hits == 0
    assert written.chat_hits == 1  # asked once for the grading (its reply was a 500), not again by assess
