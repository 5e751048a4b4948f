"""score_rendered: one rendered pair to its results.jsonl row, with the evaluation's failure rules (real renders)."""

from __future__ import annotations

import pytest

from tests.eval.conftest import PAGES
from vcoder.eval.clip_score import ClipScorer
from vcoder.eval.results import FIELDS
from vcoder.eval.scoring import prediction_html, score_rendered
from vcoder.rendering import FailureKind, Rendered

BLOCKS = ("block_match", "text", "position", "color")


def test_prediction_html_strips_chatter_and_wraps_bare_text():
    assert prediction_html("Here:\n```html\n<p>x</p>\n```\nEnjoy!") == ("<p>x</p>", None)
    assert prediction_html("sorry") == (
        "<html><body><p>sorry</p></body></html>",
        "no HTML found in the prediction; scored its text as a page",
    )


@pytest.fixture(scope="module")
def render(pool):
    def rendered(name: str, side: str) -> Rendered:
        page = pool.render((PAGES / f"{name}.{side}.html").read_text(), width=1280, height=720, full_page=True)
        assert page.ok, page.error
        return page

    return rendered


@pytest.mark.parametrize(
    ("pair", "expected"),
    [
        # by hand from the definitions (tests/eval/test_agreement.py checks these against the official code)
        ("simple_identical", {"block_match": 1.0, "text": 1.0, "position": 1.0, "color": 1.0}),
        ("simple_removed", {"block_match": 2 / 3, "text": 1.0, "position": 1.0, "color": 1.0}),
        ("simple_text", {"block_match": 1.0, "text": (1 + 20 / 22) / 2, "position": 1.0, "color": 1.0}),
    ],
)
@pytest.mark.browser
def test_scored_pair_row(render, pair, expected):
    row = score_rendered("7", render(pair, "ref"), render(pair, "pred"))
    assert list(row)[: len(FIELDS)] == list(FIELDS) and row["id"] == "7" and row["error"] is None
    assert {m: row[m] for m in BLOCKS} == {m: pytest.approx(v, abs=0.03) for m, v in expected.items()}
    assert row["clip"] is None and row["overall"] == pytest.approx(sum(row[m] for m in BLOCKS) / 4)
    assert row["n_ref"] == 2 and row["n_matched"] == row["n_pred"] == (1 if pair == "simple_removed" else 2)


@pytest.mark.browser
def test_missing_and_unrenderable_predictions_score_zero(render):
    ref = render("simple_identical", "ref")
    missing = score_rendered("3", ref, None)
    assert missing == {
        "id": "3",
        **dict.fromkeys(BLOCKS, 0.0),
        "clip": None,
        "overall": 0.0,
        "error": "missing prediction",
    }
    failed = Rendered.failure(FailureKind.TIMEOUT, "timeout: the page did not finish in 15000 ms")
    row = score_rendered("4", ref, failed, note="no HTML found")
    assert row == {
        "id": "4",
        **dict.fromkeys(BLOCKS, 0.0),
        "clip": None,
        "overall": 0.0,
        "error": "prediction failed to render: timeout: the page did not finish in 15000 ms",
        "note": "no HTML found",
    }


@pytest.mark.browser
def test_a_reference_failure_has_no_scores(render):
    ref = Rendered.failure(FailureKind.BROWSER, "browser: Chromium died twice")
    row = score_rendered("5", ref, render("simple_identical", "pred"))
    assert row == {
        "id": "5",
        **dict.fromkeys((*BLOCKS, "clip", "overall")),
        "error": "reference failed to render: browser: Chromium died twice",
    }


@pytest.mark.browser
def test_clip_joins_the_row_and_the_overall(render):
    scorer = ClipScorer.create(tiny=True)
    row = score_rendered("1", render("simple_identical", "ref"), render("simple_identical", "pred"), clip=scorer)
    assert row["clip"] == pytest.approx(1.0, abs=1e-4)  # the same page twice: the same embedding
    assert row["overall"] == pytest.approx(sum(row[m] for m in (*BLOCKS, "clip")) / 5)
    assert score_rendered("1", render("simple_identical", "ref"), None, clip=scorer)["clip"] == 0.0


@pytest.mark.browser
def test_a_crashing_metric_is_that_rows_error(render):
    ref = render("simple_identical", "ref")
    undecodable = Rendered(ok=True, png=b"not a png", width=1280, height=720, layout=ref.layout)
    row = score_rendered("6", ref, undecodable)
    assert row["error"].startswith("scoring failed: ") and [row[m] for m in (*BLOCKS, "overall")] == [0.0] * 5
    broken_clip = ClipScorer(embedder=None)  # a scorer whose model is gone
    row = score_rendered("6", ref, render("simple_identical", "pred"), clip=broken_clip, note="n")
    assert row["error"] == "clip failed: 'NoneType' object has no attribute 'embed'" and row["note"] == "n"
    assert [row[m] for m in (*BLOCKS, "clip", "overall")] == [0.0] * 6
