"""A released WebGen-Agent model's path through `vcoder eval webgen-bench --turn-format bolt`, graded under both
protocols in one run: a loopback server answers two real WebGen-Bench tasks in Bolt markup (a broken import first,
fixed once the build error is fed back), each Vite + React project installs offline and builds in the sandbox, and
the built ``dist/`` is what vcoder's agent and judge and WebGen-Bench's WebVoyager and appearance judge grade."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.eval.test_webgen_bench import write_tasks
from tests.sites.bolt_servers import BoltModelServer
from tests.sites.conftest import bolt_sandbox  # noqa: F401 - the session fixture, shared with tests/sites
from tests.sites.test_bolt_episode import POLICY, STOCK

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.timeout(900)
def test_bolt_projects_graded_under_both_protocols(bolt_sandbox, tmp_path):  # noqa: F811
    policy = {"id": POLICY["id"], "instruction": POLICY["instruction"], "ui_instruct": POLICY["test_cases"]}
    write_tasks(tmp_path / "tasks.jsonl", [STOCK, policy])  # both as test.jsonl records
    with BoltModelServer() as server:
        url = server.base_url
        proc = subprocess.run(
            [sys.executable, "-m", "vcoder", "eval", "webgen-bench", "--tasks", str(tmp_path / "tasks.jsonl")]
            + ["--base-url", url, "--model", "scripted", "--gui-base-url", url, "--gui-model", "scripted"]
            + ["--turn-format", "bolt", "--max-turns", "3", "--protocol", "vcoder,webgen-bench"]
            + ["--out", str(tmp_path / "out"), "--json", "--no-progress"],
            capture_output=True,
            text=True,
            timeout=800,
        )
        roles = [role for role, _ in server.bodies]
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    assert (summary["turn_format"], summary["protocol"], summary["tasks"], summary["complete"]) == (
        "bolt",
        "vcoder",
        2,
        True,
    )
    vc, wb = summary["by_protocol"]["vcoder"], summary["by_protocol"]["webgen-bench"]
    # both apps built on the second turn; every case sees the built app's own controls under both agents
    assert vc["accuracy"] == wb["accuracy"] == 1.0 and vc["cases"] == wb["cases"] == 4
    assert vc["appearance"] == 4.0 and wb["appearance"] == 4.0  # "Score: 4" / 5 * 5; "Grade: 4" summed over 2 tasks
    assert {p["turn_format"] for p in (vc, wb)} == {"bolt"}
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "out" / "results.jsonl").read_text().splitlines())}
    for row in rows.values():
        assert row["built"] and row["turns"] == 3 and row["finished"]
        graded = row["by_protocol"]["webgen-bench"]
        assert 1 <= graded["appearance_shots"] <= 3 and graded["agent"] == "webvoyager"
    assert roles.count("builder") == 6 and roles.count("benchmark_judge") == 2 and roles.count("webvoyager") == 4
