"""The test-cases file that ``vcoder agent test`` and ``vcoder agent build`` read."""

from __future__ import annotations

import json
from pathlib import Path


def load_cases(path: Path):
    """``(cases, None)`` from a cases file (a JSON list, or ``{"test_cases": [...]}``), or ``(None, message)``."""
    from vcoder.gui.policy import CaseError, parse_cases

    if not path.is_file():
        return None, f"no such cases file: {path} (pass a JSON list of test cases)"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return None, f"{path} is not valid JSON ({exc}); it must hold a list of test cases"
    if isinstance(data, dict) and ("test_cases" in data or "cases" in data):
        data = data.get("test_cases", data.get("cases"))
    if not isinstance(data, list) or not data:
        return None, f"{path} must hold a non-empty JSON list of test cases, got {type(data).__name__}"
    try:
        return parse_cases(data), None
    except CaseError as exc:
        return None, f"{path}: {exc}"
