"""WebGen-Agent's inference loop (``vcoder.eval.webgen_agent_loop``): best-step choice and backtracking.

A loopback builder plays canned replies in order; a loopback judge grades a screenshot by its colour
(``tests.eval.loop_servers``: green 4, blue 3, red 1), so each step's grade is known by hand; real Chromium renders
the sites.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.eval.loop_servers import Models, site
from tests.inprocess import vcoder
from vcoder.chat import Endpoint, connect
from vcoder.eval.webgen_agent_loop import Node, choose_best, error_run, run_agent_loop
from vcoder.gui.judge import ScreenshotJudge
from vcoder.rendering import get_default_pool
from vcoder.sites.grading import SiteGrader
from vcoder.sites.records import EpisodeOptions

OPTIONS = EpisodeOptions(render_width=320, render_height=240, gui_weight=0.0, settle_timeout_ms=20_000)


def loop(tmp_path, replies, **kwargs):
    with Models(replies) as server:
        grader = SiteGrader(pool=get_default_pool(), judge=ScreenshotJudge(server.base_url, "scripted"))
        client = connect(Endpoint(server.base_url, "scripted"))
        task = {"id": "t", "instruction": "A page."}
        ran = run_agent_loop(task, client, grader=grader, options=OPTIONS, out_dir=tmp_path / "ep", **kwargs)
        result, trace = asyncio.run(ran)
    return result, trace, server.bodies


def test_best_node_ranks_valid_nodes_by_gui_then_appearance_then_step():
    nodes = [
        Node(1, 5.0, 0.0, None, True),  # errored: not valid however high
        Node(2, 3.0, 4.0, 1, False),
        Node(3, 4.0, 4.0, 2, False),
        Node(4, 4.0, 4.0, 3, False),
        Node(5, 2.0, 5.0, 4, True),
    ]
    assert choose_best(nodes) == (nodes[3], True)  # gui 4 ties, appearance 4 ties, the later step wins
    errored = [Node(1, 2.0, 0.0, None, True), Node(2, 1.0, 0.0, 1, True)]
    assert choose_best(errored) == (errored[0], False)  # no valid node: all of them, ranked the same way
    by_step = {n.step: n for n in nodes}
    assert error_run(by_step, 5) == 1 and error_run(by_step, 4) == 0


@pytest.mark.browser
def test_a_later_worse_step_is_not_the_chosen_site(tmp_path):
    result, trace, _ = loop(tmp_path, [site("green", "first"), site("red", "second") + "<finish/>"])
    assert [(n.step, n.appearance, n.has_error) for n in trace.nodes] == [(1, 4.0, False), (2, 1.0, True)]
    assert trace.chosen == 1 and trace.backtracks == []
    assert "first" in result.files["index.html"] and result.final_reward == result.steps[0].reward


@pytest.mark.browser
def test_error_limit_restores_the_best_steps_files_and_conversation(tmp_path):
    replies = [site("blue", "one"), site("red", "two"), site("red", "three"), "<finish/>"]
    result, trace, bodies = loop(tmp_path, replies, error_limit=2)
    # steps 2 and 3 errored (grade 1 <= 2): before step 4 the loop went back to step 1
    assert trace.backtracks == [{"before_step": 4, "to_step": 1}]
    assert [n.pre for n in trace.nodes] == [None, 1, 2, 1]
    # step 4's request is step 1's conversation (system, request, reply 1, feedback 1), not the one that followed
    assert bodies[3]["messages"] == bodies[1]["messages"] and len(bodies[3]["messages"]) == 4
    # the finish-only step 4 saw step 1's site: graded 3, the chosen (latest of the ties), its site is "one"
    assert trace.nodes[3].appearance == 3.0 and trace.chosen == 4
    assert "one" in result.files["index.html"]
    assert "one" in (tmp_path / "ep" / "step_4" / "site" / "index.html").read_text()


@pytest.mark.browser
def test_no_valid_step_starts_over_from_the_request(tmp_path):
    replies = [site("red", "one"), site("red", "two"), site("green", "three") + "<finish/>"]
    result, trace, bodies = loop(tmp_path, replies, error_limit=2)
    assert trace.backtracks[0] == {"before_step": 3, "to_step": None}
    assert len(bodies[2]["messages"]) == 2 and trace.chosen == 3 and "three" in result.files["index.html"]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_webgen_bench_grades_the_best_step_under_the_agent_loop(tmp_path):
    case = {"task": "Open it", "expected_result": "It opens", "task_category": {"primary_category": "Functional"}}
    row = {"id": "t1", "instruction": "A page.", "Category": {"primary_category": "Content"}, "ui_instruct": [case]}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    prompt = tmp_path / "system.txt"
    prompt.write_text("Build the site in <file> blocks.")
    with Models([site("green", "first"), site("red", "second") + "<finish/>"]) as server:
        url = server.base_url
        proc = vcoder(
            *("eval", "webgen-bench", "--tasks", str(tmp_path / "tasks.jsonl"), "--base-url", url, "--model"),
            *("scripted", "--gui-base-url", url, "--gui-model", "scripted", "--out", str(tmp_path / "out")),
            *("--width", "320", "--height", "240", "--no-progress", "--json", "--agent-loop", "webgen_agent"),
            *("--system-prompt", str(prompt)),
        )
        sent = server.bodies
    assert proc.returncode == 0, proc.stderr
    graded = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    assert graded["agent_loop"]["chosen_step"] == 1 and graded["turns"] == 2
    assert graded["appearance"] == 4.0  # step 1's green site, not step 2's red one (1.0)
    assert sent[0]["temperature"] == 0.5  # the seed's setting under --agent-loop webgen_agent
    assert sent[0]["messages"][0] == {"role": "system", "content": "Build the site in <file> blocks."}
    assert json.loads((tmp_path / "out" / "run.json").read_text())["agent_loop"] == "webgen_agent"
