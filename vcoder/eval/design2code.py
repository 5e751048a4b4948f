"""The Design2Code evaluation: render every reference and prediction once, score them, never lose a sample.

``evaluate(testset, predictions, out)`` writes ``out/results.jsonl`` (one flushed line per sample, resumable),
``out/summary.json`` and ``out/report.html`` and returns the summary. Pages are rendered the benchmark's way
(Chromium, viewport 1280x720, full page) in vcoder's hermetic pool with ``base_dir`` = the testset folder for BOTH
pages, so ``rick.jpg`` and other assets beside the references serve the predictions too. The block metrics
(``vcoder.metrics.block_scores``) run in worker processes while the browser renders the next pages; CLIP runs in
this process (``vcoder.eval.clip_score``).

Deliberate deviations from the official scoring code (Si et al., 2024, ``metrics/visual_score.py``), and why:

- Text blocks come from the renderer's layout (text ranges' client rects, one block per text-tag element) instead of
  re-rendering two colour-coded copies of each page and diffing their pixels; colours are measured from the
  screenshot's text pixels by ``block_scores``. Same block definition, three renders fewer per page; the agreement
  test (``tests/eval/test_agreement.py``) compares both against a literal pixel implementation: mean absolute
  difference <= 0.03 per metric.
- Bounded merge search (see ``vcoder.metrics.design2code``): the official search is unbounded and can take minutes.
- A missing prediction, or one that cannot be rendered, scores 0 on every metric and is listed (the official code
  drops it from the average). A reference that cannot be rendered is not the model's fault: it is listed, left
  out of the means and retried by the next run.
- Predictions are read, never rewritten: the official ``pre_process`` edits prediction files in place (wraps bare
  text in ``<html>``, drops elements repeated more than 50 times). Here raw model output goes through
  ``extract_html``; output with no HTML at all is scored as a page holding its text (as the official wrapper
  does) and noted in the row. Repetition is not truncated: the bounded matcher keeps such pages fast.
- Text directly under ``<body>`` (in no text-tag element) forms a block here; the official colour coding never
  recolours ``<body>``, so such text is invisible to it. Pages from the benchmark rarely have any.
- Colours: CIEDE2000 on ``skimage`` Lab (D65 white) where ``colormath`` uses D50; differences are ~1-5 % of
  Delta E (covered by the agreement test).
"""

from __future__ import annotations

import concurrent.futures as cf
import io
import json
import logging
import multiprocessing
import os
import sys
from pathlib import Path
from typing import Any

from vcoder.eval.results import (
    METRICS,
    ResultsWriter,
    is_done,
    make_row,
    natural_key,
    read_results,
    summarise,
    zero_row,
)

logger = logging.getLogger(__name__)

VIEWPORT = (1280, 720)  # Design2Code's screenshot viewport (Playwright's default); full-page screenshots
THUMB_WIDTH, THUMB_MAX_HEIGHT = 360, 1400


def list_samples(testset: str | os.PathLike) -> list[str]:
    """Sample ids of a testset folder: the stems of its ``<id>.html`` files, in Design2Code's numeric order."""
    folder = Path(testset)
    if not folder.is_dir():
        raise FileNotFoundError(
            f"testset folder {str(folder)!r} does not exist; make one with `vcoder data design2code`"
        )
    ids = sorted((p.stem for p in folder.glob("*.html") if p.is_file()), key=natural_key)
    if not ids:
        raise FileNotFoundError(f"testset folder {str(folder)!r} has no <id>.html files; is it the right folder?")
    return ids


def read_prediction(path: Path) -> tuple[str | None, str | None]:
    """(HTML to render, note) for a prediction file; (None, None) when the file does not exist."""
    if not path.is_file():
        return None, None
    from vcoder.metrics import extract_html

    raw = path.read_text(encoding="utf-8", errors="replace")
    html = extract_html(raw)
    if html is not None:
        return html, None
    # like the official make_html: output with no markup is scored as a page holding the text
    return f"<html><body><p>{raw}</p></body></html>", "no HTML found in the prediction; scored its text as a page"


def _thumbnail(png: bytes, path: Path) -> None:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        img = img.convert("RGB")
        scale = THUMB_WIDTH / max(img.width, 1)
        small = img.resize((THUMB_WIDTH, max(1, round(img.height * scale))), Image.BILINEAR)
        if small.height > THUMB_MAX_HEIGHT:  # long pages: the top is what a person compares first
            small = small.crop((0, 0, THUMB_WIDTH, THUMB_MAX_HEIGHT))
        small.save(path, "JPEG", quality=72)


