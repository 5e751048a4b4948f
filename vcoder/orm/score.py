"""Score one site with an ORM: ``vcoder orm score --model DIR --task TASK.json --site DIR_OR_HTML``.

The task file holds ``{"instruction": ..., "test_cases": [...]}`` (``id``/``task_id`` optional; ``test_cases`` may be
a JSON string, as in the interactive dataset's rows). The site is an HTML file or a folder with ``index.html``. The
site is rendered once in the hermetic pool (full page, as the rewards render) and judged in the ``site`` view.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


class TaskError(ValueError):
    """A task or site argument that cannot be used; the message says what is wrong and what to pass."""


def load_task(path: str | Path) -> dict[str, Any]:
    """Read and check a task file: ``{"id", "instruction", "test_cases"}`` with the cases as a list of dicts."""
    path = Path(path)
    if not path.is_file():
        raise TaskError(f"no such task file: {path} (pass a JSON object with 'instruction' and 'test_cases')")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(f"{path} is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise TaskError(
            f"{path} must hold a JSON object with 'instruction' and 'test_cases', got {type(data).__name__}"
        )
    instruction = data.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise TaskError(f"{path}: 'instruction' must be a non-empty string, got {instruction!r:.80}")
    return {
        "id": str(data.get("id") or data.get("task_id") or path.stem),
        "instruction": instruction,
        "test_cases": parse_test_cases(data.get("test_cases"), where=str(path)),
    }


def parse_test_cases(cases: Any, *, where: str) -> list[dict[str, Any]]:
    """Test cases as a list of dicts (a JSON string of the list is accepted; None is no cases)."""
    if cases is None:
        return []
    if isinstance(cases, str):
        try:
            cases = json.loads(cases)
        except json.JSONDecodeError as exc:
            raise TaskError(f"{where}: 'test_cases' is a string but not JSON ({exc})") from None
    if not isinstance(cases, list) or not all(isinstance(c, dict) and isinstance(c.get("task"), str) for c in cases):
        raise TaskError(f"{where}: 'test_cases' must be a list of objects with a 'task' string, got {cases!r:.80}")
    return cases


def load_site(path: str | Path) -> tuple[str, Path]:
    """``(html, folder)`` of a site given as an HTML file or a folder holding ``index.html``."""
    path = Path(path)
    if path.is_dir():
        path = path / "index.html"
        if not path.is_file():
            raise TaskError(f"site folder {path.parent} has no index.html (pass the page's .html file instead)")
    elif not path.is_file():
        raise TaskError(f"no such site: {path} (pass an .html file or a folder with index.html)")
    return path.read_text(encoding="utf-8", errors="replace"), path.parent


def score_sites(
    orm: Any,
    tasks: Sequence[Mapping[str, Any]],
    sites: Sequence[str],
    *,
    pool: Any = None,
    base_dir: str | Path | None = None,
    batch_size: int = 8,
) -> list[float]:
    """P(YES) of each site for its task: the in-memory API (the curriculum's predicted success, a policy's sites).

    Each site is rendered once (full page, as the rewards render), summarised and judged in the ``site`` view, the
    prompt ``orm_reward`` builds at training time.

    Args:
        orm: an ``OutcomeRewardModel`` or an ORM folder (loaded here).
        tasks: per site, ``{"instruction": str, "test_cases": [case dicts] | JSON string | None}``.
        sites: per task, the site's HTML (one page).
        pool: a ``BrowserPool`` (default: a private one, closed afterwards).
        base_dir: folder the pages' relative URLs resolve against (None: none).
        batch_size: sites per ORM forward pass.

    Returns:
        P(YES) in [0, 1] per site, in order; a page that fails to render scores 0.0 (the page's fault).

    Raises:
        TaskError: a task without an instruction or with malformed test cases (its index named).
        NotAnORMError: ``orm`` is a folder that is not an ORM.
        ValueError: ``tasks`` and ``sites`` differ in length.
    """
    from vcoder.orm.model import ORMInput, OutcomeRewardModel
    from vcoder.orm.prompt import orm_prompt, page_summary

    if len(tasks) != len(sites):
        raise ValueError(f"{len(tasks)} tasks for {len(sites)} sites; give one task per site")
    specs = []
    for i, task in enumerate(tasks):
        instruction = task.get("instruction") if isinstance(task, Mapping) else None
        if not isinstance(instruction, str) or not instruction.strip():
            raise TaskError(f"tasks[{i}]: 'instruction' must be a non-empty string, got {instruction!r:.80}")
        specs.append((instruction, parse_test_cases(task.get("test_cases"), where=f"tasks[{i}]")))
    if not isinstance(orm, OutcomeRewardModel):
        orm = OutcomeRewardModel.load(orm)
    if not sites:
        return []
    from vcoder.rendering import pool_or_private

    dirs = None if base_dir is None else [str(base_dir)] * len(sites)
    with pool_or_private(pool, max_pages=2) as renderer:
        renders = renderer.render_many(list(sites), full_page=True, base_dirs=dirs)
    inputs = {
        i: ORMInput(orm_prompt(*specs[i], page_summary(html, [b.text for b in r.layout.text_blocks])), r.pil())
        for i, (html, r) in enumerate(zip(sites, renders))
        if r.ok
    }
    found = dict(zip(inputs, orm.p_yes(list(inputs.values()), batch_size=batch_size)))
    return [found.get(i, 0.0) for i in range(len(sites))]


def score_site(
    model: str | Path, task: str | Path, site: str | Path, *, device: str | None = None, pool: Any = None
) -> dict[str, Any]:
    """P(YES) of one site for one task (``vcoder orm score``).

    Args:
        model: the ORM folder.
        task: the task file (see :func:`load_task`).
        site: the site (see :func:`load_site`).
        device: torch device (default: CUDA if available).
        pool: a ``BrowserPool`` (default: a private one, closed afterwards).

    Returns:
        ``{"task_id", "site", "p_yes", "answer", "render_error", "elapsed_ms"}``; a site that does not render gets
        ``p_yes`` 0.0 (the page's fault) with the error.

    Raises:
        TaskError: bad task or site argument. NotAnORMError: ``model`` is not an ORM folder.
    """
    from vcoder.orm.model import ORMConfig, ORMInput, OutcomeRewardModel
    from vcoder.orm.prompt import orm_prompt, page_summary

    t0 = time.perf_counter()
    ORMConfig.load(model)  # before anything else: a wrong --model is the likeliest mistake
    spec = load_task(task)
    html, folder = load_site(site)
    orm = OutcomeRewardModel.load(model, device=device)
    from vcoder.rendering import pool_or_private

    with pool_or_private(pool, max_pages=1) as renderer:
        rendered = renderer.render(html, full_page=True, base_dir=str(folder))
    p, error = 0.0, rendered.error
    if rendered.ok:
        text = orm_prompt(
            spec["instruction"], spec["test_cases"], page_summary(html, [b.text for b in rendered.layout.text_blocks])
        )
        p = orm.p_yes([ORMInput(text, rendered.pil())])[0]
    return {
        "task_id": spec["id"],
        "site": str(site),
        "p_yes": p,
        "answer": "YES" if p >= orm.config.decision_threshold else "NO",
        "render_error": error,
        "elapsed_ms": round((time.perf_counter() - t0) * 1000, 1),
    }
