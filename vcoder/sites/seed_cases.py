"""WebGen-Agent's loop judged offline by the tasks' own scripted cases (``agent_format: webgen_agent`` with no VLM).

The seed's step reward asks a VLM for four jobs and runs a GUI agent (:mod:`vcoder.sites.seed_feedback`). Where no
VLM can be reached (the agent quickstart: a CPU, no network) :func:`case_services` stands in for them, and only for
them: the system prompt, the Bolt markup, the feedback turn's text, the malformed rules, the ledger that adds the GUI
grade of a ``screenshot_validated`` turn to the previous code-writing turn, and the reward arithmetic stay the seed's
(:mod:`vcoder.sites.seed_episode`). The stand-ins:

- the appearance grade (0-5) of a code-writing turn: 0 for a blank screenshot (one colour), else 5. The stand-in
  has no vision, so it judges only whether the project shows anything; the description says the same in words;
- the GUI test: the request's own scripted cases (the test a writer would write from the request), run by the
  scripted tester that grades vcoder's own format (:class:`~vcoder.sites.grading.SiteGrader`);
- the 1-5 summary grade: ``1 + round(4 * accuracy)``, accuracy being WebGen-Bench's ``(YES + 0.5 PARTIAL) / cases``
  (every case passed: 5; none: 1, the seed's floor), with the failed cases as the suggestions.

Example::

    services = case_services(kind_tasks(8, 0, split="train"), pool=get_default_pool(), options=options)
    result = await run_seed_episode(task, policy, services, options=options)
"""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from vcoder.gui.policy import Verdict
from vcoder.gui.scripted import ScriptedPolicy
from vcoder.sites.grading import SiteGrader, SiteGrades
from vcoder.sites.records import EpisodeOptions, SiteTask
from vcoder.sites.seed_episode import SeedServices
from vcoder.sites.seed_feedback import Execution
from vcoder.sites.seed_rules import GuiSummary
from vcoder.sites.seed_services import project_executor
from vcoder.sites.turns import ENTRY

__all__ = ["CaseJudge", "case_services", "grade_files", "is_blank", "summary_grade"]


def is_blank(png: bytes) -> bool:
    """True when the screenshot is one colour (nothing is shown)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        low, high = image.convert("L").getextrema()
    return low == high


def summary_grade(accuracy: float) -> int:
    """The stand-in 1-5 summary grade of a GUI test that reached ``accuracy`` in [0, 1].

    Example:
        >>> [summary_grade(a) for a in (0.0, 0.5, 1.0)]
        [1, 3, 5]
    """
    return 1 + round(4 * accuracy)


class CaseJudge:
    """The seed judge's four jobs (:class:`~vcoder.sites.seed_feedback.SeedJudge`'s methods) without a VLM.

    Args:
        known: the requests whose cases the GUI test may run (the GUI-test writer answers None for any other).
    """

    def __init__(self, known: Iterable[str]):
        self.known = frozenset(known)

    async def describe(self, png: bytes) -> dict[str, Any]:
        """Whether the screenshot shows anything, in the description's JSON fields."""
        if is_blank(png):
            return {"is_error": True, "error_message": "The page is blank.", "screenshot_description": ""}
        return {"is_error": False, "error_message": "", "screenshot_description": "The page shows content."}

    async def appearance(self, png: bytes) -> float:
        """0 for a blank screenshot, else 5."""
        return 0 if is_blank(png) else 5

    async def gui_instruction(self, instruction: str) -> str | None:
        """The test is the request itself (its cases are run); None for an unknown request."""
        return instruction if instruction in self.known else None

    async def summarize(self, gui_instruction: str, trajectory: str, agent_said_yes: bool) -> GuiSummary:
        """The grade and suggestions of a case run (``trajectory``: the JSON the stand-in GUI agent returns)."""
        report = json.loads(trajectory)
        failed = report["failed"]
        suggestions = "These checks failed:\n" + "\n".join(f"- {c}" for c in failed) if failed else ""
        return GuiSummary(summary_grade(report["accuracy"]), suggestions, passed=not failed)


def case_options(options: EpisodeOptions) -> EpisodeOptions:
    """``options`` for running the cases alone (no appearance judge, no ORM)."""
    return dataclasses.replace(options, screenshot_weight=0.0, gui_weight=1.0, orm_weight=0.0)


async def grade_files(grader: SiteGrader, files: Mapping[str, str], task: SiteTask, options: EpisodeOptions):
    """The cases' ``SiteGrades`` of a static site given as files (written to a temporary folder for the browser)."""
    folder = Path(tempfile.mkdtemp(prefix="vcoder-seed-cases-"))
    try:
        for path, text in files.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_text(text, encoding="utf-8")
        return await grader.assess(dict(files), folder, task, case_options(options))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def case_services(
    tasks: Iterable[SiteTask | Mapping[str, Any]],
    *,
    pool: Any,
    options: EpisodeOptions,
    expect_timeout_ms: int | None = None,
) -> SeedServices:
    """``SeedServices`` whose judge and GUI agent are the stand-ins of the module docstring.

    Args:
        tasks: every task an episode may run (a request's cases are looked up by its text).
        pool: the rendering pool (the project's screenshot and the cases).
        options: the episodes' settings (viewport, timeouts, build limits).
        expect_timeout_ms: how long the scripted tester re-checks an unmet expectation (None: its default).

    Raises:
        ValueError: two tasks with one request and different cases (the test could not be chosen).
    """
    by_request: dict[str, SiteTask] = {}
    for row in tasks:
        task = row if isinstance(row, SiteTask) else SiteTask.from_dict(row)
        if by_request.setdefault(task.instruction, task).test_cases != task.test_cases:
            raise ValueError(f"two tasks ask {task.instruction[:60]!r} with different cases; give each one request")
    scripted = ScriptedPolicy(expect_timeout_ms=expect_timeout_ms) if expect_timeout_ms is not None else None
    grader = SiteGrader(pool=pool, scripted=scripted)

    async def run_cases(execution: Execution, instruction: str) -> tuple[str, str]:
        if execution.site is None:
            raise RuntimeError("the project serves no page to test")
        html, site_dir = execution.site
        task = by_request[instruction]
        grades: SiteGrades = await grader.assess({ENTRY: html}, site_dir, task, case_options(options))
        if grades.gui is None:
            raise RuntimeError("; ".join(grades.notes) or "the cases could not be run")
        expected = {c.task: c.expected_result for c in task.test_cases}
        failed = [
            f"{r.task} Expected: {expected.get(r.task, '')}".strip()
            for r in grades.cases
            if r.verdict is not Verdict.YES
        ]
        return json.dumps({"accuracy": grades.gui, "failed": failed}), "NO" if failed else "YES"

    return SeedServices(CaseJudge(by_request), execute=project_executor(grader.pool, options), gui_agent=run_cases)
