"""``vcoder eval webgen-bench --gui-policy text``: the final sites' test cases run by the web agent (WebRL's text
observation and actions) instead of the VLM, through the command line in process, real Chromium, one loopback server
that is the builder and the scripted web agent of ``tests.rewards.test_gui_text_policy`` (routed by system prompt).
The builder makes a working counter for one task and a broken one for the other, so the accuracy is known by hand."""

from __future__ import annotations

import json

import pytest

from tests.inprocess import vcoder
from tests.rewards.test_gui_text_policy import BROKEN, SPOKEN, WORKING, WebAgentServer
from tests.servers import ChatServer
from vcoder.browse.prompt import SYSTEM_PROMPT as WEB_AGENT_PROMPT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SITES = {"[site:working]": WORKING, "[site:broken]": BROKEN}


class BuilderAndWebAgent(ChatServer):
    """The builder (a site chosen by the instruction's marker) and the web agent (WebAgentServer's actions)."""

    models = ("builder", "web-agent")

    def __init__(self) -> None:
        self.agent_prompts: list[str] = []
        super().__init__()

    def answer(self, body: dict) -> str:
        messages = body["messages"]
        if messages[0]["content"] == WEB_AGENT_PROMPT:
            self.agent_prompts.append(messages[-1]["content"])
            return WebAgentServer.act(messages[-1]["content"])
        seen = json.dumps(messages)
        site = next((html for mark, html in SITES.items() if mark in seen), "<p>hello</p>")
        return f'<file path="index.html">\n{site}\n</file>\n<finish/>'


def task(task_id: str, marker: str) -> dict:
    case = {**SPOKEN, "task_category": {"primary_category": "Functional Testing"}}
    return {"id": task_id, "instruction": f"A click counter {marker}", "ui_instruct": [case]}


@pytest.mark.timeout(300)
def test_webgen_bench_runs_the_cases_with_the_web_agent(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "".join(json.dumps(t) + "\n" for t in (task("ok", "[site:working]"), task("bad", "[site:broken]")))
    )
    with BuilderAndWebAgent() as server:

        def run(out: str, *flags: str):
            argv = ["eval", "webgen-bench", "--tasks", str(tasks), "--out", str(tmp_path / out), "--json"]
            argv += ["--base-url", server.base_url, "--model", "builder", "--gui-base-url", server.base_url]
            argv += ["--gui-model", "web-agent", "--no-progress", "--width", "640", "--height", "480"]
            return vcoder(*argv, "--max-retries", "0", *flags)

        done = run("out", "--gui-policy", "text", "--no-judge")
        # the judge would default to the web agent's endpoint: refused before anything runs
        refused = run("other", "--gui-policy", "text")
        # a run resumes only with the GUI agent it was graded with
        again = run("out", "--no-judge")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["accuracy"] == 0.5 and summary["gui_policy"] == "text" and summary["complete"]
    rows = {json.loads(line)["id"]: json.loads(line) for line in (tmp_path / "out" / "results.jsonl").open()}
    assert [c["verdict"] for c in rows["ok"]["cases"]] == ["YES"]
    assert [c["verdict"] for c in rows["bad"]["cases"]] == ["NO"]
    assert rows["ok"]["by_protocol"]["vcoder"]["agent"] == "web_agent"
    assert all(p.startswith("Task: Test this website: Click the button") for p in server.agent_prompts)
    assert any('<button id="1">Clicked 1</button>' in p for p in server.agent_prompts)  # the click ran on the site
    assert json.loads((tmp_path / "out" / "run.json").read_text())["gui_policy"] == "text"
    assert refused.returncode == 2 and "give judge_base_url and judge_model" in refused.stderr
    assert not (tmp_path / "other").exists()
    assert again.returncode == 2 and "gui_policy 'text' -> 'vlm'" in again.stderr