def score_pair(ref_png: bytes, ref_layout, pred_png: bytes, pred_layout, thumbs: tuple[str, str] | None) -> dict:
    """Block scores of one rendered pair (runs in a worker process); also writes the two report thumbnails."""
    from vcoder.images import decode_png
    from vcoder.metrics import block_scores

    s = block_scores(ref_layout, pred_layout, ref_image=decode_png(ref_png), pred_image=decode_png(pred_png))
    if thumbs is not None:
        _thumbnail(ref_png, Path(thumbs[0]))
        _thumbnail(pred_png, Path(thumbs[1]))
    return {
        "scores": {"block_match": s.block_match, "text": s.text, "position": s.position, "color": s.color},
        "extra": {"n_ref": s.n_ref, "n_pred": s.n_pred, "n_matched": s.n_matched},
    }


class _Inline:
    """An executor that runs jobs at submit time (``workers=0``: no worker processes)."""

    def submit(self, fn, *args):
        future: cf.Future = cf.Future()
        try:
            future.set_result(fn(*args))
        except Exception as exc:
            future.set_exception(exc)
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def evaluate(
    testset: str | os.PathLike,
    predictions: str | os.PathLike,
    out: str | os.PathLike,
    *,
    overwrite: bool = False,
    clip: bool = True,
    clip_model: str = "ViT-B-32",
    clip_pretrained: str | None = "openai",
    clip_tiny: bool = False,
    workers: int | None = None,
    max_pages: int = 2,
    timeout_ms: float = 15000,
    chunk: int = 8,
    pool=None,
    progress: bool = True,
) -> dict[str, Any]:
    """Score a predictions folder against a Design2Code testset folder.

    Args:
        testset: folder of ``<id>.html`` references (+ ``rick.jpg`` and other assets they use).
        predictions: folder of ``<id>.html`` predictions (HTML or raw model output); absent ids score 0.
        out: output folder (created); must differ from both input folders.
        overwrite: re-score every sample instead of resuming from ``out/results.jsonl``.
        clip: compute the CLIP score (needs weights available locally, or ``clip_tiny``).
        clip_model: open_clip model name.
        clip_pretrained: open_clip pretrained tag resolved offline, or a local checkpoint path.
        clip_tiny: a tiny random CLIP (tests only: its numbers mean nothing).
        workers: processes for the block metrics (default: one per core; 0 = in this process).
        max_pages: concurrent browser pages.
        timeout_ms: render deadline per page.
        chunk: samples rendered per batch (the unit that is in flight when a run is interrupted).
        pool: a started ``BrowserPool`` to use (not closed here); default: one is made for this run.
        progress: show a tqdm progress bar on stderr.

    Returns:
        The summary (also written to ``out/summary.json``); see ``vcoder.eval.results.summarise``.
    """
    testset, predictions, out = Path(testset), Path(predictions), Path(out)
    ids = list_samples(testset)
    if not predictions.is_dir():
        raise FileNotFoundError(
            f"predictions folder {str(predictions)!r} does not exist (make it with `vcoder predict`)"
        )
    if out.resolve() in (testset.resolve(), predictions.resolve()):
        raise ValueError(f"--out {str(out)!r} is an input folder; evaluation never writes into its inputs")
    (out / "thumbs").mkdir(parents=True, exist_ok=True)
    results_path = out / "results.jsonl"
    done = {} if overwrite else {k: r for k, r in read_results(results_path).items() if is_done(r)}
    todo = [i for i in ids if i not in done]

    from vcoder.eval.clip_score import ClipScorer

    scorer = ClipScorer.create(clip_model, clip_pretrained, tiny=clip_tiny) if clip and todo else None
    computes_clip = (scorer is not None) if todo else _stored_clip(done)
    metrics = METRICS if computes_clip else METRICS[:4]
    logger.info("%d samples, %d already scored, %d to score; overall of %s", len(ids), len(done), len(todo), metrics)

    if todo:
        _run(todo, testset, predictions, out, results_path, overwrite, scorer, metrics, workers, max_pages,
             timeout_ms, chunk, pool, progress)  # fmt: skip
    rows = read_results(results_path)
    summary = summarise(rows, ids, metrics=metrics)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    from vcoder.eval.report import write_report

    write_report(out / "report.html", [rows[i] for i in ids if i in rows], summary, thumbs_dir=out / "thumbs")
    return summary


def _stored_clip(rows: dict[str, dict]) -> bool:
    return any(r.get("clip") is not None for r in rows.values())


