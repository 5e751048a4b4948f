"""`vcoder eval webgen-bench` against a real `transformers serve` of the tiny VLM: its answers are noise, so what is
checked is the plumbing: it completes, noise counts as failures (0), and no task or case is dropped."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.eval.test_webgen_bench import case, task, write_tasks
from tests.eval.webgen_servers import RoutedServer
from tests.servers import SAMPLING

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def run(tmp_path, builder: tuple[str, str], agent: tuple[str, str], out: str, *extra: str):
    cmd = [sys.executable, "-m", "vcoder", "eval", "webgen-bench", "--tasks", str(tmp_path / "tasks.jsonl")]
    cmd += ["--base-url", builder[0], "--model", builder[1], "--gui-base-url", agent[0], "--gui-model", agent[1]]
    cmd += ["--out", str(tmp_path / out), "--json", "--no-progress", "--width", "640", "--height", "480"]
    cmd += [
        "--extra-body",
        json.dumps({"generation_config": SAMPLING}),
        "--max-retries",
        "1",
        "--max-concurrency",
        "1",
    ]
    cmd += ["--gui-timeout-ms", "180000", "--judge-timeout-ms", "180000", "--gui-deadline-ms", "400000", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1500)


def rows(path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}


@pytest.mark.timeout(1800)
def test_the_tiny_model_as_gui_agent_and_judge(tmp_path, tiny_vlm_server):
    tasks = [
        task("good", "A bakery. [site:good]", [case("Open the menu"), case("Read the title", "Data Display")]),
        task("garbage", "A shop. [site:garbage]", [case("Buy a cake")]),
    ]
    write_tasks(tmp_path / "tasks.jsonl", tasks)
    served = (tiny_vlm_server.base_url, tiny_vlm_server.model)
    with RoutedServer() as builder:
        proc = run(
            tmp_path, (builder.base_url, "scripted"), served, "out", "--gui-step-limit", "2", "--gui-max-tokens", "24"
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    assert summary["complete"] and summary["n_scored"] == 2 and summary["cases"] == 3
    got = rows(tmp_path / "out" / "results.jsonl")
    good, garbage = got["good"], got["garbage"]
    assert good["built"] and len(good["cases"]) == 2
    for entry in good["cases"]:
        assert entry["verdict"] in ("YES", "PARTIAL", "NO") and entry["steps_taken"] <= 2 and entry["reason"]
    assert good["accuracy"] == sum(c["score"] for c in good["cases"]) / 2
    assert good["appearance"] is None or 0 <= good["appearance"] <= 5  # noise rarely holds a "Score: N" line
    assert garbage["accuracy"] == 0.0 and not garbage["built"] and garbage["cases"][0]["verdict"] == "NO"
    assert summary["accuracy"] == pytest.approx(good["accuracy"] * 2 / 3)
    assert (tmp_path / "out" / "report.html").is_file()


@pytest.mark.timeout(1200)
def test_the_tiny_model_as_builder_fails_to_build_and_counts_zero(tmp_path, tiny_vlm_server):
    write_tasks(tmp_path / "tasks.jsonl", [task("noise", "A bakery.", [case("Open the menu"), case("Pay")])])
    served = (tiny_vlm_server.base_url, tiny_vlm_server.model)
    proc = run(tmp_path, served, served, "out", "--max-tokens", "48", "--max-turns", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    row = rows(tmp_path / "out" / "results.jsonl")["noise"]
    assert row["status"] == "scored" and not row["built"] and row["accuracy"] == 0.0 and row["turns"] in (1, 2)
    assert [c["verdict"] for c in row["cases"]] == ["NO", "NO"] and row["error"].startswith("build failed:")
    summary = json.loads(proc.stdout)
    assert summary["accuracy"] == 0.0 and summary["failed_ids"] == ["noise"] and summary["complete"]


@pytest.mark.timeout(1200)
def test_the_tiny_model_under_the_benchmarks_protocol(tmp_path, tiny_vlm_server):
    """A real server takes WebGen-Bench's requests (WebVoyager's conversation with its screenshot, its sampling
    fields, the appearance prompt with the screenshots) and the noise it answers is read by the benchmark's rules."""
    from vcoder.eval.webgen_appearance import first_grade
    from vcoder.gui.webvoyager import read_verdict

    write_tasks(tmp_path / "tasks.jsonl", [task("good", "A bakery. [site:good]", [case("Open the menu")])])
    served = (tiny_vlm_server.base_url, tiny_vlm_server.model)
    with RoutedServer() as builder:
        proc = run(
            tmp_path,
            (builder.base_url, "scripted"),
            served,
            "out",
            "--gui-step-limit",
            "2",
            "--protocol",
            "webgen-bench",
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    assert summary["protocol"] == "webgen-bench" and summary["complete"] and summary["tasks"] == 1
    graded = rows(tmp_path / "out" / "results.jsonl")["good"]["by_protocol"]["webgen-bench"]
    (entry,) = graded["cases"]
    last = next(d for d in entry["details"] if d.startswith("answer: ")).split(" ", 2)[2]
    assert entry["verdict"] == read_verdict(last).value and "iterations: 2" in entry["details"]
    assert graded["appearance_shots"] == 1 and graded["appearance"] == first_grade(graded["appearance_reply"])
    assert summary["appearance"] == graded["appearance"] and summary["accuracy"] == entry["score"]
