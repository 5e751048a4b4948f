"""Held-out scoring: the evaluation's Design2Code rows, rendered at the size the caller trained at."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# the page says "narrow" below 500 px and "wide" above: which one a render shows tells its viewport width
RESPONSIVE = (
    "<html><head><style>.w{display:none}@media (min-width:500px){.n{display:none}.w{display:block}}</style></head>"
    "<body><h1 class='n'>apples and bananas</h1><h1 class='w'>xylophone quartz</h1></body></html>"
)
NARROW_COPY = "```html\n<html><body><h1>apples and bananas</h1></body></html>\n```"


def test_rows_follow_the_render_size(pool):
    from vcoder.pipelines.grpo.heldout import score_predictions

    narrow = score_predictions([RESPONSIVE], [NARROW_COPY], width=400, height=300, pool=pool)[0]
    wide = score_predictions([RESPONSIVE], [NARROW_COPY], width=1280, height=720, pool=pool)[0]
    assert narrow["text"] == 1.0 and narrow["block_match"] > 0.5 and narrow["error"] is None
    assert wide["text"] == 0.0 and wide["overall"] == 0.0  # at 1280 px the reference says "wide": nothing matches


def test_rows_are_the_evaluations_rows(pool):
    from vcoder.eval.scoring import prediction_html, score_rendered
    from vcoder.pipelines.grpo.heldout import mean_metrics, score_predictions

    outputs = [NARROW_COPY, "sorry, I cannot write that page"]
    rows = score_predictions([RESPONSIVE, RESPONSIVE], outputs, width=400, height=300, pool=pool, ids=["a", "b"])
    for row, raw in zip(rows, outputs):
        html, note = prediction_html(raw)
        ref, pred = pool.render_many([RESPONSIVE, html], width=400, height=300)
        expected = score_rendered(row["id"], ref, pred, note=note)
        assert {k: row[k] for k in expected} == expected
    assert rows[1]["note"] and rows[1]["overall"] == 0.0  # no HTML: scored as a page of its text, as the eval does
    assert [r["valid"] for r in rows] == [1.0, 1.0]
    mean = mean_metrics(rows)
    assert mean["n"] == 2 and mean["overall"] == pytest.approx((rows[0]["overall"] + 0.0) / 2)
