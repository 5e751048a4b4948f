"""Render the learning tables of README.md and docs/results.md from the result files, or check that they agree.

    python scripts/results_tables.py            # rewrite every table between markers
    python scripts/results_tables.py --check    # exit 1 when a table and its result files disagree

A table lives between ``<!-- results:LOOP -->`` and ``<!-- /results -->`` (LOOP: quickstart, agent_quickstart,
curriculum_grpo, curriculum_webrl, web_agent, web_agent_webrl) and is made from
``experiments/results/LOOP/seed*.json``, the files ``VCODER_RECORD=1 <command>`` writes (``vcoder/cli/record.py``):
one row per seed with the loop's held-out figures on the split it was measured on, the split's digest, the wall time
and the commit, and a last row with the mean change. Nothing else in the documents is touched.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ("README.md", "docs/results.md")
MARKER = re.compile(r"(<!-- results:([a-z_]+) -->\n)(.*?)(<!-- /results -->)", re.S)
LOOPS = (
    "quickstart",
    "agent_quickstart",
    "agent_quickstart_webgen_agent",
    "curriculum_grpo",
    "curriculum_webrl",
    "web_agent",
    "web_agent_webrl",
)


def read_results(results: Path, loop: str) -> list[dict]:
    """The loop's result files, by seed; a file that is not the loop's or not its seed's is an error."""
    rows = []
    for path in sorted((results / loop).glob("seed*.json"), key=lambda p: int(p.stem[4:] or -1)):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("loop") != loop or f"seed{record.get('seed')}" != path.stem or record.get("schema") != 1:
            raise ValueError(
                f"{path}: loop/seed/schema {record.get('loop')}/{record.get('seed')}/{record.get('schema')}"
            )
        if record.get("measured_on") == "validation":
            raise ValueError(f"{path}: measured on validation; the tables report test (move it to {loop}/validation/)")
        rows.append(record)
    return rows


