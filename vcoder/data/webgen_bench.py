"""WebGen-Bench (Lu et al., 2025): website requests with natural-language test cases, as site-building task rows.

The benchmark's ``test.jsonl`` has one task per line: ``id`` ("000001"), ``instruction`` (the website request),
``Category`` (``{primary_category, subcategories}``), ``application_type`` and ``ui_instruct``, a list of test
cases ``{task, expected_result, task_category: {primary_category, subcategories}}``. 101 tasks, 647 cases; a GUI
agent carries each case out and answers YES / PARTIAL / NO. The file is not shipped with vcoder: pass its path, or
the Hugging Face dataset id for users with hub access.

Rows: ``{"prompt", "instruction", "id", "test_cases", "category", "application_type"}`` where ``prompt`` is the
site agent's conversation (:func:`vcoder.data.prompts.make_site_conversation`) and ``test_cases`` a JSON string of
``[{task, expected_result, task_category}]`` (the case's primary category as a string), the column the GUI-agent
grading reads. The cases have no ``steps``/``expect``: a VLM GUI agent runs them.

Example:
    >>> import json, tempfile, pathlib
    >>> line = {"id": "000001", "instruction": "A todo app.", "Category": {"primary_category": "Tools"},
    ...         "application_type": "Todo", "ui_instruct": [{"task": "Add a todo", "expected_result": "It shows",
    ...         "task_category": {"primary_category": "Functional Testing", "subcategories": []}}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "test.jsonl"; _ = path.write_text(json.dumps(line))
    >>> row = load_webgen_bench(path)[0]
    >>> row["id"], json.loads(row["test_cases"])[0]["task_category"], row["prompt"][1]["role"]
    ('000001', 'Functional Testing', 'user')
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from vcoder.data.prompts import make_site_conversation

HUB_ID = "luzimu/WebGen-Bench"
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def _category(value: Any) -> str:
    """A category cell as a string: ``{"primary_category": X, ...}`` -> X; a string as is; otherwise ""."""
    if isinstance(value, Mapping):
        value = value.get("primary_category")
    return value.strip() if isinstance(value, str) else ""


def webgen_row(record: Mapping[str, Any], *, where: str = "task") -> dict[str, Any]:
    """One WebGen-Bench record as a task row (validated).

    Raises:
        ValueError: a missing id or instruction, or a malformed ``ui_instruct`` entry (``where`` and the case
            index are named).
    """
    if not isinstance(record, Mapping):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    instruction, task_id = record.get("instruction"), record.get("id")
    if not isinstance(instruction, str) or not instruction.strip():
        raise ValueError(f"{where}: 'instruction' must be a non-empty string, got {instruction!r:.80}")
    if task_id is None or str(task_id).strip() == "":
        raise ValueError(f"{where}: 'id' is missing (WebGen-Bench ids look like '000001')")
    raw_cases = record.get("ui_instruct") or []
    if not isinstance(raw_cases, list):
        raise ValueError(f"{where}: 'ui_instruct' must be a list of test cases, got {type(raw_cases).__name__}")
    cases = []
    for i, case in enumerate(raw_cases):
        task = case.get("task") if isinstance(case, Mapping) else None
        if not isinstance(task, str) or not task.strip():
            raise ValueError(f"{where}: ui_instruct[{i}] needs a non-empty 'task' string, got {case!r:.120}")
        expected = case.get("expected_result") or ""
        if not isinstance(expected, str):
            raise ValueError(f"{where}: ui_instruct[{i}]['expected_result'] must be a string, got {expected!r:.80}")
        category = _category(case.get("task_category"))
        cases.append({"task": task.strip(), "expected_result": expected.strip(), "task_category": category})
    return {
        "prompt": make_site_conversation(instruction),
        "instruction": instruction.strip(),
        "id": str(task_id).strip(),
        "test_cases": json.dumps(cases, ensure_ascii=False),
        "category": _category(record.get("Category")),
        "application_type": str(record.get("application_type") or ""),
    }


def _jsonl(path: Path) -> Iterable[tuple[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield f"{path.name} line {number}", json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"{path.name} line {number} is not valid JSON ({exc}); is this WebGen-Bench's test.jsonl?"
                ) from exc


def load_webgen_bench(
    source: str | Path = HUB_ID, *, split: str = "test", max_samples: int | None = None
) -> list[dict[str, Any]]:
    """Read WebGen-Bench into site-building task rows, in file order.

    Args:
        source: the benchmark's JSONL file, a folder holding ``test.jsonl``, or a Hugging Face dataset id.
        split: the hub split (for a dataset id).
        max_samples: keep the first N tasks.

    Returns:
        The rows (see the module docstring).

    Raises:
        FileNotFoundError: ``source`` is neither an existing path nor a hub id.
        ValueError: a malformed line (its number and the problem are named).
    """
    if max_samples is not None and max_samples < 0:
        raise ValueError(f"max_samples must be >= 0 or None, got {max_samples}")
    path = Path(source)
    if path.is_dir():
        candidates = sorted(path.glob("*.jsonl"))
        path = path / "test.jsonl" if (path / "test.jsonl").exists() else (candidates[0] if candidates else path)
        if path.is_dir():
            raise FileNotFoundError(f"no .jsonl file in {str(source)!r}; pass WebGen-Bench's test.jsonl")
    if path.is_file():
        records: Iterable[tuple[str, Any]] = _jsonl(path)
    elif _HUB_NAME.match(str(source)):
        from datasets import load_dataset

        dataset = load_dataset(str(source), split=split)
        records = ((f"{source} row {i}", row) for i, row in enumerate(dataset))
    else:
        raise FileNotFoundError(
            f"WebGen-Bench source {str(source)!r} is neither an existing JSONL file or folder nor a hub id like "
            f"{HUB_ID!r}"
        )
    rows = []
    for where, record in records:
        if max_samples is not None and len(rows) >= max_samples:
            break
        rows.append(webgen_row(record, where=where))
    return rows
