"""``vcoder agent build --gui-policy text``: the episode's natural-language case is run by the web agent (in process,
real Chromium, the builder and the scripted web agent on one loopback server), so the step's GUI score is the
agent's verdict on the site that was built (a broken site's NO: the Step-GRPO and webgen-bench tests)."""

from __future__ import annotations

import json

import pytest

from tests.eval.test_webgen_bench_text_policy import BuilderAndWebAgent
from tests.inprocess import vcoder
from tests.rewards.test_gui_text_policy import SPOKEN

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.timeout(300)
def test_agent_build_grades_its_steps_with_the_web_agent(tmp_path):
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([SPOKEN]))
    with BuilderAndWebAgent() as server:
        argv = ["agent", "build", "--instruction", "A click counter [site:working]", "--cases", str(cases), "--json"]
        argv += ["--base-url", server.base_url, "--model", "builder", "--gui-base-url", server.base_url]
        argv += ["--gui-model", "web-agent", "--gui-policy", "text", "--max-turns", "1", "--out", str(tmp_path / "ep")]
        done = vcoder(*argv, "--width", "640", "--height", "400", "--max-retries", "0")
    assert done.returncode == 0, done.stderr
    (step,) = json.loads(done.stdout)["steps"]
    assert step["gui"] == 1.0
    assert all(p.startswith("Task: Test this website:") for p in server.agent_prompts)
    assert any('<button id="1">Clicked 1</button>' in p for p in server.agent_prompts)  # it clicked, then said YES