def _f(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def _d(x) -> str:
    return "-" if x is None else f"{x:+.3f}"


def _split(r: dict) -> str:
    digest = (r.get("splits", {}).get(r["measured_on"]) or {}).get("digest", "-")
    return f"{r['measured_on']} `{digest[:8]}`"


def _commit(r: dict) -> str:
    sha = r["versions"].get("vcoder") or "-"
    return f"`{sha[:7]}{'+dirty' if sha.endswith('+dirty') else ''}`"


def _one_shot(r: dict) -> tuple[list[str], float | None]:
    h = r["figures"]["heldout"]
    get = lambda name: (h.get(name) or {}).get("overall")  # noqa: E731
    delta = None if get("grpo") is None or get("sft") is None else get("grpo") - get("sft")
    return [f"{_f(get('untrained'))} / {_f(get('sft'))} / {_f(get('grpo'))}", _d(delta)], delta


def _agent(r: dict) -> tuple[list[str], float | None]:
    h = r["figures"]["heldout"]
    get = lambda name, k="accuracy": (h.get(name) or {}).get(k)  # noqa: E731
    delta = None if get("step_grpo") is None or get("sft") is None else get("step_grpo") - get("sft")
    turns = f"{_f(get('step_grpo', 'first_turn_accuracy'))} -> {_f(get('step_grpo', 'last_turn_accuracy'))}"
    return [f"{_f(get('untrained'))} / {_f(get('sft'))} / {_f(get('step_grpo'))}", _d(delta), turns], delta


def _phases(r: dict) -> tuple[list[str], float | None]:
    f = r["figures"]
    after = f["heldout_success"]
    delta = (
        None if after[-1] is None or f["heldout_success_before"] is None else after[-1] - f["heldout_success_before"]
    )
    if "n" in f:  # the web agent: tasks solved of n
        n = f["n"]
        solved = lambda x: "-" if x is None else f"{round(x * n)}/{n}"  # noqa: E731
        cells = [solved(f["heldout_success_before"]), " / ".join(map(solved, after))]
        return [*cells, "-" if delta is None else f"{round(delta * n):+d} tasks"], delta
    return [_f(f["heldout_success_before"]), " / ".join(map(_f, after)), _d(delta)], delta


def _wall(r: dict) -> str:
    start = (r.get("start") or {}).get("wall_s")
    return f"{start:.0f} + {r['wall_s']:.0f}" if start else f"{r['wall_s']:.0f}"


_AGENT = (
    ["held-out accuracy: untrained / SFT / Step-GRPO", "Step-GRPO - SFT", "Step-GRPO first -> last turn"],
    _agent,
)
_CURRICULUM = (["held-out success at the start", "after phase 0 / 1 / ...", "last - start"], _phases)
_WEB_AGENT = (["held-out solved at the start", "after phase 0 / 1 / ...", "last - start"], _phases)
#: loop -> (header cells after "seed", the row maker: record -> (cells, change); the change's cell is the one headed
#: "... - ...", where the mean row puts the mean change)
TABLES = {
    "quickstart": (["held-out overall: untrained / SFT / GRPO", "GRPO - SFT"], _one_shot),
    "agent_quickstart": _AGENT,
    "agent_quickstart_webgen_agent": _AGENT,  # the same loop in WebGen-Agent's format
    "curriculum_grpo": _CURRICULUM,
    "curriculum_webrl": _CURRICULUM,
    "web_agent": _WEB_AGENT,
    "web_agent_webrl": _WEB_AGENT,
}


def render(loop: str, records: list[dict]) -> str:
    """The markdown table of a loop's result files (a one-line note when there are none)."""
    if loop not in TABLES:
        raise ValueError(f"unknown loop {loop!r} in a results marker; loops: {', '.join(LOOPS)}")
    if not records:
        return f"_No result files yet in experiments/results/{loop}/ (record a run with VCODER_RECORD=1)._\n"
    header, row = TABLES[loop]
    cols = ["seed", *header, "measured on (digest)", "wall s", "commit"]
    lines = ["| " + " | ".join(cols) + " |", "|" + " --- |" * len(cols)]
    deltas = []
    for r in records:
        cells, delta = row(r)
        deltas.append(delta)
        lines.append("| " + " | ".join([str(r["seed"]), *cells, _split(r), _wall(r), _commit(r)]) + " |")
    known = [d for d in deltas if d is not None]
    if known:
        mean = sum(known) / len(known)
        if "n" in records[0]["figures"]:
            n = records[0]["figures"]["n"]
            text = f"mean {mean * n:+.1f} tasks"
        else:
            text = f"mean {mean:+.3f}"
        cells = ["" for _ in header]
        cells[next(i for i, h in enumerate(header) if " - " in h)] = text
        lines.append("| " + " | ".join(["mean", *cells, "", "", ""]) + " |")
    return "\n".join(lines) + "\n"


def update(text: str, results: Path) -> str:
    """``text`` with every marked table rendered from ``results``."""
    return MARKER.sub(lambda m: m.group(1) + render(m.group(2), read_results(results, m.group(2))) + m.group(4), text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a table and its result files disagree")
    ap.add_argument("--results", default=str(ROOT / "experiments" / "results"), help="the result files' folder")
    ap.add_argument("--root", default=str(ROOT), help="the folder holding README.md and docs/")
    a = ap.parse_args(argv)
    stale = []
    for name in DOCUMENTS:
        path = Path(a.root) / name
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        try:
            new = update(text, Path(a.results))
        except ValueError as e:
            print(f"{name}: {e}", file=sys.stderr)
            return 2
        if new != text:
            stale += [
                f"{name}: {m.group(2)}" for m, n in zip(MARKER.finditer(text), MARKER.finditer(new)) if m[0] != n[0]
            ]
            if not a.check:
                path.write_text(new, encoding="utf-8")
    if a.check and stale:
        print(
            "tables disagree with their result files (python scripts/results_tables.py rewrites them):",
            file=sys.stderr,
        )
        print("\n".join(f"  {s}" for s in stale), file=sys.stderr)
        return 1
    tables = sum(
        len(MARKER.findall((Path(a.root) / n).read_text())) for n in DOCUMENTS if (Path(a.root) / n).is_file()
    )
    print(f"{tables} tables {'agree with' if a.check else 'rendered from'} {a.results}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
