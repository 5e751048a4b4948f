"""One WebGen-Bench task: build the site with its cases hidden, grade the final site under each protocol, make the
task's row.

:class:`TaskRunner` is the unit :func:`vcoder.eval.webgen_bench.evaluate_webgen` runs concurrently; each task gets
its own judge and GUI-agent clients, so that a server failure is charged to the task it happened in
(:mod:`vcoder.sites.audit`). The site is built once; each protocol grades it (vcoder: the gui_policy agent and the
episode's screenshot judge; webgen-bench: WebVoyager and WebGen-Bench's appearance prompt over scrolled
screenshots). The row's top-level verdicts are the first protocol's; ``by_protocol`` holds each protocol's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcoder.chat import ChatError, WatchedClient, connect
from vcoder.chat.endpoint import Endpoint
from vcoder.eval.webgen_agent_loop import run_agent_loop
from vcoder.eval.webgen_appearance import grade_appearance, scrolled_screenshots
from vcoder.eval.webgen_rows import INFRASTRUCTURE, appearance_grade, case_entry, protocol_entry, task_row
from vcoder.gui.judge import ScreenshotJudge
from vcoder.gui.webvoyager import WebVoyagerPolicy
from vcoder.sites.audit import AuditedGrader
from vcoder.sites.episode import run_site_episode
from vcoder.sites.projects import served_site
from vcoder.sites.records import EpisodeResult, SiteTask
from vcoder.sites.turns import ENTRY

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
        endpoint = config.judge_server()
        judge = None if endpoint is None else ScreenshotJudge(endpoint)
        instruments = _Instruments(judge=judge, agents={p: self._agent(p) for p in config.protocols})
        if endpoint is not None and "webgen-bench" in config.protocols:
            instruments.benchmark_judge = WatchedClient(connect(endpoint.replace(max_concurrency=AGENT_CONCURRENCY)))
        try:
            result = await self._build_and_test(task, folder, instruments)
        finally:
            await instruments.aclose()
        return {
            **result,
            "category": row.get("category", ""),
            "application_type": row.get("application_type", ""),
            "instruction": task.instruction,
            "mode": config.mode,
            "folder": f"tasks/{name}",
            "elapsed_s": round(time.monotonic() - started, 3),
        }

    def _gui_endpoint(self) -> Endpoint:
        """The GUI agent's endpoint: the run's ``gui_*`` fields, its shared ``max_retries`` and ``extra_body``, and
        :data:`AGENT_CONCURRENCY` requests in flight."""
        return self.config.agent_endpoint(max_concurrency=AGENT_CONCURRENCY)

    def _agent(self, protocol: str) -> Any:
        """The GUI agent of ``protocol``: vcoder's (the one ``gui_policy`` names, built as the ``gui_agent`` reward
        builds it), or WebGen-Bench's WebVoyager."""
        from vcoder.browse.policies import make_agent

        endpoint = self._gui_endpoint()
        config = self.config
        if protocol == "webgen-bench":
            client = WatchedClient(connect(endpoint))
            return WebVoyagerPolicy(client=client, max_iterations=config.gui_step_limit)
        return make_agent(config.gui_policy, endpoint, wrap=WatchedClient, step_budget=config.gui_step_limit)

    async def _build_and_test(self, task: SiteTask, folder: Path, instruments: _Instruments) -> dict[str, Any]:
        log = self.config.verdict_log
        judge = instruments.judge
        # the judge's grade of each turn and the final site's test cases go to the verdict log (when there is one)
        builder_grader = AuditedGrader(pool=self.pool, judge=judge, verdict_log=log, verdict_source="eval_judge")
        hidden = dataclasses.replace(task, test_cases=())  # the builder never sees the benchmark's cases
        config = self.config
        loop = None
        if config.agent_loop == "webgen_agent":  # WebGen-Agent's loop: the best step's site is graded
            result, loop = await run_agent_loop(
                hidden,
                self.builder,
                grader=builder_grader,
                options=config.episode_options(),
                out_dir=folder / "episode",
                error_limit=config.error_limit,
            )
        else:
            result = await run_site_episode(
                hidden,
                self.builder,
                grader=builder_grader,
                options=config.episode_options(),
                out_dir=folder / "episode",
            )
        episode = _episode_fields(result)
        if loop is not None:
            episode["agent_loop"] = loop.to_dict()
        problems = ([result.error] if result.error else []) + list(builder_grader.problems)
        if problems:
            return self._infrastructure(task, problems, episode)
        good = [s for s in result.steps if not s.malformed]
        protocols = self.config.protocols
        if not good:
            why = f"no well-formed turn in {len(result.steps)} (the last: {result.steps[-1].error})"
            cases = [case_entry(c, None, failed_build=why) for c in task.test_cases]
            appearance = 0.0 if judge is not None else None
            parts = {
                p: protocol_entry(cases, appearance=appearance, agent=instruments.agents[p].name) for p in protocols
            }
            extra = {**episode, "screenshot": None, "notes": [], "by_protocol": parts}
            return task_row(
                task.id, cases, appearance=appearance, built=False, error=f"build failed: {why}", extra=extra
            )
        last = good[-1] if loop is None else next(s for s in good if s.turn == loop.chosen)
        files, site_dir = final_site(result, last)
        graded = await asyncio.gather(
            *(self._grade(p, task, files, site_dir, last, folder, instruments) for p in protocols)
        )
        problems = [problem for g in graded for problem in g.problems]
        if problems:
            return self._infrastructure(task, problems, episode)
        head = graded[0]
        parts = {p: g.entry for p, g in zip(protocols, graded, strict=True)}
        extra = {
            **episode,
            "screenshot": self._keep_screenshot(head.rendered, folder),
            "notes": [*last.notes, *head.notes],
            "by_protocol": parts,
        }
        error = None if head.failed is None else f"build failed: {head.failed}"
        cases = head.entry["cases"]
        return task_row(
            task.id, cases, appearance=head.entry["appearance"], built=head.failed is None, error=error, extra=extra
        )

    async def _grade(self, protocol, task, files, site_dir: Path, last, folder: Path, instruments) -> _Graded:
        """The final site's cases (and, under webgen-bench, its appearance) graded under ``protocol``."""
        agent = instruments.agents[protocol]
        log = self.config.verdict_log
        source = "eval" if protocol == "vcoder" else "eval_webgen_bench"
        case_grader = AuditedGrader(pool=self.pool, gui_agent=agent, verdict_log=log, verdict_source=source)
        grades = await case_grader.grade(files, site_dir, task, self.config.case_options(protocol))
        problems = list(case_grader.problems)
        # the grader runs structured cases first, then natural-language ones: put the results back in task order
        order = [c for c in task.test_cases if c.scriptable] + [c for c in task.test_cases if not c.scriptable]
        failed = grades.error
        cases = []
        if not problems:
            by_case = {id(c): r for c, r in zip(order, grades.cases, strict=True)}
            cases = [case_entry(c, by_case[id(c)], failed_build=failed) for c in task.test_cases]
        extra: dict[str, Any] = {}
        if protocol == "webgen-bench":
            appearance, extra = await self._benchmark_appearance(task, files, site_dir, folder, instruments, problems)
        else:
            appearance = appearance_grade(last.screenshot) if instruments.judge is not None else None
        entry = protocol_entry(cases, appearance=appearance, agent=agent.name, **extra)
        return _Graded(entry, grades.rendered, list(grades.notes), failed, problems)

    async def _benchmark_appearance(self, task, files, site_dir, folder, instruments, problems):
        """WebGen-Bench's appearance grade of the final site (``vcoder.eval.webgen_appearance``)."""
        client = instruments.benchmark_judge
        html = files.get(ENTRY)
        if client is None:
            return None, {}
        if html is None:
            return 0.0, {"appearance_shots": 0, "appearance_reply": None}
        options = self.config.episode_options()
        try:
            shots = await scrolled_screenshots(
                self.pool,
                site_dir,
                html,
                render_timeout_ms=options.render_timeout_ms,
                settle_timeout_ms=options.settle_timeout_ms,
                settle_quiet_ms=options.settle_quiet_ms,
            )
        except Exception as exc:  # the browser itself: nothing can be said about the site
            problems.append(f"the browser failed while taking the appearance screenshots: {exc}")
            return None, {}
        for i, png in enumerate(shots, 1):
            (folder / f"appearance_{i}.png").write_bytes(png)
        try:
            grade, reply = await grade_appearance(client, task.instruction, shots)
        except ChatError as exc:
            problems.append(f"the screenshot judge's server failed (no appearance grade): {exc}")
            return None, {}
        return float(grade), {"appearance_shots": len(shots), "appearance_reply": reply}

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


