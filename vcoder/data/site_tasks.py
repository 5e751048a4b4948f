"""Instruction-only site-building tasks with structured test cases, for offline Step-GRPO training.

Built from the interactive page generator (:mod:`vcoder.data.interactive`): each task keeps the generated page's
instruction (which names the ids the tests use) and its scripted test cases, but not the page itself: the model
must build it. The cases have ``steps`` and ``expect``, so the deterministic scripted policy grades them without
any model endpoint.

Rows: ``{"prompt", "instruction", "id", "test_cases", "kind"}`` (``test_cases`` a JSON string, as in
:func:`vcoder.data.load_webgen_bench`).

Example:
    >>> rows = site_tasks(3, seed=0)
    >>> [r["id"] for r in rows], "html" in rows[0]
    (['counter-0', 'todo-0', 'form-0'], False)
"""

from __future__ import annotations

import json
from typing import Any

from vcoder.data.interactive import KINDS, make_page
from vcoder.data.prompts import make_site_conversation


def site_task(kind: str, seed: int = 0) -> dict[str, Any]:
    """One task: the instruction and test cases of ``make_page(kind, seed)``, without its HTML."""
    page = make_page(kind, seed)
    return {
        "prompt": make_site_conversation(page["instruction"]),
        "instruction": page["instruction"],
        "id": f"{kind}-{seed}",
        "test_cases": json.dumps(page["test_cases"]),
        "kind": kind,
    }


def site_tasks(n: int, seed: int = 0, *, kinds: tuple[str, ...] = KINDS) -> list[dict[str, Any]]:
    """``n`` tasks cycling through ``kinds`` (task ``i`` uses seed ``seed + i // len(kinds)``); ids are unique.

    Raises:
        ValueError: ``n < 0``, no kinds, or an unknown kind (the known ones are named).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not kinds:
        raise ValueError(f"kinds is empty; choose among {', '.join(KINDS)}")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown page kinds {unknown}; choose among {', '.join(KINDS)}")
    return [site_task(kinds[i % len(kinds)], seed + i // len(kinds)) for i in range(n)]
