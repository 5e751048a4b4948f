"""`vcoder eval design2code` end to end on tiny testsets: contract, missing/failed = 0, inputs untouched, resume."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from vcoder.eval.design2code import evaluate, read_prediction
from vcoder.eval.results import FIELDS, read_results

pytestmark = pytest.mark.browser

RAW = "Sure! Here is the page:\n```html\n<html><body><div>alpha bravo</div><img src='rick.jpg'></body></html>\n```\n"
HANG = "<html><body><p>never finishes</p><script>while (true) {}</script></body></html>"


def folder_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        h.update(str(p.relative_to(folder)).encode())
        if p.is_file():
            h.update(p.read_bytes())
            h.update(str(p.stat().st_mtime_ns).encode())
    return h.hexdigest()


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def spec():
    return {
        "2": ("identical", "pair"),
        "10": ("simple_text", "pair"),
        "3": ("simple_moved", None),
        "7": ("simple_text", RAW),
        "5": ("simple_color", "sorry, I cannot do that"),
    }


def test_scores_contract_missing_and_inputs_untouched(make_testset, spec, pool, tmp_path):
    testset, preds = make_testset(spec)
    before = folder_hash(testset), folder_hash(preds)
    out = tmp_path / "out"
    summary = evaluate(testset, preds, out, clip=False, workers=0, pool=pool, progress=False)
    assert (folder_hash(testset), folder_hash(preds)) == before

    rows = lines(out / "results.jsonl")
    assert [r["id"] for r in rows] == ["2", "3", "5", "7", "10"]  # numeric order, one line each
    for r in rows:
        assert list(r)[: len(FIELDS)] == list(FIELDS)
    by_id = {r["id"]: r for r in rows}
    assert by_id["2"]["block_match"] == by_id["2"]["text"] == by_id["2"]["color"] == pytest.approx(1.0)
    assert by_id["2"]["overall"] == pytest.approx(1.0) and by_id["2"]["error"] is None
    assert by_id["2"]["clip"] is None  # CLIP off: null, and overall is of the four others
    missing = by_id["3"]
    assert missing["error"] == "missing prediction"
    assert [missing[k] for k in ("block_match", "text", "position", "color", "overall")] == [0.0] * 5
    assert by_id["7"]["error"] is None and 0 < by_id["7"]["overall"] < 1  # raw output: the fenced HTML was scored
    # no HTML at all: scored as a page of its text, and noted
    assert by_id["5"]["note"] == "no HTML found in the prediction; scored its text as a page"
    assert by_id["5"]["error"] is None and by_id["5"]["overall"] < 0.5
    # by hand from the definitions: "bravo alpha" -> "bravo alphx" in one of two blocks
    assert by_id["10"]["text"] == pytest.approx((1 + 20 / 22) / 2, abs=0.03)
    assert by_id["10"]["n_ref"] == by_id["10"]["n_pred"] == by_id["10"]["n_matched"] == 2

    assert summary["n"] == 5 and summary["missing"] == 1 and summary["missing_ids"] == ["3"]
    assert summary["overall_of"] == ["block_match", "text", "position", "color"]
    expected = sum(r["overall"] for r in rows) / 5  # the missing sample counts as 0, it is not dropped
    assert summary["overall"] == pytest.approx(expected)
    assert json.loads((out / "summary.json").read_text())["missing_ids"] == ["3"]
    report = (out / "report.html").read_text()
    # both thumbnails of the four predicted samples, the reference's alone for the missing one
    assert report.count("data:image/jpeg;base64,") == 9 and "missing prediction" in report


def test_unrenderable_prediction_counts_zero(make_testset, tmp_path):
    from vcoder.rendering import BrowserPool

    testset, preds = make_testset({"1": ("identical", HANG), "4": ("identical", "pair")})
    # chunk=1: the busy loop burns a core until its deadline; the next sample must not share that window
    with BrowserPool(max_pages=2, timeout_ms=3000) as short:
        summary = evaluate(
            testset, preds, tmp_path / "o", clip=False, workers=0, pool=short, timeout_ms=3000, chunk=1, progress=False
        )
    rows = read_results(tmp_path / "o" / "results.jsonl")
    assert rows["1"]["error"].startswith("prediction failed to render: ")
    assert [rows["1"][m] for m in ("block_match", "text", "position", "color", "overall")] == [0.0] * 5
    assert rows["4"]["overall"] == pytest.approx(1.0)
    assert summary["failed_ids"] == ["1"] and summary["overall"] == pytest.approx(0.5)


def test_resume_skips_done_and_overwrite_redoes(make_testset, spec, pool, tmp_path):
    testset, preds = make_testset(spec)
    out = tmp_path / "out"
    evaluate(testset, preds, out, clip=False, workers=0, pool=pool, progress=False)
    first = lines(out / "results.jsonl")
    # simulate a crash after two samples, mid-way through writing the third line
    text = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(text[:2]) + text[2][:15])
    stats = pool.stats()["renders"]
    evaluate(testset, preds, out, clip=False, workers=0, pool=pool, progress=False)
    resumed = lines_tolerant(out / "results.jsonl")
    assert resumed[:2] == first[:2]  # kept as written, not re-scored
    assert sorted(r["id"] for r in resumed) == sorted(r["id"] for r in first)
    assert pool.stats()["renders"] - stats <= 2 * 3  # only the three unfinished samples were rendered
    evaluate(testset, preds, out, clip=False, workers=0, pool=pool, progress=False, overwrite=True)
    assert [r["id"] for r in lines(out / "results.jsonl")] == [r["id"] for r in first]


def lines_tolerant(path: Path) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return out


def test_read_prediction(tmp_path):
    (tmp_path / "a.html").write_text("```html\n<p>x</p>\n```")
    assert read_prediction(tmp_path / "a.html") == ("<p>x</p>", None)
    (tmp_path / "b.html").write_text("I cannot <do> that")
    assert read_prediction(tmp_path / "b.html") == (
        "<html><body><p>I cannot <do> that</p></body></html>",
        "no HTML found in the prediction; scored its text as a page",
    )
    assert read_prediction(tmp_path / "missing.html") == (None, None)


@pytest.mark.slow
def test_cli_prints_summary_and_uses_worker_processes(make_testset, tmp_path):
    testset, preds = make_testset(
        {"1": ("identical", "pair"), "2": ("removed_block", "pair"), "3": ("text_edit", None)}
    )
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "vcoder",
        "eval",
        "design2code",
        "--testset",
        str(testset),
        "--predictions",
        str(preds),
        "--out",
        str(out),
        "--json",
        "--no-clip",
        "--workers",
        "2",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert {"n", "missing", "block_match", "text", "position", "color", "clip", "overall"} <= set(summary)
    assert summary["n"] == 3 and summary["missing"] == 1 and summary["clip"] is None
    assert (out / "report.html").is_file() and len(lines(out / "results.jsonl")) == 3
    bad = subprocess.run([*cmd[:6], str(tmp_path / "nope"), *cmd[7:]], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "nope" in bad.stderr


def test_clip_column_tiny_and_one_warning_without_weights(make_testset, pool, tmp_path, caplog):
    testset, preds = make_testset({"1": ("identical", "pair"), "2": ("text_edit", None)})
    summary = evaluate(testset, preds, tmp_path / "a", clip_tiny=True, workers=0, pool=pool, progress=False)
    rows = read_results(tmp_path / "a" / "results.jsonl")
    assert rows["1"]["clip"] == pytest.approx(1.0, abs=1e-4) and rows["2"]["clip"] == 0.0  # missing: 0 on CLIP too
    assert summary["overall_of"] == ["block_match", "text", "position", "color", "clip"]

    with caplog.at_level("WARNING"):
        summary = evaluate(
            testset,
            preds,
            tmp_path / "b",
            clip_pretrained=str(tmp_path / "no-such-weights.pt"),
            workers=0,
            pool=pool,
            progress=False,
        )
    warnings = [r for r in caplog.records if "CLIP weights" in r.getMessage()]
    assert len(warnings) == 1 and "--clip-pretrained" in warnings[0].getMessage()
    assert summary["clip"] is None and summary["overall_of"] == ["block_match", "text", "position", "color"]
    assert read_results(tmp_path / "b" / "results.jsonl")["1"]["clip"] is None
