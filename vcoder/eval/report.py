"""report.html: one self-contained page to look at a Design2Code run (summary, then every sample side by side).

Thumbnails are embedded as base64 JPEG (the runner writes them, scaled down, to ``out/thumbs``), so the file can be
mailed or opened anywhere; a few lines of inline JS sort the samples by any metric.
"""

from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path
from typing import Any

from vcoder.eval.results import METRICS

COLUMNS = (*METRICS, "overall")
LABELS = {
    "block_match": "Block-Match",
    "text": "Text",
    "position": "Position",
    "color": "Colour",
    "clip": "CLIP",
    "overall": "Overall",
}
#: the summary's id lists shown above the samples
LISTED = {
    "missing_ids": "Missing",
    "failed_ids": "Failed",
    "reference_failed_ids": "Reference failed (not scored)",
    "not_scored_ids": "Not scored yet",
}

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:22px;margin:0 0 12px}table{border-collapse:collapse;margin:8px 0 16px}
td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}th{background:#eee}
.bar{margin:12px 0}.bar button{margin-right:4px;padding:3px 8px;cursor:pointer}
.bar button.on{background:#335;color:#fff}
.s{display:flex;gap:16px;align-items:flex-start;background:#fff;border:1px solid #ddd;margin:10px 0;padding:10px}
.s.bad{border-color:#d33;background:#fff5f5}.meta{width:220px;flex:none}.meta h2{font-size:16px;margin:0 0 6px}
.meta table{margin:0}.meta td{padding:1px 6px}.err{color:#b00;font-weight:600;word-break:break-word}
.note{color:#a60}figure{margin:0}figcaption{font-size:12px;color:#666}
figure img{width:360px;border:1px solid #bbb;display:block}.none{width:360px;height:120px;display:flex;
align-items:center;justify-content:center;border:1px dashed #bbb;color:#999}
"""

_JS = """
function sortBy(key, btn){
  const box=document.getElementById('samples');
  const items=[...box.children];
  const asc=btn.dataset.asc==='1';
  items.sort((a,b)=>{const x=parseFloat(a.dataset[key]),y=parseFloat(b.dataset[key]);
    if(isNaN(x)&&isNaN(y))return 0; if(isNaN(x))return 1; if(isNaN(y))return -1; return asc?x-y:y-x;});
  items.forEach(e=>box.appendChild(e));
  document.querySelectorAll('.bar button').forEach(b=>b.classList.remove('on'));
  btn.classList.add('on'); btn.dataset.asc=asc?'0':'1';
}
"""


def _fmt(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}"


def _img(path: Path, caption: str) -> str:
    if not path.is_file():
        return f'<figure><div class="none">no screenshot</div><figcaption>{caption}</figcaption></figure>'
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{caption}" src="data:image/jpeg;base64,{data}"><figcaption>{caption}</figcaption></figure>'
    )


def _sample(row: dict[str, Any], thumbs_dir: Path) -> str:
    sid = str(row["id"])
    attrs = " ".join(f'data-{k.replace("_", "")}="{"" if row.get(k) is None else row[k]}"' for k in COLUMNS)
    error, note = row.get("error"), row.get("note")
    cells = "".join(f"<tr><td>{LABELS[k]}</td><td>{_fmt(row.get(k))}</td></tr>" for k in COLUMNS)
    if "n_ref" in row:
        cells += f"<tr><td>blocks ref/pred</td><td>{row['n_ref']}/{row['n_pred']}</td></tr>"
        cells += f"<tr><td>matched</td><td>{row['n_matched']}</td></tr>"
    extra = f'<div class="err">{html.escape(str(error))}</div>' if error else ""
    extra += f'<div class="note">{html.escape(str(note))}</div>' if note else ""
    return (
        f'<div class="s{" bad" if error else ""}" {attrs} data-id="{html.escape(sid)}">'
        f'<div class="meta"><h2>#{html.escape(sid)}</h2><table>{cells}</table>{extra}</div>'
        f"{_img(thumbs_dir / f'{sid}.ref.jpg', 'reference')}{_img(thumbs_dir / f'{sid}.pred.jpg', 'prediction')}"
        "</div>"
    )


def render_report(rows: list[dict[str, Any]], summary: dict[str, Any], *, thumbs_dir: str | os.PathLike) -> str:
    """The report page as a string.

    Args:
        rows: results rows (results.jsonl lines) in display order.
        summary: the run summary (``vcoder.eval.results.summarise``).
        thumbs_dir: folder of ``<id>.ref.jpg`` / ``<id>.pred.jpg`` thumbnails.

    Returns:
        A complete, self-contained HTML document.
    """
    thumbs = Path(thumbs_dir)
    head = "".join(f"<th>{LABELS[k]}</th>" for k in COLUMNS)
    values = "".join(f"<td>{_fmt(summary.get(k))}</td>" for k in COLUMNS)
    counts = (
        f"{summary.get('n', 0)} samples · {summary.get('missing', 0)} missing · {summary.get('failed', 0)} failed "
        f"to render/score · overall = mean of {', '.join(summary.get('overall_of', []))}"
    )
    listed = ""
    for key, label in LISTED.items():
        if summary.get(key):
            listed += f"<p><b>{label}:</b> {html.escape(', '.join(map(str, summary[key])))}</p>"
    buttons = "".join(f"<button onclick=\"sortBy('{k.replace('_', '')}',this)\">{LABELS[k]}</button>" for k in COLUMNS)
    samples = "\n".join(_sample(r, thumbs) for r in rows)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Design2Code report</title>'
        f"<style>{_CSS}</style><script>{_JS}</script></head><body>"
        f"<h1>Design2Code evaluation</h1><table><tr>{head}</tr><tr>{values}</tr></table><p>{html.escape(counts)}</p>"
        f'{listed}<div class="bar">Sort by (click again to reverse): {buttons}</div>'
        f'<div id="samples">{samples}</div>'
        f'<script type="application/json" id="summary">{html.escape(json.dumps(summary))}</script></body></html>'
    )


def write_report(
    path: str | os.PathLike, rows: list[dict[str, Any]], summary: dict[str, Any], *, thumbs_dir: str | os.PathLike
) -> Path:
    """Write ``render_report(...)`` to ``path`` and return it."""
    path = Path(path)
    path.write_text(render_report(rows, summary, thumbs_dir=thumbs_dir), encoding="utf-8")
    return path
