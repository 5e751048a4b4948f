"""The ``gui_agent`` reward with ``gui_policy: text``: the web agent's text observation and WebRL actions against an
OpenAI-compatible server on loopback, on real pages in Chromium. The server is a scripted agent (an untrained tiny
LM does not act sensibly): it reads the observation it is sent, clicks the button it finds there, and answers YES
once the page shows the expected label, NO after two clicks without it; so a verdict follows what the page did."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from tests.servers import ChatServer, dead_port
from vcoder.rewards.gui import make_gui_agent_reward

WORKING = """<!DOCTYPE html><html><body><h1>Counter</h1>
<button id="inc" onclick="this.textContent = 'Clicked ' + (++window.n)">Click me</button>
<script>window.n = 0;</script></body></html>"""
BROKEN = WORKING.replace("onclick=", "data-onclick=")
SPOKEN = {"task": "Click the button", "expected_result": "Its label changes to 'Clicked 1'"}
BUTTON = re.compile(r'<button id="(\d+)"[^>]*>([^<]*)</button>')


class WebAgentServer(ChatServer):
    """Answers each chat request with one WebRL action decided from the text observation in its last message."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        super().__init__()

    def answer(self, body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        self.prompts.append(prompt)
        return self.act(prompt)

    @staticmethod
    def act(prompt: str) -> str:
        page = prompt.split("Current page", 1)[1].split("\n\nTask: ", 1)[0]  # the task is repeated after the page
        if "Clicked 1" in page:
            return 'exit(message="YES")'
        if "Round 2:" in prompt:
            return 'exit(message="NO")'
        button = BUTTON.search(page)
        return f'# Element: the button\ndo(action="Click", element="{button.group(1)}")' if button else "go_backward()"


def fenced(html: str) -> str:
    return f"```html\n{html}\n```"


def text_reward(base_url: str, **settings):
    return make_gui_agent_reward(
        gui_base_url=base_url, gui_model="web-agent", gui_policy="text", gui_deadline_ms=15000, **settings
    )


def test_gui_policy_is_validated_with_a_suggestion():
    with pytest.raises(
        ValueError, match=r"gui_policy='txt' is not one of \('vlm', 'text', 'text_screenshot'\) \(did you mean 'text'"
    ):
        make_gui_agent_reward(gui_policy="txt")


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_the_text_policy_grades_working_and_broken_pages_from_the_text_observation():
    with WebAgentServer() as server:
        out = asyncio.run(text_reward(server.base_url)([fenced(WORKING), fenced(BROKEN)], test_cases=[[SPOKEN]] * 2))
    assert out == [1.0, 0.0]
    # the agent read WebRL's observation and prompt, not the VLM's screenshots and JSON actions
    first = server.prompts[0]
    assert first.startswith("Task: Test this website: Click the button") and "Round 0: your next action?" in first
    assert '<button id="1">Click me</button>' in first and "<h1>Counter</h1>" in first
    assert any('<button id="1">Clicked 1</button>' in p for p in server.prompts)  # the click really happened
    assert len(server.prompts) == 2 + 3  # working: click, YES; broken: click, click, NO


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_failing_text_agent_endpoint_gives_none_not_zero():
    dead = asyncio.run(text_reward(f"http://127.0.0.1:{dead_port()}")([fenced(WORKING)], test_cases=[[SPOKEN]]))
    assert dead == [None]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_vcoder_agent_test_runs_the_text_policy(tmp_path, capsys):
    from vcoder.cli import main

    page, cases = tmp_path / "counter.html", tmp_path / "cases.json"
    page.write_text(WORKING)
    cases.write_text(json.dumps([SPOKEN]))
    args = ["agent", "test", str(page), "--cases", str(cases), "--policy", "text", "--json", "--model", "web-agent"]
    assert main(args[:-2]) == 2
    assert "--policy text needs --base-url URL and --model NAME" in capsys.readouterr().err
    with WebAgentServer() as server:
        assert main([*args, "--base-url", server.base_url]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == 1.0 and out["cases"][0]["verdict"] == "YES" and out["cases"][0]["steps_taken"] == 1
    assert len(server.prompts) == 2
