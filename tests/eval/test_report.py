"""report.html: self-contained, every sample with both screenshots and scores, errors shown, sortable."""

from __future__ import annotations

import pytest
from PIL import Image

from vcoder.eval.report import render_report, write_report
from vcoder.eval.results import BLOCK_METRICS as METRICS4
from vcoder.eval.results import make_row, summarise, zero_row


@pytest.fixture
def run(tmp_path):
    thumbs = tmp_path / "thumbs"
    thumbs.mkdir()
    for sid in ("1", "2"):
        for side, colour in (("ref", (30, 60, 200)), ("pred", (200, 60, 30))):
            Image.new("RGB", (36, 24), colour).save(thumbs / f"{sid}.{side}.jpg", "JPEG")
    rows = [
        make_row(
            "1",
            {"block_match": 0.9, "text": 0.8, "position": 0.7, "color": 0.6},
            metrics=METRICS4,
            extra={"n_ref": 3, "n_pred": 2, "n_matched": 2},
        ),
        make_row("2", {"block_match": 0.2, "text": 0.5, "position": 0.4, "color": 0.3}, metrics=METRICS4),
        zero_row("3", "missing prediction", metrics=METRICS4),
    ]
    summary = summarise({r["id"]: r for r in rows}, ["1", "2", "3"], metrics=METRICS4)
    return rows, summary, thumbs


def test_report_is_self_contained_with_scores_errors_and_sorting(run):
    rows, summary, thumbs = run
    page = render_report(rows, summary, thumbs_dir=thumbs)
    assert page.count("data:image/jpeg;base64,") == 4  # both screenshots of the two scored samples, embedded
    assert 'src="http' not in page and "<link" not in page  # nothing fetched from anywhere
    assert "missing prediction" in page and "no screenshot" in page
    assert 'data-blockmatch="0.9"' in page and "sortBy('overall'" in page
    assert "0.750" in page  # sample 1's overall (mean of the four) is shown
    assert "<td>blocks ref/pred</td><td>3/2</td>" in page and "<b>Missing:</b> 3" in page
    assert summary["overall"] == pytest.approx((0.75 + 0.35 + 0.0) / 3)


@pytest.mark.browser
def test_report_renders_in_chromium(run, pool, tmp_path):
    rows, summary, thumbs = run
    path = write_report(tmp_path / "report.html", rows, summary, thumbs_dir=thumbs)
    shot = pool.render(path.read_text(), full_page=True)
    assert shot.ok and not shot.console_errors, (shot.error, shot.console_errors)
    texts = " ".join(b.text for b in shot.layout.text_blocks)
    assert "Design2Code evaluation" in texts and "#3" in texts and "missing prediction" in texts
    assert shot.height > 600  # three sample rows below the summary
