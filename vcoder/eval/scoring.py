"""Score one rendered Design2Code sample: block metrics, CLIP, and the evaluation's failure rules.

:func:`score_rendered` turns a rendered (reference, prediction) pair into its ``results.jsonl`` row;
:func:`prediction_html` is the page a raw model output is scored as. The rules
(:mod:`vcoder.eval.design2code` says why they differ from the official scoring code):

- a reference that could not be rendered is not the model's fault: no scores, the error ``"reference failed to
  render: ..."``; summaries leave the sample out of the means and the next run retries it;
- a missing prediction (``"missing prediction"``), or one that could not be rendered (``"prediction failed to
  render: ..."``), scores 0 on every metric;
- otherwise the row holds the block metrics (``vcoder.metrics.block_scores``), CLIP when a scorer is given, and
  ``overall``, their mean; a metric that crashes on one pair makes that row a zero with the error, never a crash.

The evaluation runner uses the same pieces, with :func:`score_pair` in worker processes.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcoder.eval.results import BLOCK_METRICS, METRICS, MISSING_PREDICTION, REFERENCE_FAILED, make_row, zero_row

if TYPE_CHECKING:
    from vcoder.eval.clip_score import ClipScorer
    from vcoder.rendering import Rendered

logger = logging.getLogger(__name__)

THUMB_WIDTH, THUMB_MAX_HEIGHT = 360, 1400


def score_rendered(
    sample_id: str,
    ref: Rendered,
    pred: Rendered | None,
    *,
    clip: ClipScorer | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """Score one rendered (reference, prediction) pair with the Design2Code evaluation's semantics.

    Args:
        sample_id: the sample's id (the row's ``id``).
        ref: the rendered reference page.
        pred: the rendered prediction, or None when there is no prediction.
        clip: a CLIP scorer (``vcoder.eval.clip_score.ClipScorer``); None leaves ``clip`` null and ``overall``
            the mean of the four block metrics.
        note: how the prediction was read (e.g. no HTML found: scored as text), kept in the row.

    Returns:
        The ``results.jsonl`` row: ``{"id", "block_match", "text", "position", "color", "clip", "overall",
        "error"}``, then ``n_ref`` / ``n_pred`` / ``n_matched`` for a scored pair and ``note`` when given. Failures
        follow the module's rules (zeros with the error; no scores for a reference failure).
    """
    metrics = METRICS if clip is not None else BLOCK_METRICS
    row = failure_row(sample_id, ref, pred, metrics=metrics, note=note)
    if row is not None:
        return row
    clip_value, row = clip_or_row(clip, sample_id, ref, pred, note=note)
    if row is not None:
        return row
    block = functools.partial(score_pair, ref.png, ref.layout, pred.png, pred.layout, None)
    return pair_row(sample_id, block, clip_value, metrics=metrics, note=note)


def prediction_html(raw: str) -> tuple[str, str | None]:
    """The page a raw model output is scored as, and a note when it held no HTML.

    Fences and chatter are stripped (``vcoder.metrics.extract_html``); output with no markup at all is scored as a
    page holding its text, as the official ``make_html`` does, and the note says so.

    Returns:
        ``(html, note)``; ``note`` is None when HTML was found.
    """
    from vcoder.metrics import extract_html

    html = extract_html(raw)
    if html is not None:
        return html, None
    return f"<html><body><p>{raw}</p></body></html>", "no HTML found in the prediction; scored its text as a page"


def _extra(note: str | None) -> dict[str, Any]:
    return {"note": note} if note else {}


def failure_row(
    sample_id: str, ref: Rendered, pred: Rendered | None, *, metrics: tuple[str, ...], note: str | None = None
) -> dict[str, Any] | None:
    """The row of a sample that needs no metric work (reference failed, prediction missing or failed), else None."""
    if not ref.ok:
        return make_row(sample_id, {}, metrics=metrics, error=f"{REFERENCE_FAILED}: {ref.error}")
    if pred is None:
        return zero_row(sample_id, MISSING_PREDICTION, metrics=metrics)
    if not pred.ok:
        error = f"prediction failed to render: {pred.error}"
        return zero_row(sample_id, error, metrics=metrics, extra=_extra(note))
    return None


def clip_or_row(
    scorer: ClipScorer | None, sample_id: str, ref: Rendered, pred: Rendered, *, note: str | None = None
) -> tuple[float | None, dict[str, Any] | None]:
    """``(CLIP score, None)`` of a rendered pair (None without a scorer), or ``(None, zero row)`` when CLIP fails."""
    if scorer is None:
        return None, None
    try:
        return scorer.score(ref, pred), None
    except Exception as exc:  # one bad image must not stop the run; the row says what happened
        logger.warning("CLIP failed on sample %s: %s", sample_id, exc)
        return None, zero_row(sample_id, f"clip failed: {exc}", metrics=METRICS, extra=_extra(note))


def pair_row(
    sample_id: str,
    block: Callable[[], dict[str, Any]],
    clip_value: float | None,
    *,
    metrics: tuple[str, ...],
    note: str | None = None,
) -> dict[str, Any]:
    """The row of a rendered pair: ``block()`` gives :func:`score_pair`'s result (or raises: the row is a zero)."""
    try:
        result = block()
    except Exception as exc:  # a metric crash on one page is that page's error, never the run's
        logger.warning("scoring sample %s failed: %s", sample_id, exc)
        error = f"scoring failed: {type(exc).__name__}: {exc}"
        return zero_row(sample_id, error, metrics=metrics, extra=_extra(note))
    scores = {**result["scores"], "clip": clip_value}
    return make_row(sample_id, scores, metrics=metrics, extra={**result["extra"], **_extra(note)})


def score_pair(ref_png: bytes, ref_layout, pred_png: bytes, pred_layout, thumbs: tuple[str, str] | None) -> dict:
    """Block scores of one rendered pair (picklable: runs in worker processes); writes the report thumbnails too.

    Returns:
        ``{"scores": {block_match, text, position, color}, "extra": {n_ref, n_pred, n_matched}}``.
    """
    from vcoder.images import decode_png
    from vcoder.metrics import block_scores

    s = block_scores(ref_layout, pred_layout, ref_image=decode_png(ref_png), pred_image=decode_png(pred_png))
    if thumbs is not None:
        thumbnail(ref_png, Path(thumbs[0]))
        thumbnail(pred_png, Path(thumbs[1]))
    return {
        "scores": {"block_match": s.block_match, "text": s.text, "position": s.position, "color": s.color},
        "extra": {"n_ref": s.n_ref, "n_pred": s.n_pred, "n_matched": s.n_matched},
    }


def thumbnail(png: bytes, path: Path) -> None:
    """Write the report's JPEG thumbnail of a screenshot (the top of a long page)."""
    from PIL import Image

    from vcoder.images import to_pil

    img = to_pil(png)
    scale = THUMB_WIDTH / max(img.width, 1)
    small = img.resize((THUMB_WIDTH, max(1, round(img.height * scale))), Image.BILINEAR)
    if small.height > THUMB_MAX_HEIGHT:  # long pages: the top is what a person compares first
        small = small.crop((0, 0, THUMB_WIDTH, THUMB_MAX_HEIGHT))
    small.save(path, "JPEG", quality=72)
