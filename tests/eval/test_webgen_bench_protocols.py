"""Both protocols in one run, in process: real Chromium (the session pool), a real loopback server that is the
builder, both GUI agents and both judges (``webgen_servers.RoutedServer``), so every verdict and grade is known by
hand. What the webgen-bench protocol must show: WebGen-Bench's appearance request (up to 3 scrolled 1024x768
screenshots, an unparsed grade counting 0, the sum over ALL tasks), its WebVoyager agent (temperature 1, at most 15
iterations, never more than the last 3 screenshots, a real click on the page) and its verdict reading (substring
of the last reply)."""

from __future__ import annotations

import asyncio
import base64
import io
import json

import pytest
from PIL import Image

from tests.eval.test_webgen_bench import case, task, write_tasks
from tests.eval.webgen_servers import RoutedServer
from vcoder.eval.webgen_appearance import scrolled_screenshots
from vcoder.eval.webgen_bench import evaluate_webgen, summary_line
from vcoder.eval.webgen_config import WebGenConfig
from vcoder.gui.webvoyager import FORMAT_ERROR, LIMIT_PROMPT, OMITTED

pytestmark = [pytest.mark.browser]

TASKS = [
    task(
        "tall",
        "A long bakery page. [site:tall]",
        [
            case("Open the menu [wv:click] [YES]"),
            case("Look around [wv:loop] [NO]", "Data Display"),
            case("Check the cakes [wv:quirk] [PARTIAL]"),
        ],
    ),
    task(
        "short",
        "A shop. [site:good] [grade:none]",
        [case("Buy [wv:format] [YES]"), case("Pay [wv:bad] [YES]"), case("Browse [wv:scroll-in] [NO]")],
    ),
    task("broken", "A blog. [site:garbage]", [case("Read [wv:click] [YES]")]),
]


