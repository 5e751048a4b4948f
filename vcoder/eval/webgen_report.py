"""report.html of a WebGen-Bench run: the summary, accuracy by category, then every task with its final screenshot and
each test case's verdict and the GUI agent's reason. One self-contained file (thumbnails embedded as base64 JPEG).
"""

from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path
from typing import Any

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;background:#f7f7f8}
h1{font-size:22px;margin:0 0 4px}.sub{color:#666;margin:0 0 14px}h2{font-size:17px;margin:20px 0 6px}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #d5d5d8;padding:4px 9px;text-align:left;
vertical-align:top}th{background:#ececef}td.n{text-align:right;white-space:nowrap}
.big td{font-size:15px}.warn{background:#fff6e0;border:1px solid #e8c66a;padding:8px 12px;margin:10px 0}
.t{display:flex;gap:18px;background:#fff;border:1px solid #ddd;border-radius:6px;margin:14px 0;padding:12px}
.t.fail{border-color:#d55;background:#fff8f8}.t.infra{border-color:#c9a227;background:#fffbee}
.shot{flex:none;width:360px}.shot img{width:360px;border:1px solid #bbb;display:block}
.none{width:360px;height:160px;display:flex;align-items:center;justify-content:center;text-align:center;
border:1px dashed #bbb;color:#888;padding:8px;box-sizing:border-box}
.body{flex:1;min-width:0}.head{font-size:16px;font-weight:600;margin-bottom:4px}
.meta{color:#555;margin-bottom:6px}.err{color:#b00;font-weight:600;margin:4px 0;word-break:break-word}
.note{color:#8a6100;margin:2px 0}details{margin:4px 0 8px}summary{cursor:pointer;color:#335}
.cases td:nth-child(2),.cases td:nth-child(3){width:30%}.cases td:last-child{word-break:break-word}
.v{display:inline-block;min-width:62px;text-align:center;border-radius:3px;padding:1px 6px;font-weight:600;
color:#fff}.YES{background:#2e7d32}.PARTIAL{background:#c77700}.NO{background:#c62828}
"""


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _grade(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} / 5"


def _graded(s: dict[str, Any]) -> str:
    n, graded = s.get("n_scored", 0), s.get("appearance_n", 0)
    return f" ({graded} of {n} graded)" if s.get("appearance") is not None and graded < n else ""


def _summary_table(s: dict[str, Any]) -> str:
    cells = [
        ("Accuracy", _pct(s.get("accuracy"))),
        ("Mean task accuracy", _pct(s.get("task_accuracy"))),
        ("Appearance", _grade(s.get("appearance")) + _graded(s)),
        ("Tasks scored", f"{s.get('n_scored', 0)} / {s.get('n', 0)}"),
        ("Cases", s.get("cases", 0)),
        ("YES / PARTIAL / NO", f"{s.get('yes', 0)} / {s.get('partial', 0)} / {s.get('no', 0)}"),
        ("Sites that failed to build", len(s.get("failed_ids", []))),
    ]
    head = "".join(f"<th>{_esc(k)}</th>" for k, _ in cells)
    values = "".join(f'<td class="n">{_esc(v)}</td>' for _, v in cells)
    return f'<table class="big"><tr>{head}</tr><tr>{values}</tr></table>'


#: how each protocol's headline numbers are made (the report says it under the summary)
FORMULAS = {
    "vcoder": "vcoder protocol: accuracy = (YES + 0.5 × PARTIAL) / cases over every test case of the scored tasks "
    "(WebGen-Bench's formula); a site that fails to build counts 0 on all its cases; vcoder's VLM GUI agent. "
    "Appearance: the screenshot judge's 0–5 grade of the final site, averaged over the graded sites.",
    "webgen-bench": "webgen-bench protocol (the benchmark's scripts): WebVoyager with up to 15 iterations and the last "
    "3 screenshots, its verdict read by substring of its last reply; accuracy = (YES + 0.5 × PARTIAL) / all cases of "
    "all tasks. Appearance: WebGen-Bench's 1–5 prompt over up to 3 scrolled 1024×768 screenshots, the first digit "
    "after 'Grade' (0 when none), summed and divided by all tasks.",
}


def _protocol_table(parts: dict[str, Any]) -> str:
    if len(parts) < 2:
        return ""
    head = "<th>Protocol</th><th>Accuracy</th><th>Appearance</th><th>YES / PARTIAL / NO</th><th>Tasks</th>"
    rows = "".join(
        f'<tr><td>{_esc(name)}</td><td class="n">{_pct(p["accuracy"])}</td>'
        f'<td class="n">{_esc(_grade(p["appearance"]))}</td>'
        f'<td class="n">{p["yes"]} / {p["partial"]} / {p["no"]}</td><td class="n">{p["tasks"]}</td></tr>'
        for name, p in parts.items()
    )
    return f"<h2>By protocol</h2><table><tr>{head}</tr>{rows}</table>"


def _category_table(title: str, groups: dict[str, Any], with_tasks: bool) -> str:
    if not groups:
        return ""
    head = "<th>Category</th>" + ("<th>Tasks</th>" if with_tasks else "") + "<th>Cases</th><th>Accuracy</th>"
    rows = "".join(
        f"<tr><td>{_esc(name)}</td>"
        + (f'<td class="n">{g["tasks"]}</td>' if with_tasks else "")
        + f'<td class="n">{g["cases"]}</td><td class="n">{_pct(g["accuracy"])}</td></tr>'
        for name, g in groups.items()
    )
    return f"<h2>{_esc(title)}</h2><table><tr>{head}</tr>{rows}</table>"


def _shot(row: dict[str, Any], out: Path) -> str:
    thumb = out / "thumbs" / f"{Path(str(row.get('folder', ''))).name}.jpg"
    if row.get("screenshot") and thumb.is_file():
        data = base64.b64encode(thumb.read_bytes()).decode("ascii")
        return (
            f'<div class="shot"><img alt="final site of {_esc(row["id"])}" src="data:image/jpeg;base64,{data}"></div>'
        )
    if row.get("status") != "scored":
        why = "not scored yet"
    else:
        why = "no screenshot: the site " + ("did not render" if row.get("built") else "failed to build")
    return f'<div class="shot"><div class="none">{_esc(why)}</div></div>'


def _cases_table(cases: list[dict[str, Any]], reason: str | None) -> str:
    """The cases with verdicts; ``reason`` stands in for every case's own (a site that failed to build)."""
    if not cases:
        return "<p>No test cases.</p>"
    rows = "".join(
        f'<tr><td class="n">{i}</td><td>{_esc(c["task"])}</td><td>{_esc(c["expected_result"])}</td>'
        f'<td><span class="v {_esc(c["verdict"])}">{_esc(c["verdict"])}</span></td>'
        f"<td>{_esc(reason or c['reason'])}</td></tr>"
        for i, c in enumerate(cases, 1)
    )
    head = "<tr><th>#</th><th>Test case</th><th>Expected result</th><th>Verdict</th><th>Agent's reason</th></tr>"
    return f'<table class="cases">{head}{rows}</table>'


def _task(row: dict[str, Any], out: Path) -> str:
    scored = row.get("status") == "scored"
    kind = "" if scored and row.get("built") else (" fail" if scored else " infra")
    accuracy = _pct(row.get("accuracy")) if scored else "not scored"
    turns = f"{row.get('turns', 0)} turn(s), {'finished' if row.get('finished') else 'not finished'}"
    if row.get("malformed_turns"):
        turns += f", {row['malformed_turns']} malformed"
    meta = " · ".join(
        _esc(x)
        for x in (row.get("category") or "uncategorised", f"appearance {_grade(row.get('appearance'))}", turns)
        if x
    )
    instruction = str(row.get("instruction") or "")
    short = instruction if len(instruction) <= 240 else instruction[:240] + "…"
    request = f"<details><summary>{_esc(short)}</summary><p>{_esc(instruction)}</p></details>" if instruction else ""
    error = str(row.get("error") or "")
    if not scored:
        error = f"Not scored (a server or the browser failed; the next run retries it): {error}"
    elif not row.get("built"):
        error = f"The site failed to build, so every case counts 0: {error.removeprefix('build failed: ')}"
    error = f'<div class="err">{_esc(error)}</div>' if error else ""
    notes = "".join(f'<div class="note">{_esc(n)}</div>' for n in row.get("notes") or [])
    stand_in = None if scored and row.get("built") else ("the site failed to build" if scored else "not run")
    return (
        f'<div class="t{kind}" id="task-{_esc(row["id"])}">{_shot(row, out)}<div class="body">'
        f'<div class="head">#{_esc(row["id"])} — {_esc(accuracy)}</div><div class="meta">{meta}</div>'
        f"{request}{error}{notes}{_cases_table(row.get('cases') or [], stand_in)}</div></div>"
    )


def render_report(rows: list[dict[str, Any]], summary: dict[str, Any], *, out: str | os.PathLike) -> str:
    """The report page as a string.

    Args:
        rows: results rows in the task file's order.
        summary: the run's summary (``evaluate_webgen``'s return value).
        out: the run's folder (thumbnails are read from ``out/thumbs``).

    Returns:
        A complete, self-contained HTML document.
    """
    out = Path(out)
    turns = summary.get("max_turns")
    mode = "one-shot (one reply)" if turns == 1 else f"agent mode (up to {turns} turns)"
    who = f"model {summary.get('model')} · {mode}"
    who += f" · GUI agent {summary.get('agent_model')} (≤ {summary.get('max_actions')} actions per case)"
    who += f" · judge {summary.get('judge_model') or 'none'}"
    who += (
        f" · {summary.get('protocol', 'vcoder')} protocol · builder turn format {summary.get('turn_format', 'vcoder')}"
    )
    warnings = []
    if summary.get("missing_ids"):
        listed = ", ".join(summary["missing_ids"])
        warnings.append(
            f"{len(summary['missing_ids'])} task(s) not scored (a server or the browser failed, or not run yet): "
            f"{listed}. They are not in the accuracy; run the same command again to retry them."
        )
    if summary.get("appearance_note"):
        warnings.append(summary["appearance_note"])
    warn = "".join(f'<div class="warn">{_esc(w)}</div>' for w in warnings)
    formula = "".join(f"<p>{_esc(FORMULAS[p])}</p>" for p in (summary.get("by_protocol") or {"vcoder": None}))
    tasks = "\n".join(_task(r, out) for r in rows)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>WebGen-Bench report</title>'
        f'<style>{_CSS}</style></head><body><h1>WebGen-Bench evaluation</h1><p class="sub">{_esc(who)}</p>'
        f"{_summary_table(summary)}{warn}{formula}{_protocol_table(summary.get('by_protocol') or {})}"
        f"{_category_table('Accuracy by task category', summary.get('by_category') or {}, True)}"
        f"{_category_table('Accuracy by test-case category', summary.get('by_case_category') or {}, False)}"
        f"<h2>Tasks</h2>{tasks}"
        f'<script type="application/json" id="summary">{_esc(json.dumps(summary))}</script></body></html>'
    )


def write_report(
    path: str | os.PathLike, rows: list[dict[str, Any]], summary: dict[str, Any], *, out: str | os.PathLike
) -> Path:
    """Write ``render_report(...)`` to ``path`` and return it."""
    path = Path(path)
    path.write_text(render_report(rows, summary, out=out), encoding="utf-8")
    return path
