"""`vcoder eval webgen-bench --turn-format bolt`: a released WebGen-Agent model's path through the benchmark. A
loopback server answers in Bolt markup for two real WebGen-Bench tasks (a broken import first, the fix once the
build error is fed back, then finish); every project installs offline and builds in the sandbox, and the built
sites are graded under both protocols (vcoder's, and WebGen-Bench's WebVoyager agent and appearance prompt)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.sites.bolt_servers import BoltModelServer
from tests.sites.test_bolt_episode import POLICY, STOCK

# builds run as the nobody user under one RLIMIT_NPROC: one pytest-xdist worker runs them all (scripts/test.sh)
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("nobody")]


def test_eval_webgen_bench_with_a_bolt_builder_under_both_protocols(bolt_sandbox, tmp_path):
    policy = {"id": POLICY["id"], "instruction": POLICY["instruction"], "ui_instruct": POLICY["test_cases"]}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(STOCK) + "\n" + json.dumps(policy) + "\n")
    with BoltModelServer() as server:
        url = server.base_url
        done = subprocess.run(
            [sys.executable, "-m", "vcoder", "eval", "webgen-bench", "--tasks", str(tmp_path / "tasks.jsonl")]
            + ["--base-url", url, "--model", "scripted", "--gui-base-url", url, "--gui-model", "scripted"]
            + ["--turn-format", "bolt", "--max-turns", "3", "--protocol", "vcoder,webgen-bench"]
            + ["--max-concurrency", "1", "--no-progress", "--out", str(tmp_path / "out")],
            capture_output=True,
            text=True,
            timeout=580,
        )
        builders = server.builder_requests()
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["turn_format"] == "bolt" and summary["complete"] and summary["tasks"] == 2
    vc, wb = summary["by_protocol"]["vcoder"], summary["by_protocol"]["webgen-bench"]
    # every case passes only on the built app (the agents answer YES when its controls are on the page)
    assert vc["accuracy"] == 1.0 and wb["accuracy"] == 1.0 and vc["cases"] == wb["cases"] == 4
    assert vc["appearance"] == pytest.approx(4.0) and wb["appearance"] == pytest.approx(4.0)
    assert vc["turn_format"] == wb["turn_format"] == "bolt"
    # each task: the broken build was fed back (Vite's own error) and fixed in the next turn, then finish
    assert len(builders) == 6
    fed_back = [b["messages"][-1]["content"] for b in builders if len(b["messages"]) == 4]
    assert len(fed_back) == 2 and all('Could not resolve "./components/' in f for f in fed_back)
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == ["000001", "000005"] and all(r["built"] for r in rows)
