"""The Design2Code evaluation: render every reference and prediction once, score them, never lose a sample.

``evaluate(testset, predictions, out)`` writes ``out/results.jsonl`` (one flushed line per sample, resumable),
``out/summary.json`` and ``out/report.html`` and returns the summary. Pages are rendered the benchmark's way
(Chromium, viewport 1280x720, full page) in vcoder's hermetic pool with ``base_dir`` = the testset folder for BOTH
pages, so ``rick.jpg`` and other assets beside the references serve the predictions too. Each rendered pair is
scored by the rules of :mod:`vcoder.eval.scoring` (``score_rendered`` scores one pair alone): the block metrics
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
- Only text a person can see counts: a layout block is kept only where the screenshot shows ink that contrasts with
  what is behind it, in glyphs at least 6 px tall, and its box is the tight ink box (``vcoder.metrics.ink``). The
  official pixel diff finds blocks by their rendered pixels, so text hidden by colour, opacity, clipping, covering
  or size is missing there too; the layout alone would have counted it. CLIP masks (inpaints) the text boxes of
  both screenshots, as the official code does.
- This evaluation reports the official forms of the scores (``text``, ``position``, ``color`` averaged over matched
  blocks). The training rewards use forms that deleting content cannot raise; ``vcoder.metrics.design2code``
  describes both.
- Colours: CIEDE2000 on ``skimage`` Lab (D65 white) where ``colormath`` uses D50; differences are ~1-5 % of
  Delta E (covered by the agreement test).
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import logging
import multiprocessing
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcoder.data.design2code import list_samples
from vcoder.eval.results import BLOCK_METRICS, METRICS, ResultsWriter, is_done, read_results, summarise
from vcoder.eval.scoring import clip_or_row, failure_row, pair_row, prediction_html, score_pair, thumbnail

if TYPE_CHECKING:
    from vcoder.rendering import Rendered

logger = logging.getLogger(__name__)

VIEWPORT = (1280, 720)  # Design2Code's screenshot viewport (Playwright's default); full-page screenshots


def read_prediction(path: Path) -> tuple[str | None, str | None]:
    """(HTML to render, note) for a prediction file; (None, None) when the file does not exist."""
    if not path.is_file():
        return None, None
    return prediction_html(path.read_text(encoding="utf-8", errors="replace"))


@dataclass(frozen=True)
class _Options:
    """What one run renders and scores with (``evaluate``'s arguments, resolved)."""

    testset: Path
    predictions: Path
    out: Path
    metrics: tuple[str, ...]
    overwrite: bool
    workers: int | None
    max_pages: int
    timeout_ms: float
    chunk: int
    progress: bool

    @property
    def results_path(self) -> Path:
        return self.out / "results.jsonl"

    def thumbs(self, sample_id: str) -> tuple[str, str]:
        """Where the report's reference and prediction thumbnails of a sample go."""
        return str(self.out / "thumbs" / f"{sample_id}.ref.jpg"), str(self.out / "thumbs" / f"{sample_id}.pred.jpg")


@dataclass(frozen=True)
class _Sample:
    """One sample after rendering: the reference, the prediction (None: no prediction file), how it was read."""

    id: str
    ref: Rendered
    pred: Rendered | None
    note: str | None


@dataclass(frozen=True)
class _Pending:
    """A sample on its way to a row: finished (``row``), or block scores computing in a worker (``job``)."""

    sample: _Sample
    row: dict[str, Any] | None = None
    job: cf.Future | None = None
    clip: float | None = None


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
    metrics = METRICS if computes_clip else BLOCK_METRICS
    logger.info("%d samples, %d already scored, %d to score; overall of %s", len(ids), len(done), len(todo), metrics)

    if todo:
        options = _Options(
            testset=testset,
            predictions=predictions,
            out=out,
            metrics=metrics,
            overwrite=overwrite,
            workers=workers,
            max_pages=max_pages,
            timeout_ms=timeout_ms,
            chunk=chunk,
            progress=progress,
        )
        _run(todo, options, scorer, pool)
    rows = read_results(results_path)
    summary = summarise(rows, ids, metrics=metrics)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    from vcoder.eval.report import write_report

    write_report(out / "report.html", [rows[i] for i in ids if i in rows], summary, thumbs_dir=out / "thumbs")
    return summary


def _stored_clip(rows: dict[str, dict]) -> bool:
    return any(r.get("clip") is not None for r in rows.values())


def _run(todo: list[str], options: _Options, scorer, pool) -> None:
    from tqdm.auto import tqdm

    from vcoder.rendering import BrowserPool

    own_pool = pool is None
    if own_pool:
        pool = BrowserPool(max_pages=options.max_pages, timeout_ms=options.timeout_ms)
    n_workers = (os.cpu_count() or 1) if options.workers is None else options.workers
    executor = (
        cf.ProcessPoolExecutor(n_workers, mp_context=multiprocessing.get_context("spawn")) if n_workers else _Inline()
    )
    bar = tqdm(total=len(todo), desc="design2code", unit="page", file=sys.stderr, disable=not options.progress)
    try:
        with ResultsWriter(options.results_path, overwrite=options.overwrite) as writer:
            pending: list[_Pending] = []
            for start in range(0, len(todo), options.chunk):
                batch = _render_batch(todo[start : start + options.chunk], options, pool)
                submitted = [_submit(sample, options, executor, scorer) for sample in batch]
                _drain(pending, options, writer, bar)  # the previous batch scored while this one rendered
                pending = submitted
            _drain(pending, options, writer, bar)
    finally:
        bar.close()
        executor.shutdown(wait=True, cancel_futures=True)
        if own_pool:
            pool.close()


def _render_batch(ids: list[str], options: _Options, pool) -> list[_Sample]:
    refs = [(options.testset / f"{i}.html").read_text(encoding="utf-8", errors="replace") for i in ids]
    preds = [read_prediction(options.predictions / f"{i}.html") for i in ids]
    htmls = refs + [html for html, _ in preds if html is not None]
    rendered = pool.render_many(
        htmls,
        width=VIEWPORT[0],
        height=VIEWPORT[1],
        full_page=True,
        timeout_ms=options.timeout_ms,
        base_dirs=[str(options.testset)] * len(htmls),
    )
    rendered_preds = iter(rendered[len(ids) :])
    return [
        _Sample(i, ref, next(rendered_preds) if html is not None else None, note)
        for i, ref, (html, note) in zip(ids, rendered[: len(ids)], preds)
    ]


def _submit(sample: _Sample, options: _Options, executor, scorer) -> _Pending:
    """Start a sample's scoring: rows for samples that need no metric work are built at once."""
    ref, pred = sample.ref, sample.pred
    ref_thumb, pred_thumb = options.thumbs(sample.id)
    row = failure_row(sample.id, ref, pred, metrics=options.metrics, note=sample.note)
    if row is not None:
        if ref.ok:
            _thumb_quiet(ref.png, ref_thumb)
        return _Pending(sample, row=row)
    job = executor.submit(score_pair, ref.png, ref.layout, pred.png, pred.layout, (ref_thumb, pred_thumb))
    clip_value, row = clip_or_row(scorer, sample.id, ref, pred, note=sample.note)
    return _Pending(sample, row=row, job=job, clip=clip_value)


def _drain(pending: list[_Pending], options: _Options, writer: ResultsWriter, bar) -> None:
    for item in pending:
        row = item.row
        if row is None:
            row = pair_row(item.sample.id, item.job.result, item.clip, metrics=options.metrics, note=item.sample.note)
        writer.write(row)
        bar.update(1)


def _thumb_quiet(png: bytes | None, path: str) -> None:
    if png:
        try:
            thumbnail(png, Path(path))
        except Exception as exc:
            logger.debug("thumbnail %s: %s", path, exc)