def final_site(result: EpisodeResult, last: Any) -> tuple[dict[str, str], Path | None]:
    """The files and folder the final step served: the step's ``site/`` (the episode's own files), or what a built
    project served (:func:`vcoder.sites.projects.served_site`: a Bolt project's ``dist/``; nothing when its build
    failed)."""
    written = result.out_dir / f"step_{last.turn}" / "site"
    served = getattr(last, "served_dir", written)
    if served is not None and Path(served) == written:
        return dict(result.files), written
    return served_site(last)


def _episode_fields(result: EpisodeResult) -> dict[str, Any]:
    return {
        "turns": len(result.steps),
        "finished": result.finished,
        "malformed_turns": sum(s.malformed for s in result.steps),
        "final_reward": result.final_reward,
    }


@dataclass
class _Instruments:
    """One task's judges and agents (closed together)."""

    judge: ScreenshotJudge | None
    agents: dict[str, Any]
    benchmark_judge: WatchedClient | None = None

    async def aclose(self) -> None:
        for agent in self.agents.values():
            await agent.aclose()
        for client in (self.judge, self.benchmark_judge):
            if client is not None:
                await client.aclose()


@dataclass(frozen=True)
class _Graded:
    """The final site graded under one protocol."""

    entry: dict[str, Any]
    rendered: Any
    notes: list[str] = field(default_factory=list)
    failed: str | None = None
    problems: list[str] = field(default_factory=list)
