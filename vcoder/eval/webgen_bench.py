"""The WebGen-Bench evaluation: build every site with a model server, test it with a VLM GUI agent, never drop a task.

``evaluate_webgen(tasks, out, config)`` runs each task of WebGen-Bench's ``test.jsonl`` (Lu et al., 2025): the model
builds the site in an episode (:func:`vcoder.sites.episode.run_site_episode`; one reply in one-shot mode,
``max_turns`` turns with feedback in agent mode), then every test case runs on the final site with the VLM GUI
agent (at most 15 actions, YES / PARTIAL / NO with its reason), and the screenshot judge grades its appearance
(0-5). It writes ``out/results.jsonl`` (one flushed line per task: resumable), ``out/summary.json`` and
``out/report.html`` (:mod:`vcoder.eval.webgen_report`), and ``out/tasks/<id>/`` (the episode folder, the final
screenshot). Accuracy arithmetic and rows: :mod:`vcoder.eval.webgen_rows`.

Choices, and why:

- The test cases are hidden from the builder: in agent mode the feedback after each turn carries the appearance
  grade, the console errors and the visible text, never the benchmark's cases (they would leak the answers), and
  the cases run once, on the final site (the last well-formed turn's). WebGen-Agent's own feedback tests come from
  agent-written test instructions, which this evaluation does not generate.
- A site that fails to build (no well-formed turn, no ``index.html``, a page that does not render) counts NO on
  all its cases (WebGen-Bench: a site that fails to start counts 0) and appearance 0 when a judge is configured.
- A task whose instruments failed (the builder's server after its retries, the browser, the judge's or the GUI
  agent's server, or an agent request cut off by the case deadline) is not scored: its row says
  ``status: "infrastructure"``, the summary lists it, the run exits with status 3 and the next run retries it.
- The run's settings are kept in ``out/run.json``; resuming with another model, mode, agent or protocol is refused.
- Protocols (``config.protocol``): ``vcoder`` grades as above; ``webgen-bench`` grades the same final site as the
  benchmark's scripts do (WebVoyager, :mod:`vcoder.gui.webvoyager`; the appearance prompt over scrolled
  screenshots, :mod:`vcoder.eval.webgen_appearance`; accuracy and appearance over ALL tasks). Both may run at once:
  the site is built once and each protocol's numbers are in ``by_protocol``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vcoder.eval.results import ResultsWriter, read_results
from vcoder.eval.webgen_config import FINGERPRINT_DEFAULTS, WebGenConfig
from vcoder.eval.webgen_rows import INFRASTRUCTURE, case_entry, is_scored, protocol_summary, summarise, task_row
from vcoder.sites.records import SiteTask

logger = logging.getLogger(__name__)

#: files and folders a run writes under ``out`` (``overwrite`` removes these and nothing else)
OUTPUTS = ("results.jsonl", "summary.json", "report.html", "run.json", "tasks", "thumbs")


class EndpointUnavailable(RuntimeError):
    """A model server does not answer (or does not serve the model) before the run starts; nothing was written."""


def load_tasks(source: str | Path, *, ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """WebGen-Bench task rows (``vcoder.data.load_webgen_bench``), checked: unique ids, the ``ids`` asked for exist.

    Raises:
        FileNotFoundError / ValueError: an unreadable file, a malformed line (named), a duplicate or unknown id.
    """
    from vcoder.data.webgen_bench import load_webgen_bench

    rows = load_webgen_bench(source)
    seen: set[str] = set()
    for row in rows:
        if row["id"] in seen:
            raise ValueError(f"task id {row['id']!r} appears twice in {source}; ids must be unique")
        seen.add(row["id"])
    if ids is not None:
        unknown = [i for i in ids if i not in seen]
        if unknown:
            raise ValueError(f"no task with id {unknown[0]!r} in {source} (ids look like {rows[0]['id']!r})")
        rows = [r for r in rows if r["id"] in set(ids)]
    return rows


def evaluate_webgen(
    tasks: str | Path,
    out: str | Path,
    config: WebGenConfig,
    *,
    ids: Sequence[str] | None = None,
    overwrite: bool = False,
    progress: bool = True,
    pool: Any = None,
) -> dict[str, Any]:
    """Build, test and grade every task; write ``out/results.jsonl``, ``summary.json`` and ``report.html``.

    Args:
        tasks: WebGen-Bench's ``test.jsonl`` (or a folder holding it).
        out: the output folder (created).
        config: the run's settings.
        ids: only these task ids (default: all).
        overwrite: start over (removes this evaluation's outputs in ``out``, nothing else) instead of resuming.
        progress: a progress bar on stderr.
        pool: a ``BrowserPool`` to use (not closed here); default: one is made for the run.

    Returns:
        The summary (see :func:`vcoder.eval.webgen_rows.summarise`) with the run's settings.

    Raises:
        FileNotFoundError / ValueError: bad tasks or settings, or ``out`` holds a run with other settings.
        EndpointUnavailable: a server does not answer before the run starts (nothing is written then).
    """
    rows = load_tasks(tasks, ids=ids)
    out = Path(out)
    _check_previous(out, config, overwrite)
    done = {} if overwrite else {k: r for k, r in read_results(out / "results.jsonl").items() if is_scored(r)}
    todo = [row for row in rows if row["id"] not in done]
    logger.info("%d tasks, %d already scored, %d to run (%s mode)", len(rows), len(done), len(todo), config.mode)
    if todo:
        from vcoder.sites.audit import check_endpoints

        problem = asyncio.run(check_endpoints(_clients(config)))
        if problem:
            raise EndpointUnavailable(f"{problem} (nothing was written)")
    if overwrite:
        _remove_outputs(out)
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    (out / "thumbs").mkdir(exist_ok=True)
    (out / "run.json").write_text(json.dumps(config.fingerprint(), indent=1) + "\n", encoding="utf-8")
    if todo:
        _run(todo, out, config, overwrite=overwrite, progress=progress, pool=pool)
    stored = read_results(out / "results.jsonl")
    summary = run_summary(stored, rows, config)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    from vcoder.eval.webgen_report import write_report

    write_report(out / "report.html", [stored[r["id"]] for r in rows if r["id"] in stored], summary, out=out)
    return summary


def run_summary(stored: dict[str, dict[str, Any]], rows: list[dict[str, Any]], config: WebGenConfig) -> dict[str, Any]:
    """The run's summary: :func:`~vcoder.eval.webgen_rows.summarise` of the headline protocol's verdicts, the run's
    settings, and the headline numbers of every protocol (``by_protocol``); ``protocol``, ``accuracy`` and
    ``appearance`` are the first protocol's, by its own arithmetic."""
    tasks = [(r["id"], r["category"]) for r in rows]
    counts = {r["id"]: len(SiteTask.from_dict(r).test_cases) for r in rows}
    summary = {**summarise(stored, tasks), "mode": config.mode}
    summary.update(config.fingerprint())
    parts = {p: protocol_summary(stored, tasks, p, case_counts=counts) for p in config.protocols}
    for part in parts.values():
        part.update(agent_model=config.gui_model, judge_model=summary["judge_model"], turn_format=config.turn_format)
    head = parts[config.protocols[0]]
    summary.update(protocol=head["protocol"], accuracy=head["accuracy"], appearance=head["appearance"])
    summary.update(tasks=len(rows), by_protocol=parts)
    summary["appearance_note"] = None if config.judge else "appearance not judged: no screenshot judge (--no-judge)"
    return summary


def _check_previous(out: Path, config: WebGenConfig, overwrite: bool) -> None:
    stored = out / "run.json"
    if overwrite or not stored.is_file():
        return
    try:
        before = json.loads(stored.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        before = {}
    before = {**FINGERPRINT_DEFAULTS, **before}
    differ = {k: (before.get(k), v) for k, v in config.fingerprint().items() if before.get(k) != v}
    if differ:
        listed = ", ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in differ.items())
        raise ValueError(
            f"--out {str(out)!r} holds a run with other settings ({listed}); give another --out, or --overwrite to "
            "start over"
        )


def _remove_outputs(out: Path) -> None:
    for name in OUTPUTS:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def _clients(config: WebGenConfig) -> dict[str, Any]:
    """One ``ChatClient`` per endpoint role, keyed by the CLI flag that names it."""
    from vcoder.chat import Endpoint, connect

    # the checks' clients: each server's request settings, at the chat client's default concurrency
    concurrency = Endpoint.max_concurrency
    clients = {
        "--base-url": connect(config.builder_endpoint()),
        "--gui-base-url": connect(config.agent_endpoint(max_concurrency=concurrency)),
    }
    judge = config.judge_server(max_concurrency=concurrency)
    if judge is not None:
        clients["--judge-base-url"] = connect(judge)
    return clients


def _run(todo: list[dict[str, Any]], out: Path, config: WebGenConfig, *, overwrite, progress, pool) -> None:
    from tqdm.auto import tqdm

    from vcoder.rendering import BrowserPool

    own_pool = pool is None
    if own_pool:
        pool = BrowserPool(max_pages=config.max_pages)
    bar = tqdm(total=len(todo), desc="webgen-bench", unit="task", file=sys.stderr, disable=not progress)
    try:
        with ResultsWriter(out / "results.jsonl", overwrite=overwrite) as writer:
            asyncio.run(_run_all(todo, out, config, pool, writer, bar))
    finally:
        bar.close()
        if own_pool:
            pool.close()


async def _run_all(todo, out: Path, config: WebGenConfig, pool, writer: ResultsWriter, bar) -> None:
    from vcoder.eval.webgen_task import TaskRunner

    builder = _clients(config)["--base-url"]
    runner = TaskRunner(config=config, out=out, pool=pool, builder=builder)
    gate = asyncio.Semaphore(config.max_concurrency)
    counted = {"score": 0.0, "cases": 0}

    async def one(row: dict[str, Any]) -> None:
        async with gate:
            try:
                result = await runner.run(row)
            except Exception as exc:  # a failure of ours, not the model's: listed, and retried by the next run
                logger.exception("task %s: the evaluation failed", row["id"])
                cases = [case_entry(c, None) for c in SiteTask.from_dict(row).test_cases]
                error = f"evaluation error: {type(exc).__name__}: {str(exc)[:300]}"
                result = task_row(row["id"], cases, status=INFRASTRUCTURE, built=False, error=error)
        writer.write(result)
        if result["accuracy"] is not None:
            counted["score"] += result["accuracy"] * result["n_cases"]
            counted["cases"] += result["n_cases"]
        if counted["cases"]:
            bar.set_postfix(accuracy=f"{counted['score'] / counted['cases']:.3f}", refresh=False)
        bar.update(1)

    try:
        await asyncio.gather(*(one(row) for row in todo))
    finally:
        await builder.aclose()


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _grade(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}/5"


def summary_line(summary: dict[str, Any]) -> str:
    """One human line of a summary (the CLI prints it without ``--json``)."""
    missing = f", {len(summary['missing_ids'])} not scored (re-run to retry)" if summary["missing_ids"] else ""
    others = [p for name, p in (summary.get("by_protocol") or {}).items() if name != summary.get("protocol")]
    also = "".join(
        f"; under {p['protocol']}: accuracy {_pct(p['accuracy'])}, appearance {_grade(p['appearance'])}"
        for p in others
    )
    return (
        f"WebGen-Bench ({summary['mode']}, {summary.get('protocol', 'vcoder')} protocol): accuracy "
        f"{_pct(summary['accuracy'])} over {summary['cases']} cases of {summary['n_scored']} tasks (YES "
        f"{summary['yes']}, PARTIAL {summary['partial']}, NO {summary['no']}); appearance "
        f"{_grade(summary['appearance'])}; {len(summary['failed_ids'])} site(s) failed to build{missing}{also}"
    )
