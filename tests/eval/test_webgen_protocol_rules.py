"""WebGen-Bench's reading rules, pure: the verdict by substring of the last reply, the grade after "Grade", the
screenshot count, WebVoyager's action patterns and history clipping, and each protocol's divisors. The expected
values are worked out from the benchmark's scripts (compute_acc.py, compute_grade.py, get_screenshots.py,
webvoyager/utils.py), not from vcoder's code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vcoder.eval.webgen_appearance import appearance_messages, appearance_score, first_grade, shot_count
from vcoder.eval.webgen_config import WebGenConfig
from vcoder.eval.webgen_rows import protocol_summary
from vcoder.gui.webvoyager import OMITTED, chosen_action, clip_images, extract_action, read_verdict


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Thought: done.\nAction: ANSWER; YES", "YES"),
        ("Thought: I hoped for YES.\nAction: ANSWER; NO", "YES"),  # any YES wins, even in the thought
        ("PARTIAL, not quite YES", "YES"),  # YES is looked for first
        ("Thought: half of it.\nAction: ANSWER; PARTIALLY", "PARTIAL"),
        ("YESTERDAY it failed", "YES"),  # a substring, not a word
        ("yes", "NO"),  # case-sensitive
        ("Partial", "NO"),
        ("Thought: keep going.\nAction: Scroll [WINDOW]; [down]", "NO"),  # ran out of iterations mid-action
        ("", "NO"),
        (None, "NO"),
    ],
)
def test_the_verdict_is_read_as_compute_acc_reads_it(text, verdict):
    assert read_verdict(text).value == verdict


@pytest.mark.parametrize(
    ("text", "grade"),
    [
        ("Analysis: good.\n\nGrade: 4", 4),
        ("Analysis: good.\n\n**Grade:** [5]", 5),
        ("grade\n\nthree... no, 2", 2),  # any case, across lines
        ("GRADE: 10", 1),  # one digit
        ("I grade the page's 3 sections... Grade: 5", 3),  # the first digit after the first "Grade"
        ("Score: 5", 0),  # unparsed -> 0
        ("Grade: excellent", 0),
        ("", 0),
        (None, 0),
    ],
)
def test_the_grade_is_the_first_digit_after_grade_and_0_when_none(text, grade):
    assert first_grade(text) == grade


def test_up_to_three_screens_of_768_px():
    assert [shot_count(h) for h in (0, 1, 768, 769, 1536, 1537, 2304, 5000)] == [0, 1, 1, 2, 2, 3, 3, 3]


def test_the_appearance_request_is_the_prompt_then_the_screenshots():
    png = b"\x89PNG\r\n\x1a\n" + bytes(8)  # never decoded: image_data_url keeps PNG bytes as they are
    messages = appearance_messages("A bakery site.", [png, png])
    assert messages[0] == {"role": "system", "content": "You are a helpful assistant."}
    parts = messages[1]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url"]
    assert "constructed based on the following instruction:\n\nA bakery site.\n\nGrade the webpage" in parts[0]["text"]
    assert parts[0]["text"].rstrip().endswith("Grade: [1–5]\n\nYour Response:")


def test_webvoyager_action_patterns():
    assert chosen_action("Thought: go.\nAction: Click [3]") == "Click [3]"
    assert chosen_action("Action: Click [3]") is None and chosen_action("Thought: hm") is None
    assert chosen_action("Thought: a\nAction: Wait\nObservation: x") == "Wait"
    assert extract_action("Click [12]") == ("click", {"number": "12"})
    assert extract_action("Click 4") == ("click", {"number": "4"})
    assert extract_action("Type [5]; [bob@example.com]") == ("type", {"number": "5", "content": "bob@example.com"})
    assert extract_action("Scroll [WINDOW]; [up]") == ("scroll", {"number": "WINDOW", "content": "up"})
    assert extract_action("Wait") == ("wait", {}) and extract_action("GoBack") == ("goback", {})
    assert extract_action("ANSWER; [YES]") == ("answer", {"content": "YES"})
    assert extract_action("Press Enter") == (None, {}) and extract_action("please Wait") == (None, {})


def test_only_the_last_three_screenshots_stay_in_the_history():
    def observation(i):
        return {"role": "user", "content": [{"type": "text", "text": f"task {i} Observation: look"}, {"type": "x"}]}

    messages = [{"role": "system", "content": "s"}]
    for i in range(5):
        messages += [observation(i), {"role": "assistant", "content": f"a{i}"}]
    messages.append({"role": "user", "content": "Format ERROR"})
    clipped = clip_images(messages, 3)
    assert [m["content"] for m in clipped[1:5:2]] == [f"task 0{OMITTED}", f"task 1{OMITTED}"]
    assert [isinstance(m["content"], list) for m in clipped if m["role"] == "user"] == [
        False,
        False,
        True,
        True,
        True,
        False,
    ]
    assert clipped[-1] == messages[-1] and [m["content"] for m in clipped[2::2]][:5] == [f"a{i}" for i in range(5)]


def _row(verdicts, appearance, status="scored"):
    scores = {"YES": 1.0, "PARTIAL": 0.5, "NO": 0.0}
    cases = [{"verdict": v, "score": scores[v]} for v in verdicts]
    return {"status": status, "cases": cases, "appearance": appearance}


def test_each_protocol_divides_as_its_scripts_do():
    tasks = [("a", ""), ("b", ""), ("c", ""), ("d", "")]
    counts = {"a": 2, "b": 1, "c": 2, "d": 3}
    # d was not scored (its server failed): vcoder leaves it out, the benchmark counts its cases and grade as 0
    rows = {"a": _row(["YES", "PARTIAL"], 4.0), "b": _row(["NO"], 0.0), "c": _row(["YES", "YES"], 5.0)}
    rows["d"] = {"status": "infrastructure", "cases": [], "appearance": None}
    vc = protocol_summary(rows, tasks, "vcoder", case_counts=counts)
    nested = {k: {"by_protocol": {"webgen-bench": r}, **r} for k, r in rows.items()}
    wb = protocol_summary(nested, tasks, "webgen-bench", case_counts=counts)
    assert (vc["accuracy"], vc["appearance"], vc["complete"], vc["tasks"]) == (3.5 / 5, 3.0, False, 4)
    assert (wb["accuracy"], wb["appearance"], wb["complete"]) == (3.5 / 8, 9.0 / 4, False)
    assert appearance_score([4, 0, 5], 4) == 2.25 and appearance_score([], 0) is None


@pytest.mark.parametrize("protocol", ["nope", "vcoder,vcoder", "", "webgen_bench"])
def test_an_unknown_protocol_is_refused(protocol):
    with pytest.raises(ValueError, match="protocol must be vcoder or webgen-bench"):
        WebGenConfig(base_url="u", model="m", gui_base_url="u", gui_model="a", protocol=protocol)


def test_protocols_in_order_and_the_benchmark_window():
    config = WebGenConfig(base_url="u", model="m", gui_base_url="u", gui_model="a", protocol="webgen-bench,vcoder")
    assert config.protocols == ("webgen-bench", "vcoder") and config.fingerprint()["protocol"] == "webgen-bench,vcoder"
    assert config.fingerprint()["turn_format"] == "vcoder"
    bench = config.case_options("webgen-bench")
    assert (bench.render_width, bench.render_height, bench.gui_step_limit) == (1024, 768, 30)
    # each of the 15 iterations may use its request's whole budget (3 tries of 120 s) and the longest pause (10 s)
    assert bench.gui_deadline_ms == 15 * (3 * 120_000 + 10_000)
    assert (config.case_options().render_width, config.case_options().gui_step_limit) == (1280, 15)


def test_a_run_resumes_only_under_its_own_protocol(tmp_path):
    from tests.eval.test_webgen_bench import TASKS, write_tasks
    from tests.servers import dead_port
    from vcoder.eval.webgen_bench import EndpointUnavailable, evaluate_webgen

    write_tasks(tmp_path / "tasks.jsonl", TASKS)
    out = tmp_path / "out"
    out.mkdir()
    dead = f"http://127.0.0.1:{dead_port()}"
    # written before protocols existed: it was a vcoder run
    old = {"model": "m", "agent_model": "a", "judge_model": "a", "max_turns": 1, "max_actions": 15}
    (out / "run.json").write_text(json.dumps(old))
    settings = {"base_url": dead, "model": "m", "gui_base_url": dead, "gui_model": "a", "max_retries": 0}
    with pytest.raises(ValueError, match="protocol 'vcoder' -> 'webgen-bench'"):
        evaluate_webgen(tmp_path / "tasks.jsonl", out, WebGenConfig(**settings, protocol="webgen-bench"))
    with pytest.raises(EndpointUnavailable):  # the same protocol passes the check and goes on to the servers
        evaluate_webgen(tmp_path / "tasks.jsonl", out, WebGenConfig(**settings), progress=False)


def test_the_cli_refuses_an_unknown_protocol(tmp_path):
    cmd = [sys.executable, "-m", "vcoder", "eval", "webgen-bench", "--tasks", str(tmp_path / "t.jsonl")]
    cmd += ["--base-url", "http://127.0.0.1:9", "--model", "m", "--gui-base-url", "http://127.0.0.1:9"]
    cmd += ["--gui-model", "a", "--out", str(tmp_path / "out"), "--protocol", "webgen_bench"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "protocol must be vcoder or webgen-bench" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_the_final_site_is_what_the_last_step_served(tmp_path):
    from types import SimpleNamespace

    from vcoder.eval.webgen_task import final_site

    result = SimpleNamespace(out_dir=tmp_path, files={"index.html": "<p>source</p>"})
    written = tmp_path / "step_2" / "site"
    assert final_site(result, SimpleNamespace(turn=2)) == ({"index.html": "<p>source</p>"}, written)
    assert final_site(result, SimpleNamespace(turn=2, served_dir=written))[1] == written
    dist = tmp_path / "step_2" / "build" / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text('<script type="module" src="/assets/index.js"></script>')
    (dist / "assets" / "index.js").write_text("document.body.append('built')")
    (dist / "assets" / "logo.png").write_bytes(b"\x89PNG")
    files, folder = final_site(result, SimpleNamespace(turn=2, served_dir=dist))  # a Bolt project's build
    assert folder == dist and sorted(files) == ["assets/index.js", "index.html"]
    assert final_site(result, SimpleNamespace(turn=2, served_dir=None)) == ({}, None)  # its build failed


def test_the_builders_turn_format_is_checked_and_reaches_the_episode():
    config = WebGenConfig(base_url="u", model="m", gui_base_url="u", gui_model="a", turn_format="bolt")
    assert config.episode_options().turn_format == "bolt" and config.fingerprint()["turn_format"] == "bolt"
    with pytest.raises(ValueError, match="turn_format must be one of .*vcoder.*bolt.*html"):
        WebGenConfig(base_url="u", model="m", gui_base_url="u", gui_model="a", turn_format="html")
