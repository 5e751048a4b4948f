"""A released WebGen-Agent model's path end to end: a loopback server answering in Bolt markup with small Vite +
React apps for two real WebGen-Bench tasks; each project installs offline, builds in the sandbox, renders in real
Chromium and is graded (screenshot judge + GUI agent); a broken import is fed back and fixed in the next turn."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from tests.sites.bolt_servers import BoltModelServer
from vcoder.chat import Endpoint, connect
from vcoder.gui.judge import ScreenshotJudge
from vcoder.gui.vlm_policy import VLMPolicy
from vcoder.rendering import get_default_pool
from vcoder.sites.episode import run_site_episode
from vcoder.sites.grading import SiteGrader
from vcoder.sites.projects import BOLT_SYSTEM_PROMPT, served_site
from vcoder.sites.records import EpisodeOptions, SiteTask

# builds run as the nobody user under one RLIMIT_NPROC: one pytest-xdist worker runs them all (scripts/test.sh)
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("nobody")]

# two records of WebGen-Bench's test.jsonl (instruction and test cases as the benchmark has them)
STOCK = {
    "id": "000001",
    "instruction": "Please implement a website for generating stock reports to provide stock information and "
    "analysis. The website should have the functionality to search and summarize stock information, and generate "
    "customized stock reports based on user requirements. Users should be able to input stock codes or names, select "
    "report formats and content, and the website will automatically generate the corresponding reports. The reports "
    "should include basic stock information, market trends, financial data, and more. Set the background color to "
    "white and the component color to navy.",
    "ui_instruct": [
        {
            "task": "Verify the stock search functionality by entering a valid stock code.",
            "expected_result": "The system returns relevant stock information and analysis corresponding to the "
            "entered stock code, displaying details such as basic stock information, market trends, and financial data.",
            "task_category": {"primary_category": "Functional Testing", "subcategories": ["Searching"]},
        },
        {
            "task": "Input a stock name instead of a stock code to search for stock information.",
            "expected_result": "The website successfully recognizes the stock name, retrieving and displaying the "
            "relevant stock information and analysis.",
            "task_category": {"primary_category": "Functional Testing", "subcategories": ["Searching"]},
        },
    ],
}
POLICY = {
    "id": "000005",
    "instruction": "Please implement a dashboard website for displaying regulatory policies. The website should have "
    "data visualization capabilities to clearly display complex regulatory policies. Users should be able to browse "
    "and analyze different policies, view related data and charts, and be able to filter and sort as needed. Assign "
    "lavender to the background and indigo to the UI elements.",
    "test_cases": [
        {
            "task": "Check the filter function for regulatory policies.",
            "expected_result": "Users should be able to apply filters such as policy type, date, and relevance, and "
            "the displayed list of policies should update accordingly to reflect the input filters.",
        },
        {
            "task": "Assess the sorting functionality within the dashboard.",
            "expected_result": "Users should be able to sort policies by criteria such as date, name, or relevance, "
            "and the list should reorder to reflect this criteria accurately.",
        },
    ],
}


def test_agent_build_turn_format_bolt_through_the_cli(bolt_sandbox, tmp_path):
    task = tmp_path / "000001.json"
    task.write_text(json.dumps(STOCK))
    prompt = tmp_path / "system.txt"
    prompt.write_text("You are Bolt, an expert AI assistant (the released model's own system prompt).\n")
    with BoltModelServer() as server:
        url = server.base_url
        done = subprocess.run(
            [sys.executable, "-m", "vcoder", "agent", "build", "--task", str(task), "--turn-format", "bolt"]
            + ["--base-url", url, "--model", "scripted", "--judge-base-url", url, "--judge-model", "scripted"]
            + ["--system-prompt", str(prompt)]
            + ["--gui-base-url", url, "--gui-model", "scripted", "--max-turns", "3", "--json", "--out"]
            + [str(tmp_path / "ep")],
            capture_output=True,
            text=True,
            timeout=500,
        )
        builder = server.builder_requests()
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert sorted(result) == ["error", "final_reward", "finished", "steps"]  # the --json shape is the same
    assert [sorted(s) for s in result["steps"]] == [
        ["error", "files", "gui", "malformed", "reward", "screenshot", "turn"]
    ] * 3
    first, second, third = result["steps"]
    assert not first["malformed"] and 'Could not resolve "./components/ReportView"' in first["error"]
    assert first["screenshot"] == 0.0 and first["gui"] == 0.0 and first["reward"] == 0.0
    assert second["files"] == ["src/components/ReportView.tsx"] and second["error"] is None
    assert second["screenshot"] == 0.8 and second["gui"] == 1.0 and second["reward"] == pytest.approx(9.0)
    assert third["files"] == [] and result["finished"] and result["final_reward"] == pytest.approx(9.0)
    # the build error reached the model as its second user turn, and the Bolt system prompt opened the episode
    feedback = builder[1]["messages"][-1]["content"]
    assert "vite build failed" in feedback and "src/App.tsx" in feedback and "/var/lib/vcoder" not in feedback
    assert builder[0]["messages"][0]["content"] == prompt.read_text()
    step = json.loads((tmp_path / "ep" / "step_2" / "step.json").read_text())
    assert step["build"]["ok"] and step["build"]["build_s"] > 0
    assert (tmp_path / "ep" / "step_2" / "build" / "dist" / "index.html").is_file()


def test_bolt_episode_in_process_and_the_served_site(bolt_sandbox, tmp_path):
    task = SiteTask.from_dict(POLICY)
    with BoltModelServer() as server:
        judge = ScreenshotJudge(server.base_url, "scripted")
        agent = VLMPolicy(server.base_url, "scripted")
        grader = SiteGrader(pool=get_default_pool(), judge=judge, gui_agent=agent)
        options = EpisodeOptions(turn_format="bolt", max_turns=3, render_width=1024, render_height=768)
        client = connect(Endpoint(server.base_url, "scripted"))
        result = asyncio.run(run_site_episode(task, client, grader=grader, options=options, out_dir=tmp_path / "ep"))
    assert [s.reward for s in result.steps] == [0.0, pytest.approx(9.0), pytest.approx(9.0)], result.steps[1].cases
    broken, fixed, done = result.steps
    assert broken.build.stage == "build" and "PolicyChart" in broken.error and broken.served_dir is None
    assert fixed.build.ok and fixed.served_dir.name == "dist" and fixed.console_errors == ()
    assert done.finish and done.build is None  # the unchanged project is not built again
    files, folder = served_site(fixed)
    assert folder == fixed.served_dir and "./assets/" in files["index.html"]
    assert served_site(broken) == ({}, None)
    assert "src/components/PolicyChart.tsx" in result.files and "package.json" in result.files
    assert result.messages[0]["content"] == BOLT_SYSTEM_PROMPT and result.messages[1]["content"] == task.instruction


def test_a_bolt_reply_without_package_json_is_a_static_site(tmp_path):
    page = '<button id="b" onclick="document.getElementById(\'o\').textContent=\'done\'">Go</button><p id="o"></p>'
    reply = (
        '<boltArtifact id="s" title="S"><boltAction type="file" filePath="index.html">'
        + page
        + '</boltAction><boltAction type="shell">python3 -m http.server</boltAction>'
        '<boltAction type="finish"/></boltArtifact>'
    )
    case = {
        "task": "Press Go",
        "steps": [{"action": "click", "target": "#b"}],
        "expect": [{"target": "#o", "text": "done"}],
    }

    async def policy(messages):
        return reply

    options = EpisodeOptions(turn_format="bolt", render_width=640, render_height=400)
    task = {"instruction": "A button page", "test_cases": [case]}
    result = asyncio.run(
        run_site_episode(task, policy, grader=SiteGrader(pool=get_default_pool()), options=options, out_dir=tmp_path)
    )
    (step,) = result.steps
    assert step.gui == 1.0 and step.build is None and result.finished
    assert "not run: `python3 -m http.server`" in step.feedback
    files, folder = served_site(step)
    assert folder == tmp_path / "step_1" / "site" and files == {"index.html": page + "\n"}
