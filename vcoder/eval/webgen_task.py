"""One WebGen-Bench task: build the site with its cases hidden, run the cases on the final site, make the task's row.

:class:`TaskRunner` is the unit :func:`vcoder.eval.webgen_bench.evaluate_webgen` runs concurrently; each task gets
its own judge and GUI-agent clients, so that a server failure is charged to the task it happened in
(:mod:`vcoder.sites.audit`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcoder.chat import ChatClient, WatchedClient
from vcoder.eval.webgen_rows import INFRASTRUCTURE, appearance_grade, case_entry, task_row
from vcoder.gui.judge import ScreenshotJudge
from vcoder.gui.vlm_policy import VLMPolicy
from vcoder.sites.audit import AuditedGrader
from vcoder.sites.episode import run_site_episode
from vcoder.sites.records import EpisodeResult, SiteTask

if TYPE_CHECKING:
    from vcoder.chat import ChatClient
    from vcoder.eval.webgen_config import WebGenConfig
    from vcoder.rendering import Rendered

logger = logging.getLogger(__name__)

#: requests in flight from one task's GUI agent (its cases run concurrently)
AGENT_CONCURRENCY = 4


def folder_name(task_id: str) -> str:
    """A task's folder name under ``out/tasks``: the id when it is a safe name, else a cleaned id plus a hash."""
    clean = re.sub(r"[^A-Za-z0-9_.-]", "_", task_id)[:64].lstrip(".") or "task"
    if clean == task_id:
        return clean
    return f"{clean}-{hashlib.sha1(task_id.encode()).hexdigest()[:8]}"


@dataclass(frozen=True)
class TaskRunner:
    """Runs tasks of one evaluation.

    Attributes:
        config: the run's settings.
        out: the run's folder (``tasks/<id>/`` and ``thumbs/`` are written here).
        pool: the ``BrowserPool`` every task renders on.
        builder: the site-building model's client (shared: its failures end that task's episode with an error).
    """

    config: WebGenConfig
    out: Path
    pool: Any
    builder: ChatClient

    async def run(self, row: dict[str, Any]) -> dict[str, Any]:
        """The results row of one task (a ``vcoder.data.load_webgen_bench`` row); never raises for the model."""
        task = SiteTask.from_dict(row)
        name = folder_name(task.id)
        folder = self.out / "tasks" / name
        if folder.exists():  # an attempt that was interrupted or failed: start it over
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        started = time.monotonic()
        config = self.config
        judge = None
        if config.judge_endpoint is not None:
            judge = ScreenshotJudge(
                *config.judge_endpoint,
                timeout_ms=config.judge_timeout_ms,
                max_retries=config.max_retries,
                extra_body=config.extra_body,
            )
        client = WatchedClient(
            ChatClient(
                config.gui_base_url,
                config.gui_model,
                timeout_ms=config.gui_timeout_ms,
                max_retries=config.max_retries,
                max_concurrency=AGENT_CONCURRENCY,
                extra_body=config.extra_body,
            )
        )
        agent = VLMPolicy(client=client, max_tokens=config.gui_max_tokens)
        try:
            result = await self._build_and_test(task, folder, judge, agent)
        finally:
            await agent.aclose()
            if judge is not None:
                await judge.aclose()
        return {
            **result,
            "category": row.get("category", ""),
            "application_type": row.get("application_type", ""),
            "instruction": task.instruction,
            "mode": config.mode,
            "folder": f"tasks/{name}",
            "elapsed_s": round(time.monotonic() - started, 3),
        }

    async def _build_and_test(self, task: SiteTask, folder: Path, judge, agent) -> dict[str, Any]:
        log = self.config.verdict_log
        # the judge's grade of each turn and the final site's test cases go to the verdict log (when there is one)
        builder_grader = AuditedGrader(pool=self.pool, judge=judge, verdict_log=log, verdict_source="eval_judge")
        hidden = dataclasses.replace(task, test_cases=())  # the builder never sees the benchmark's cases
        result = await run_site_episode(
            hidden,
            self.builder,
            grader=builder_grader,
            options=self.config.episode_options(),
            out_dir=folder / "episode",
        )
        episode = _episode_fields(result)
        problems = ([result.error] if result.error else []) + list(builder_grader.problems)
        if problems:
            return self._infrastructure(task, problems, episode)
        good = [s for s in result.steps if not s.malformed]
        if not good:
            why = f"no well-formed turn in {len(result.steps)} (the last: {result.steps[-1].error})"
            cases = [case_entry(c, None, failed_build=why) for c in task.test_cases]
            appearance = 0.0 if judge is not None else None
            extra = {**episode, "screenshot": None, "notes": []}
            return task_row(
                task.id, cases, appearance=appearance, built=False, error=f"build failed: {why}", extra=extra
            )
        last = good[-1]
        site_dir = result.out_dir / f"step_{last.turn}" / "site"  # the episode folder's layout (site_workspace)
        case_grader = AuditedGrader(pool=self.pool, gui_agent=agent, verdict_log=log, verdict_source="eval")
        grades = await case_grader.grade(result.files, site_dir, task, self.config.case_options())
        if case_grader.problems:
            return self._infrastructure(task, list(case_grader.problems), episode)
        # the grader runs structured cases first, then natural-language ones: put the results back in task order
        order = [c for c in task.test_cases if c.scriptable] + [c for c in task.test_cases if not c.scriptable]
        by_case = {id(c): r for c, r in zip(order, grades.cases, strict=True)}
        failed = grades.error
        cases = [case_entry(c, by_case[id(c)], failed_build=failed) for c in task.test_cases]
        extra = {
            **episode,
            "screenshot": self._keep_screenshot(grades.rendered, folder),
            "notes": [*last.notes, *grades.notes],
        }
        appearance = appearance_grade(last.screenshot) if judge is not None else None
        error = None if failed is None else f"build failed: {failed}"
        return task_row(task.id, cases, appearance=appearance, built=failed is None, error=error, extra=extra)

    def _infrastructure(self, task: SiteTask, problems: list[str], episode: dict[str, Any]) -> dict[str, Any]:
        logger.warning("task %s not scored (retried by the next run): %s", task.id, "; ".join(problems))
        cases = [case_entry(c, None) for c in task.test_cases]
        extra = {**episode, "screenshot": None, "notes": []}
        return task_row(task.id, cases, status=INFRASTRUCTURE, built=False, error="; ".join(problems), extra=extra)

    def _keep_screenshot(self, rendered: Rendered | None, folder: Path) -> str | None:
        """Write the final site's screenshot (and the report's thumbnail); its path relative to ``out``."""
        if rendered is None or not rendered.ok or not rendered.png:
            return None
        from vcoder.eval.scoring import thumbnail

        (folder / "final.png").write_bytes(rendered.png)
        try:
            thumbnail(rendered.png, self.out / "thumbs" / f"{folder.name}.jpg")
        except Exception as exc:  # a report without one picture is still a report
            logger.warning("thumbnail of %s: %s", folder.name, exc)
        return str((folder / "final.png").relative_to(self.out))


def _episode_fields(result: EpisodeResult) -> dict[str, Any]:
    return {
        "turns": len(result.steps),
        "finished": result.finished,
        "malformed_turns": sum(s.malformed for s in result.steps),
        "final_reward": result.final_reward,
    }