def images(body: dict) -> list[bytes]:
    return [
        base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
        for message in body["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


def case_text(body: dict) -> str:
    return json.dumps(body["messages"][1])


@pytest.fixture(scope="module")
def both(pool, tmp_path_factory):
    """One run with --protocol vcoder,webgen-bench: (summary, rows, server bodies, out folder)."""
    tmp = tmp_path_factory.mktemp("protocols")
    write_tasks(tmp / "tasks.jsonl", TASKS)
    with RoutedServer() as server:
        config = WebGenConfig(
            base_url=server.base_url,
            model="scripted",
            gui_base_url=server.base_url,
            gui_model="scripted-agent",
            protocol="vcoder,webgen-bench",
            render_width=640,
            render_height=480,
            gui_deadline_ms=120_000,
        )
        summary = evaluate_webgen(tmp / "tasks.jsonl", tmp / "out", config, progress=False, pool=pool)
        bodies = list(server.bodies)
    rows = {
        json.loads(line)["id"]: json.loads(line) for line in (tmp / "out" / "results.jsonl").read_text().splitlines()
    }
    return summary, rows, bodies, tmp / "out"


def test_both_protocols_grade_the_same_sites_each_by_its_own_arithmetic(both):
    summary, rows, bodies, out = both
    builds = [b for role, b in bodies if role == "builder"]
    assert len(builds) == 3  # each site built once, graded twice
    assert summary == json.loads((out / "summary.json").read_text())
    assert (summary["protocol"], summary["tasks"], summary["complete"], summary["n_scored"]) == ("vcoder", 3, True, 3)
    vc, wb = summary["by_protocol"]["vcoder"], summary["by_protocol"]["webgen-bench"]
    # vcoder: the [YES]/[PARTIAL]/[NO] markers: tall 1 + 0 + 0.5, short 1 + 1 + 0, broken 0 -> 3.5 / 7
    assert summary["accuracy"] == vc["accuracy"] == pytest.approx(3.5 / 7)
    # webgen-bench: tall click YES + loop PARTIAL + quirk YES (NO answered, YES in its thought); short format
    # PARTIAL + bad NO + scroll inside the button YES (the press ran on the page); broken NO -> 4 / 7
    assert wb["accuracy"] == pytest.approx(4.0 / 7)
    assert (wb["yes"], wb["partial"], wb["no"]) == (3, 2, 2) and (vc["yes"], vc["partial"], vc["no"]) == (3, 1, 3)
    # appearance: vcoder's judge "Score: 4" on the two built sites, 0 for the broken one, mean 8/3; the benchmark's
    # "Grade: 4" on tall, an unparsed reply (0) on short, 0 for the broken one, summed over all 3 tasks
    assert summary["appearance"] == vc["appearance"] == pytest.approx(8 / 3)
    assert wb["appearance"] == pytest.approx(4 / 3) and wb["appearance_n"] == 3
    for part in (vc, wb):
        assert (part["agent_model"], part["judge_model"], part["turn_format"]) == (
            "scripted-agent",
            "scripted-agent",
            "vcoder",
        )
        assert part["tasks"] == 3 and part["complete"]
    assert summary["turn_format"] == "vcoder" and summary["agent_model"] == "scripted-agent"
    assert "under webgen-bench: accuracy 57.1%, appearance 1.33/5" in summary_line(summary)
    report = (out / "report.html").read_text()
    assert "By protocol" in report and "webgen-bench protocol (the benchmark" in report
    tall = rows["tall"]["by_protocol"]["webgen-bench"]
    assert [c["verdict"] for c in tall["cases"]] == ["YES", "PARTIAL", "YES"] and tall["agent"] == "webvoyager"
    assert tall["appearance"] == 4.0 and tall["appearance_shots"] == 3 and "Grade: 4" in tall["appearance_reply"]
    assert rows["tall"]["by_protocol"]["vcoder"]["agent"] == "vlm"
    assert [c["verdict"] for c in rows["tall"]["cases"]] == ["YES", "NO", "PARTIAL"]  # top level: the first protocol
    short = rows["short"]["by_protocol"]["webgen-bench"]
    assert short["appearance"] == 0.0 and short["appearance_reply"] == "Analysis: pleasant enough."
    assert rows["broken"]["by_protocol"]["webgen-bench"]["appearance"] == 0.0 and not rows["broken"]["built"]


def test_the_appearance_request_is_the_benchmarks(both):
    _, rows, bodies, out = both
    grading = {("tall" if "long bakery" in case_text(b) else "short"): b for r, b in bodies if r == "benchmark_judge"}
    assert set(grading) == {"tall", "short"}  # the broken site is graded 0 without a request
    tall = images(grading["tall"])
    assert len(tall) == 3 and len(images(grading["short"])) == 1
    # 1024x768 viewports scrolled 768 px apart: the page's colour bands, top to bottom (the button sits on band 1)
    colours = [Image.open(io.BytesIO(png)).convert("RGB") for png in tall]
    assert {im.size for im in colours} == {(1024, 768)}
    assert [im.getpixel((600, 700)) for im in colours] == [(221, 51, 51), (51, 221, 51), (51, 51, 221)]
    assert (out / "tasks" / "tall" / "appearance_3.png").is_file()
    assert (
        "temperature" not in grading["tall"]
        and grading["tall"]["messages"][0]["content"] == "You are a helpful assistant."
    )


def test_the_webvoyager_agent_requests(both):
    _, rows, bodies, _ = both
    agent = [b for role, b in bodies if role == "webvoyager"]
    assert {(b["temperature"], b["max_tokens"], b["seed"]) for b in agent} == {(1.0, 1000, 42)}
    assert all(len(images(b)) <= 3 for b in agent)
    loop = [b for b in agent if "[wv:loop]" in case_text(b)]
    assert len(loop) == 15  # the iteration cap: 14 observations, then the limit prompt
    last = loop[-1]["messages"]
    assert last[-1]["content"] == LIMIT_PROMPT.format(expected_result="It works") and len(images(loop[-1])) == 3
    omitted = [
        m for m in last if m["role"] == "user" and isinstance(m["content"], str) and m["content"].endswith(OMITTED)
    ]
    assert len(omitted) == 11 and omitted[0]["content"].startswith("Now given a task:")
    sizes = {Image.open(io.BytesIO(png)).size for png in images(loop[-1])}
    assert sizes == {(1024, 768)}
    # the click ran on the real page: the second request shows the button's new label
    click = [b for b in agent if "Open the menu" in case_text(b)]
    assert len(click) == 2 and '"Menu opened"' in click[1]["messages"][-1]["content"][0]["text"]
    # a reply without Thought/Action gets the format error (no screenshot), an unknown element the "cannot" message
    fmt = [b for b in agent if "[wv:format]" in case_text(b)]
    assert fmt[-1]["messages"][-1]["content"] == FORMAT_ERROR
    bad = [b for b in agent if "[wv:bad]" in case_text(b)]
    assert bad[-1]["messages"][-1]["content"].startswith("The action you have chosen cannot be executed")
    details = rows["tall"]["by_protocol"]["webgen-bench"]["cases"][2]["details"]
    assert (
        "iterations: 1" in details
        and "I hoped for YES" in rows["tall"]["by_protocol"]["webgen-bench"]["cases"][2]["reason"]
    )


def test_scrolled_screenshots_of_a_short_and_an_empty_page(pool, tmp_path):
    async def shots(html):
        return await scrolled_screenshots(pool, tmp_path, html, settle_timeout_ms=2000)

    short = asyncio.run(shots("<body style='margin:0'><div style='height:300px;background:#123'></div></body>"))
    # an empty body is 0 px tall in standards mode, so there is nothing to grade (in quirks mode the body's
    # scrollHeight is the viewport's, as in the benchmark's Chrome)
    empty = asyncio.run(shots("<!DOCTYPE html><html><head></head><body></body></html>"))
    assert len(short) == 1 and Image.open(io.BytesIO(short[0])).size == (1024, 768) and empty == []