def _run(todo, testset, predictions, out, results_path, overwrite, scorer, metrics, workers, max_pages, timeout_ms,
         chunk, pool, progress) -> None:  # fmt: skip
    from tqdm.auto import tqdm

    from vcoder.rendering import BrowserPool

    own_pool = pool is None
    if own_pool:
        pool = BrowserPool(max_pages=max_pages, timeout_ms=timeout_ms)
    n_workers = (os.cpu_count() or 1) if workers is None else workers
    executor = (
        cf.ProcessPoolExecutor(n_workers, mp_context=multiprocessing.get_context("spawn")) if n_workers else _Inline()
    )
    bar = tqdm(total=len(todo), desc="design2code", unit="page", file=sys.stderr, disable=not progress)
    try:
        with ResultsWriter(results_path, overwrite=overwrite) as writer:
            pending: list = []
            for start in range(0, len(todo), chunk):
                batch = _render_batch(todo[start : start + chunk], testset, predictions, out, pool, timeout_ms)
                submitted = [_submit(item, executor, scorer, metrics) for item in batch]
                _drain(pending, writer, metrics, bar)  # the previous batch scored while this one rendered
                pending = submitted
            _drain(pending, writer, metrics, bar)
    finally:
        bar.close()
        executor.shutdown(wait=True, cancel_futures=True)
        if own_pool:
            pool.close()


def _render_batch(ids, testset: Path, predictions: Path, out: Path, pool, timeout_ms) -> list[dict]:
    items = []
    for sample_id in ids:
        ref_html = (testset / f"{sample_id}.html").read_text(encoding="utf-8", errors="replace")
        pred_html, note = read_prediction(predictions / f"{sample_id}.html")
        items.append({"id": sample_id, "ref_html": ref_html, "pred_html": pred_html, "note": note})
    htmls = [it["ref_html"] for it in items] + [it["pred_html"] for it in items if it["pred_html"] is not None]
    rendered = pool.render_many(
        htmls,
        width=VIEWPORT[0],
        height=VIEWPORT[1],
        full_page=True,
        timeout_ms=timeout_ms,
        base_dirs=[str(testset)] * len(htmls),
    )
    refs, preds = iter(rendered[: len(items)]), iter(rendered[len(items) :])
    for it in items:
        it["ref"] = next(refs)
        it["pred"] = next(preds) if it["pred_html"] is not None else None
        it["thumbs"] = (str(out / "thumbs" / f"{it['id']}.ref.jpg"), str(out / "thumbs" / f"{it['id']}.pred.jpg"))
    return items


def _submit(item: dict, executor, scorer, metrics) -> tuple[dict, Any]:
    """(item, future or finished row): rows for samples that need no metric work are built at once."""
    sample_id, ref, pred = item["id"], item["ref"], item["pred"]
    extra = {"note": item["note"]} if item["note"] else {}
    if not ref.ok:
        return item, make_row(sample_id, {}, metrics=metrics, error=f"reference failed to render: {ref.error}")
    if pred is None:
        _thumb_quiet(ref.png, item["thumbs"][0])
        return item, zero_row(sample_id, "missing prediction", metrics=metrics)
    if not pred.ok:
        _thumb_quiet(ref.png, item["thumbs"][0])
        return item, zero_row(sample_id, f"prediction failed to render: {pred.error}", metrics=metrics, **extra)
    future = executor.submit(score_pair, ref.png, ref.layout, pred.png, pred.layout, item["thumbs"])
    clip_value = None
    if scorer is not None:
        try:
            clip_value = scorer.score(ref, pred)
        except Exception as exc:  # one bad image must not stop the run; the row says what happened
            logger.warning("CLIP failed on sample %s: %s", sample_id, exc)
            return item, zero_row(sample_id, f"clip failed: {exc}", metrics=metrics, **extra)
    item["clip"], item["extra"] = clip_value, extra
    return item, future


def _drain(pending, writer: ResultsWriter, metrics, bar) -> None:
    for item, job in pending:
        if isinstance(job, dict):
            row = job
        else:
            try:
                res = job.result()
                row = make_row(item["id"], {**res["scores"], "clip": item["clip"]}, metrics=metrics,
                               **res["extra"], **item["extra"])  # fmt: skip
            except Exception as exc:  # a metric crash on one page is that page's error, never the run's
                logger.warning("scoring sample %s failed: %s", item["id"], exc)
                row = zero_row(item["id"], f"scoring failed: {type(exc).__name__}: {exc}", metrics=metrics)
        writer.write(row)
        bar.update(1)


def _thumb_quiet(png: bytes | None, path: str) -> None:
    if png:
        try:
            _thumbnail(png, Path(path))
        except Exception as exc:
            logger.debug("thumbnail %s: %s", path, exc)
