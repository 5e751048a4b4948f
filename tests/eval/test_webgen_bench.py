"""`vcoder eval webgen-bench` end to end through the CLI in a subprocess: real Chromium, a real loopback server.

The scripted server (``webgen_servers.RoutedServer``) is the builder, the GUI agent and the judge at once, answering
by request content, so the verdicts and the accuracy are known by hand.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.eval.webgen_servers import RoutedServer
from tests.inprocess import vcoder
from tests.servers import dead_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def case(task: str, category: str = "Functional Testing") -> dict:
    return {"task": task, "expected_result": "It works", "task_category": {"primary_category": category}}


def task(task_id: str, instruction: str, cases: list[dict], category: str = "Content") -> dict:
    return {
        "id": task_id,
        "instruction": instruction,
        "Category": {"primary_category": category},
        "ui_instruct": cases,
    }


TASKS = [
    task(
        "t-ok",
        "A bakery page. [site:good]",
        [case("Open [YES]"), case("Add [PARTIAL]", "Data Display"), case("Pay [NO]")],
    ),
    task("t-bad", "A shop. [site:garbage]", [case("Buy [YES]"), case("Find [YES]", "Design Validation")]),
    task("t/one", "A <b>tool</b>. [site:good]", [case("Use it [YES]")], category="Tools"),
]


def write_tasks(path, tasks) -> None:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))


def command(tmp_path, server, *extra: str) -> list[str]:
    return [
        *(sys.executable, "-m", "vcoder", "eval", "webgen-bench", "--tasks", str(tmp_path / "tasks.jsonl")),
        *("--base-url", server.base_url, "--model", "scripted", "--gui-base-url", server.base_url),
        *("--gui-model", "scripted", "--out", str(tmp_path / "out"), "--width", "640", "--height", "480"),
        *("--no-progress", "--json", *extra),
    ]


def webgen(tmp_path, server, *extra: str, timeout: float = 500) -> subprocess.CompletedProcess:
    return subprocess.run(command(tmp_path, server, *extra), capture_output=True, text=True, timeout=timeout)


def results(tmp_path) -> dict[str, dict]:
    rows = {}
    for text in (tmp_path / "out" / "results.jsonl").read_text().splitlines():
        try:
            row = json.loads(text)
        except json.JSONDecodeError:
            continue
        rows[row["id"]] = row
    return rows


@pytest.mark.timeout(900)
def test_one_shot_accuracy_by_hand_then_resume(tmp_path):
    write_tasks(tmp_path / "tasks.jsonl", TASKS)
    with RoutedServer() as server:
        proc = webgen(tmp_path, server)
        assert proc.returncode == 0, proc.stderr
        requests = [server.count(role) for role in ("builder", "agent", "judge")]
        summary = json.loads(proc.stdout)
        # t-ok 1 + 0.5 + 0 of 3; t-bad never built: 0 of 2; t/one 1 of 1 -> 2.5 / 6
        assert summary == json.loads((tmp_path / "out" / "summary.json").read_text())
        assert summary["accuracy"] == pytest.approx(2.5 / 6) and summary["task_accuracy"] == pytest.approx(0.5)
        assert summary["appearance"] == pytest.approx(8 / 3)  # 4, 0 (not built), 4
        assert (summary["n"], summary["n_scored"], summary["cases"], summary["complete"]) == (3, 3, 6, True)
        assert (summary["yes"], summary["partial"], summary["no"]) == (2, 1, 3)
        assert summary["failed_ids"] == ["t-bad"] and summary["missing_ids"] == [] and summary["mode"] == "one-shot"
        assert summary["by_category"] == {
            "Content": {"tasks": 2, "cases": 5, "accuracy": 0.3},
            "Tools": {"tasks": 1, "cases": 1, "accuracy": 1.0},
        }
        assert summary["by_case_category"]["Data Display"] == {"cases": 1, "accuracy": 0.5}
        # one builder reply per task, one agent answer per case of a built site, one grade per built site
        assert requests == [3, 4, 2]
        assert server.count("builder", "Open [YES]") == 0  # the builder never sees the cases

        rows = results(tmp_path)
        ok, bad, one = rows["t-ok"], rows["t-bad"], rows["t/one"]
        assert [(c["verdict"], c["reason"]) for c in ok["cases"]] == [
            ("YES", "scripted yes"),
            ("PARTIAL", "scripted partial"),
            ("NO", "scripted no"),
        ]
        assert ok["accuracy"] == 0.5 and ok["appearance"] == 4.0 and ok["built"] and ok["error"] is None
        assert ok["turns"] == 1 and ok["finished"] and ok["screenshot"] == "tasks/t-ok/final.png"
        assert (tmp_path / "out" / ok["screenshot"]).read_bytes()[:4] == b"\x89PNG"
        assert bad["status"] == "scored" and bad["accuracy"] == 0.0 and not bad["built"] and bad["appearance"] == 0.0
        assert bad["error"].startswith("build failed: no well-formed turn in 1") and bad["malformed_turns"] == 1
        assert [c["verdict"] for c in bad["cases"]] == ["NO", "NO"] and bad["screenshot"] is None
        assert one["folder"].startswith("tasks/t_one-") and one["accuracy"] == 1.0
        report = (tmp_path / "out" / "report.html").read_text()
        assert (
            report.count('class="v YES"') == 2 and report.count('class="v NO"') == 3 and "scripted partial" in report
        )
        assert report.count("data:image/jpeg;base64,") == 2 and "A &lt;b&gt;tool&lt;/b&gt;" in report
        assert "41.7%" in report and "The site failed to build, so every case counts 0" in report

        # a re-run resumes: nothing is asked again, the summary is the same; a torn last line changes nothing
        for torn in ("", '{"id": "t-bad", "status": "sc'):
            with open(tmp_path / "out" / "results.jsonl", "a") as fh:
                fh.write(torn)
            again = webgen(tmp_path, server)
            assert again.returncode == 0, again.stderr
            assert json.loads(again.stdout) == summary
            assert [server.count(role) for role in ("builder", "agent", "judge")] == requests


@pytest.mark.timeout(600)
def test_agent_mode_builds_over_turns_with_the_cases_hidden(tmp_path):
    write_tasks(
        tmp_path / "tasks.jsonl", [task("fix", "A bakery. [site:fix]", [case("Open [YES]"), case("Pay [NO]")])]
    )
    with RoutedServer() as server:
        proc = webgen(tmp_path, server, "--max-turns", "3")
        builder = [body for role, body in server.bodies if role == "builder"]
    assert proc.returncode == 0, proc.stderr
    row = results(tmp_path)["fix"]
    # turn 1 is garbage (malformed, -1), turn 2 the good site with <finish/>: built, the cases run on it
    assert (row["turns"], row["malformed_turns"], row["finished"], row["mode"]) == (2, 1, True, "agent")
    assert row["accuracy"] == 0.5 and row["built"] and json.loads(proc.stdout)["mode"] == "agent"
    assert len(builder) == 2
    feedback = builder[1]["messages"][3]["content"]
    assert "rejected and changed nothing" in feedback and "Open [YES]" not in json.dumps(builder[1]["messages"])


@pytest.mark.timeout(900)
def test_server_failures_and_timeouts_are_retried_not_counted(tmp_path):
    tasks = [
        task("ok", "A bakery. [site:good]", [case("Open [YES]")]),
        task("builder-500", "A shop. [site:good] {fail-builder}", [case("Buy [YES]")]),
        task("agent-500", "A blog. [site:good]", [case("Read {fail-agent} [YES]"), case("Like [YES]")]),
        task("slow", "A tool. [site:good] {slow-builder}", [case("Use [PARTIAL]")]),
    ]
    write_tasks(tmp_path / "tasks.jsonl", tasks)
    fail = [("builder", "{fail-builder}"), ("agent", "{fail-agent}")]
    with RoutedServer(fail=fail, delay_s=[("builder", "{slow-builder}", 6.0)]) as server:
        proc = webgen(tmp_path, server, "--max-retries", "0", "--timeout-ms", "2000")
        assert proc.returncode == 3, proc.stderr
        summary = json.loads(proc.stdout)
        assert summary["n_scored"] == 1 and summary["accuracy"] == 1.0 and not summary["complete"]
        assert summary["missing_ids"] == ["builder-500", "agent-500", "slow"]
        errors = summary["infrastructure"]
        assert (
            errors["builder-500"].startswith("policy failed on turn 1: RequestFailed")
            and "500" in errors["builder-500"]
        )
        assert errors["agent-500"].startswith("the GUI agent's server failed on 1 request(s): RequestFailed")
        assert "timed out after 2000 ms" in errors["slow"]
        assert "3 task(s) not scored" in proc.stderr and "run the same command again" in proc.stderr
        rows = results(tmp_path)
        assert rows["agent-500"]["status"] == "infrastructure" and rows["agent-500"]["accuracy"] is None
        assert "Not scored (a server or the browser failed" in (tmp_path / "out" / "report.html").read_text()

        server.fail.clear()
        server.delay_s.clear()
        healed = webgen(tmp_path, server)
        assert healed.returncode == 0, healed.stderr
        summary = json.loads(healed.stdout)
        assert summary["complete"] and summary["accuracy"] == pytest.approx((1 + 1 + 1 + 1 + 0.5) / 5)
        assert server.count("builder", "A bakery") == 1  # the scored task was not run again


@pytest.mark.timeout(900)
def test_a_killed_run_resumes_without_losing_or_repeating_a_task(tmp_path):
    tasks = [task("first", "A bakery. [site:good]", [case("Open [YES]")])]
    tasks.append(task("second", "A shop. [site:good] {slow-builder}", [case("Buy [PARTIAL]")]))
    write_tasks(tmp_path / "tasks.jsonl", tasks)
    with RoutedServer(delay_s=[("builder", "{slow-builder}", 300.0)]) as server:
        proc = subprocess.Popen(
            command(tmp_path, server, "--max-concurrency", "1"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own group: Chromium goes down with it
        )
        try:
            path, end = tmp_path / "out" / "results.jsonl", time.monotonic() + 300
            while not (path.is_file() and path.read_text().count("\n") == 1) and time.monotonic() < end:
                assert proc.poll() is None, "the run ended before it was killed"
                time.sleep(0.5)
            while server.count("builder", "A shop") == 0 and time.monotonic() < end:
                time.sleep(0.2)  # the second task is under way
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
        assert list(results(tmp_path)) == ["first"]
        with open(path, "a") as fh:  # as if the kill had come in the middle of writing a line
            fh.write('{"id": "second", "status": "scored", "accu')
        server.delay_s.clear()
        resumed = webgen(tmp_path, server, "--max-concurrency", "1")
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["complete"] and summary["accuracy"] == pytest.approx(0.75)
    assert server.count("builder", "A bakery") == 1 and server.count("builder", "A shop") == 2
    assert set(results(tmp_path)) == {"first", "second"} and results(tmp_path)["second"]["accuracy"] == 0.5


@pytest.mark.timeout(300)
def test_configuration_errors_exit_2_and_write_nothing(tmp_path):
    write_tasks(tmp_path / "tasks.jsonl", TASKS)
    with RoutedServer() as server:
        dead = f"http://127.0.0.1:{dead_port()}"
        cmd = command(tmp_path, server, "--max-retries", "0")[3:]  # without `python -m vcoder`
        # refused before any work: in this process (a subprocess each cost seconds of imports)
        unreachable = vcoder(*cmd, "--gui-base-url", dead)  # the last --gui-base-url wins
        assert unreachable.returncode == 2, unreachable.stderr
        assert "--gui-base-url: cannot reach the OpenAI-compatible server at " + dead in unreachable.stderr
        assert "vllm serve" in unreachable.stderr and "nothing was written" in unreachable.stderr
        assert not (tmp_path / "out").exists() and unreachable.stdout == ""
        for extra, message in [
            (["--gui-step-limit", "16"], "gui_step_limit must be in 1..15"),
            (["--judge-url", dead], "--judge-base-url and --judge-model go together"),
            (["--ids", "t-ok,nope"], "no task with id 'nope'"),
        ]:
            proc = vcoder(*cmd, *extra)
            assert proc.returncode == 2 and message in proc.stderr, (extra, proc.stderr)
        (tmp_path / "tasks.jsonl").write_text(json.dumps(TASKS[0]) + "\n" + '{"id": "2", "instruction": ""}\n')
        proc = vcoder(*cmd)
        assert proc.returncode == 2 and "tasks.jsonl line 2: 'instruction' must be a non-empty string" in proc.stderr
        assert not (tmp_path / "out").exists()
