"""WebGen-Bench's test tasks recognised by their content, from whatever file or folder they were loaded.

``dataset: webgen_bench`` is refused for training unless the recipe says ``allow_test_split: true``; a copy of the
benchmark's ``test.jsonl`` under another name (``dataset: my_tasks.jsonl``, a WebGen-Instruct-shaped copy, ...) is
caught here by what its tasks say. The package ships digests, not the tasks: ``webgen_bench_test_digest.json`` holds,
per test task, its id and the SHA-256 (first 16 hex digits) of its normalised instruction and of each of its cases'
normalised ``task`` texts. Normalised: Unicode NFKC, case-folded, runs of white space as one space, stripped.

A row is a test task when its instruction's digest is one of the 101 test instructions', or when its id is a test
task's id and one of its cases' digests is one of that task's cases' (an edited instruction with the cases kept).
A paraphrased instruction with new cases is not recognised: the guard catches copies, not rewrites.

How the digest file was made (and how to remake it from the benchmark's file)::

    # WebGen-Bench's test set, 101 tasks / 647 cases: data/webgen-bench/test.jsonl of github.com/mnluzimu/WebGen-Agent
    python -m vcoder.data.bench_guard path/to/test.jsonl > vcoder/data/webgen_bench_test_digest.json

Example:
    >>> digest("  Build a  TODO app. ") == digest("build a todo app.")
    True
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

DIGEST_FILE = Path(__file__).with_name("webgen_bench_test_digest.json")
#: the help of every recipe's ``allow_test_split`` (declared once: :func:`allow_test_split_field`)
ALLOW_TEST_SPLIT_HELP = (
    "Allow training on WebGen-Bench's TEST tasks (dataset=webgen_bench, or any file whose tasks are the benchmark's, "
    "recognised by their instructions or ids and cases): the benchmark's scores are then no longer a held-out measure."
)


class BenchTestSplitError(ValueError):
    """Training rows that are WebGen-Bench's test tasks, in a recipe that does not allow them."""


def allow_test_split_field() -> Any:
    """The ``allow_test_split`` field of a recipe dataclass (one declaration, one help, default False)."""
    return field(default=False, metadata={"help": ALLOW_TEST_SPLIT_HELP})


def digest(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of ``text`` normalised (NFKC, case-folded, white space collapsed)."""
    normal = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


def digest_records(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``[{"id", "instruction", "cases"}]`` digests of WebGen-Bench records (``id``, ``instruction``, ``ui_instruct``)."""
    return [
        {
            "id": str(r["id"]),
            "instruction": digest(r["instruction"]),
            "cases": sorted({digest(c["task"]) for c in r.get("ui_instruct") or () if str(c.get("task") or "")}),
        }
        for r in records
    ]


@functools.cache
def _known(path: Path) -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    tasks = json.loads(path.read_text(encoding="utf-8"))["tasks"]
    return {t["instruction"]: t["id"] for t in tasks}, {t["id"]: frozenset(t["cases"]) for t in tasks}


def _case_texts(value: Any) -> list[str]:
    """The ``task`` texts of a row's cases: a list of case dicts or its JSON text (WebGen-Bench's ``ui_instruct``)."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError:
            return []
    return [str(c["task"]) for c in value or () if isinstance(c, Mapping) and c.get("task")]


def bench_test_id(row: Mapping[str, Any]) -> str | None:
    """The WebGen-Bench test id ``row`` (``instruction``, ``id``, ``test_cases`` or ``ui_instruct``) is, else None.

    Example:
        >>> bench_test_id({"id": "000001", "instruction": "A tip calculator.", "test_cases": "[]"}) is None
        True
    """
    instructions, cases = _known(DIGEST_FILE)
    text = row.get("instruction")
    if isinstance(text, str) and digest(text) in instructions:
        return instructions[digest(text)]
    task_id = str(row.get("id") or "").strip()
    if task_id in cases:
        own = {digest(t) for t in (*_case_texts(row.get("test_cases")), *_case_texts(row.get("ui_instruct")))}
        if own & cases[task_id]:
            return task_id
    return None


def refuse_test_split(rows: Sequence[Mapping[str, Any]], *, allow: bool, where: str) -> None:
    """Refuse ``rows`` holding WebGen-Bench test tasks unless ``allow`` (the recipe's ``allow_test_split``).

    Raises:
        BenchTestSplitError: one line naming how many rows, the first test id and the setting.
    """
    if allow:
        return
    found = [(i, found) for i, row in enumerate(rows) if (found := bench_test_id(row)) is not None]
    if found:
        index, bench_id = found[0]
        raise BenchTestSplitError(
            f"{where}: {len(found)} of its {len(rows)} tasks are WebGen-Bench's TEST tasks (e.g. task {index + 1} is "
            f"test task {bench_id}); train on other tasks, or set allow_test_split: true to train on the benchmark"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Print the digest file of a WebGen-Bench JSONL file (see the module docstring)."""
    (path,) = sys.argv[1:] if argv is None else argv
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    about = "WebGen-Bench test tasks: id, sha256[:16] of the normalised instruction and case tasks (vcoder.data.bench_guard)"
    head = {"about": about, "source": "data/webgen-bench/test.jsonl of github.com/mnluzimu/WebGen-Agent"}
    tasks = ",\n".join(json.dumps(t) for t in digest_records(records))  # one task a line
    sys.stdout.write(json.dumps(head)[:-1] + ', "tasks": [\n' + tasks + "\n]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
