"""Grade a site after a turn: render its entry page, score its appearance, run its test cases.

Up to three components, each a score in [0, 1] or None ("could not judge", with a note saying why):

- screenshot: when the task has a reference page and a ``reference_scorer`` is given (e.g. vcoder's visual reward,
  adapted by :func:`reference_scorer_from_reward`), the site scored against the reference; otherwise the VLM
  :class:`~vcoder.gui.judge.ScreenshotJudge` grading the screenshot against the instruction;
- gui: WebGen-Bench accuracy, the mean verdict of the task's test cases — structured cases (with ``expect``) by
  the :class:`~vcoder.gui.scripted.ScriptedPolicy`, natural-language ones (WebGen-Bench's) by a VLM GUI agent
  (:class:`~vcoder.gui.vlm_policy.VLMPolicy`) when one is given; cases nobody can run are left out.
- orm (when ``orm_weight`` > 0 and an ``orm_scorer`` is given): the outcome reward model's P(YES) for the rendered
  site, scored by the ``orm`` reward's own code (:func:`vcoder.rewards.orm.orm_site_scorer`; sites may not import
  rewards, so the scorer is handed in, like ``reference_scorer``).

A site with no ``index.html`` or whose page fails to render scores 0.0 where a component can judge (WebGen-Bench:
a site that fails to start counts 0). The site is served from its snapshot folder (``base_dir``) at the pool's
virtual origin, so relative URLs and ``fetch('data.json')`` work; the screenshot is taken on a live page once the
network is idle and the DOM has been quiet for a moment (capped by ``settle_timeout_ms``), because sites keep
building themselves after the load event (Babel fetching ``text/babel`` sources, React 18 committing, fetched data).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcoder.gui.policy import CaseResult, Policy, TestCase, Verdict, mean_score
from vcoder.gui.runner import InfrastructureError, arun_cases
from vcoder.gui.scripted import ScriptedPolicy
from vcoder.rendering.types import FailureKind, Rendered
from vcoder.sites.turns import ENTRY
from vcoder.sites.workspace import inline_site

if TYPE_CHECKING:
    from vcoder.gui.judge import ScreenshotJudge
    from vcoder.sites.records import EpisodeOptions, SiteTask

logger = logging.getLogger(__name__)

#: seconds a page that did not settle in time gets to answer a trivial evaluate before it is declared hung
ALIVE_TIMEOUT_S = 5.0
#: the longest the default scripted policy waits for unmet expectations, re-checking on every page change and giving
#: up early once the page is idle (its own default, 400 ms, is for inline pages)
SCRIPTED_EXPECT_MS = 5000
#: the page events that count as network activity while a site settles
REQUEST_EVENTS = ("request", "requestfinished", "requestfailed")
#: ``(site as one document, reference HTML) -> score in [0, 1] or None``
ReferenceScorer = Callable[[str, str], Awaitable[float | None]]
#: ``(instruction, case dicts, entry page HTML, visible text blocks, screenshot) -> score in [0, 1] or None``
SiteScorer = Callable[[str, list[dict[str, Any]], str, list[str], Any], Awaitable[float | None]]

# resolves once the load event has passed, the pool's shim (init.js) has settled (no timer to fast-forward, no fetch
# or XHR under way) and the DOM has not changed for quietMs, counted in short polls so that work queued by the page
# (React's scheduler, a Babel transform) runs between them (capped at maxMs overall). Time is real time: the page's
# own clock and timers are the shim's virtual ones (an Event's timeStamp and __vcoder.sleep are not).
SETTLE_JS = """async ({quietMs, maxMs}) => {
  const v = window.__vcoder;
  const now = () => new Event('t').timeStamp;
  const sleep = (ms) => (v ? v.sleep(ms) : new Promise((r) => setTimeout(r, ms)));
  const t0 = now();
  const left = () => maxMs - (now() - t0);
  if (document.readyState !== 'complete')
    await Promise.race([new Promise((r) => addEventListener('load', r, {once: true})), sleep(maxMs)]);
  let changes = 0;
  const observer = new MutationObserver(() => { changes += 1; });
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  let seen = -1, quietSince = now();
  while (left() > 0) {
    if (v) await Promise.race([v.settle(), sleep(Math.max(left(), 0))]);
    await sleep(50);
    if (changes !== seen) { seen = changes; quietSince = now(); }
    else if (now() - quietSince >= quietMs) break;
  }
  observer.disconnect();
}"""


@dataclass(frozen=True)
class SiteGrades:
    """The grades of one version of a site.

    Attributes:
        screenshot: appearance score in [0, 1], None when not judged.
        gui: mean verdict of the judged test cases in [0, 1], None when none could be judged.
        rendered: the entry page's render (None when the site has no entry page or the browser failed).
        cases: the results of the cases that were run, in task order (structured first, then natural-language).
        judge_reply: the screenshot judge's reply (its justification), when it was asked.
        notes: what could not be judged and why, in words.
        error: why the site itself failed (no entry page, render failure), None when it rendered.
        orm: the outcome reward model's score of the site in [0, 1] (``orm_reward``'s), None when not judged.
        verdict: an outcome decided outright, 1.0 or 0.0, that replaces the components in the step reward (the ORM's
            verdict on a task without an evaluator: :class:`vcoder.pipelines.curriculum.orm.OrmVerdictGrader`);
            None: the components decide.
    """

    screenshot: float | None
    gui: float | None
    rendered: Rendered | None = None
    cases: tuple[CaseResult, ...] = ()
    judge_reply: str | None = None
    notes: tuple[str, ...] = ()
    error: str | None = None
    orm: float | None = None
    verdict: float | None = None


def reference_scorer_from_reward(reward: Callable) -> ReferenceScorer:
    """Adapt a TRL-shaped reward (``reward(completions, html=[reference]) -> [score]``, sync or async, such as
    ``vcoder.rewards.build_reward("visual")``) to a ``ReferenceScorer``."""

    async def score(document: str, reference: str) -> float | None:
        out = reward([document], html=[reference])
        if inspect.isawaitable(out):
            out = await out
        return out[0]

    return score


async def on_pool_loop(pool: Any, make: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``make()`` on the pool's own event loop (live Playwright pages belong to it), awaited from any loop."""
    await pool.start()
    return await pool.run_on_loop(make)


class SettleFirst(Policy):
    """Runs ``policy`` on a page that has settled first (``SETTLE_JS``): a React app commits its first render after
    the load event, and an agent that observes at once sees an empty root (measured: a built Vite + React app's
    buttons were missing from the agent's first observation in one run of two)."""

    def __init__(self, policy: Policy, *, quiet_ms: int, max_ms: int):
        self.policy, self.quiet_ms, self.max_ms = policy, quiet_ms, max_ms
        self.name = policy.name

    def check_case(self, case: TestCase) -> str | None:
        return self.policy.check_case(case)

    async def run_case(self, env: Any, case: TestCase) -> CaseResult:
        with contextlib.suppress(Exception):  # a page that will not settle is the policy's to find out
            settle = {"quietMs": self.quiet_ms, "maxMs": self.max_ms}
            await asyncio.wait_for(env.page.evaluate(SETTLE_JS, settle), self.max_ms / 1000 + 2.0)
        return await self.policy.run_case(env, case)

    async def aclose(self) -> None:
        await self.policy.aclose()


async def render_site(pool: Any, site_dir: Path, html: str, options: EpisodeOptions) -> Rendered:
    """Screenshot + layout of the site's entry page, taken once the page has settled; never raises for the page.

    This is the one place that knows how a site reaches the browser (today: the snapshot folder as ``base_dir``).
    """

    async def live() -> Rendered:
        opened = pool.open_page(
            html,
            width=options.render_width,
            height=options.render_height,
            timeout_ms=options.render_timeout_ms,
            base_dir=site_dir,
        )
        try:
            page = await opened.__aenter__()
        except RuntimeError as exc:  # the page did not load; what went wrong is the exception's cause
            from playwright.async_api import TimeoutError as PlaywrightTimeout

            timed_out = isinstance(exc.__cause__, (asyncio.TimeoutError, PlaywrightTimeout))
            return Rendered.failure(FailureKind.TIMEOUT if timed_out else FailureKind.NAVIGATION, str(exc))
        # any request the page makes (an image or script added after the load event, which the shim does not see)
        # is activity too: the DOM and the network must both be quiet for settle_quiet_ms
        activity = [time.monotonic()]

        def touched(_request: Any) -> None:
            activity[0] = time.monotonic()

        for event in REQUEST_EVENTS:
            page.on(event, touched)
        try:
            t0 = time.monotonic()
            try:
                while True:
                    left_ms = max(options.settle_timeout_ms - (time.monotonic() - t0) * 1000, options.settle_quiet_ms)
                    settle = {"quietMs": options.settle_quiet_ms, "maxMs": left_ms}
                    await asyncio.wait_for(page.evaluate(SETTLE_JS, settle), left_ms / 1000 + 2.0)
                    quiet_s = time.monotonic() - activity[0]
                    spent_ms = (time.monotonic() - t0) * 1000
                    if quiet_s * 1000 >= options.settle_quiet_ms or spent_ms >= options.settle_timeout_ms:
                        break  # a page that polls forever never goes quiet: move on at the cap
            except asyncio.TimeoutError:
                # slow is not hung (a loaded machine, a big Babel transform): only a page that stops answering is
                try:
                    await asyncio.wait_for(page.evaluate("1"), ALIVE_TIMEOUT_S)
                except Exception:
                    with contextlib.suppress(Exception):  # a looping script: the pool replaces the closed page
                        await asyncio.wait_for(page.close(run_before_unload=False), 5.0)
                    return Rendered.failure(
                        FailureKind.TIMEOUT, "timeout: the page stopped responding (a script loops?)"
                    )
            except Exception as exc:  # the document was replaced mid-wait: capture what is there
                logger.debug("settling %s: %s", site_dir, exc)
            shot = await pool.snapshot(page, full_page=True)
            if shot.kind is FailureKind.TIMEOUT:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(page.close(run_before_unload=False), 5.0)
            return shot
        finally:
            for event in REQUEST_EVENTS:
                page.remove_listener(event, touched)
            await opened.__aexit__(None, None, None)

    return await on_pool_loop(pool, live)


class SiteGrader:
    """Grades sites for episodes; one grader (and its pool, judge and agent) serves many episodes concurrently.

    Args:
        pool: an ``AsyncBrowserPool`` or ``BrowserPool`` (default: ``get_default_pool()``).
        judge: the screenshot judge (None, or a disabled one: appearance is not judged without a reference scorer).
        gui_agent: the policy for natural-language cases (a ``VLMPolicy``); None leaves those cases out.
        reference_scorer: scores a site against a task's reference page (see ``reference_scorer_from_reward``).
        scripted: the policy for structured cases (default: a ``ScriptedPolicy`` that waits up to
            ``SCRIPTED_EXPECT_MS`` for unmet expectations: sites fill themselves from fetched data after the load
            event; it stops early once the page has nothing left that could change it).
        verdict_log: a verdict log (JSONL) every grading that judged something is appended to (see
            :func:`vcoder.verdicts.writing.grades_record`); None: no log.
        verdict_source: the records' ``source``.
        orm_scorer: scores the rendered site for the ``orm`` component (``vcoder.rewards.orm.orm_site_scorer``: the
            ``orm`` reward's ORM scorer); None leaves that component unjudged.
    """

    def __init__(
        self,
        *,
        pool: Any = None,
        judge: ScreenshotJudge | None = None,
        gui_agent: Policy | None = None,
        reference_scorer: ReferenceScorer | None = None,
        scripted: Policy | None = None,
        verdict_log: str | Path | None = None,
        verdict_source: str = "site_grading",
        orm_scorer: SiteScorer | None = None,
    ):
        if pool is None:
            from vcoder.rendering import get_default_pool

            pool = get_default_pool()
        self.pool = getattr(pool, "async_pool", pool)
        self.judge = judge if judge is not None and judge.enabled else None
        self.gui_agent = gui_agent
        self.reference_scorer = reference_scorer
        self.scripted = scripted or ScriptedPolicy(expect_timeout_ms=SCRIPTED_EXPECT_MS)
        self.verdict_log, self.verdict_source = verdict_log, verdict_source
        self.orm_scorer = orm_scorer

    async def grade(
        self,
        files: Mapping[str, str],
        site_dir: Path | None,
        task: SiteTask,
        options: EpisodeOptions,
        *,
        history: Sequence[str] = (),
    ) -> SiteGrades:
        """Render, score and test one version of a site (files already written to ``site_dir``), then append the
        verdict, with the episode's ``history`` (``verdict_writing.episode_history``; empty outside an episode),
        to the verdict log (when there is one); never raises for the site's content."""
        grades = await self.assess(files, site_dir, task, options)
        self.log_verdict(files, site_dir, task, grades, history=history)
        return grades

    def log_verdict(
        self,
        files: Mapping[str, str],
        site_dir: Path | None,
        task: SiteTask,
        grades: SiteGrades,
        *,
        history: Sequence[str] = (),
    ) -> None:
        """Append the grades (and ``history``) to ``verdict_log`` (no log, or nothing judged: nothing written;
        never raises)."""
        from vcoder.verdicts.writing import log_grades

        log_grades(
            self.verdict_log, self.verdict_source, task, grades, files=files, site_dir=site_dir, history=history
        )

    async def assess(
        self, files: Mapping[str, str], site_dir: Path | None, task: SiteTask, options: EpisodeOptions
    ) -> SiteGrades:
        """``grade`` without the verdict log."""
        html = files.get(ENTRY)
        notes: list[str] = []
        error = None if html is not None else f"the site has no {ENTRY}, so nothing could be shown or tested"
        look, gui = await asyncio.gather(
            self._appearance(files, html, site_dir, task, options, notes), self._cases(html, site_dir, task, options)
        )
        (screenshot, rendered, judge_reply), (gui_score, cases, gui_notes) = look, gui
        if rendered is not None and not rendered.ok:
            error = f"the page failed to render: {rendered.error}"
        orm = await self._orm(html, rendered, task, options, notes)
        return SiteGrades(screenshot, gui_score, rendered, cases, judge_reply, (*notes, *gui_notes), error, orm)

    async def _orm(self, html, rendered, task, options, notes) -> float | None:
        """The ``orm_scorer``'s score of the rendered site (None, with a note, when it cannot judge)."""
        if options.orm_weight == 0:
            return None
        if self.orm_scorer is None:
            notes.append("orm not judged: no outcome reward model configured (orm_model)")
            return None
        if rendered is not None and rendered.infrastructure:
            notes.append(f"orm not judged: the browser failed ({rendered.error})")
            return None
        if html is None or rendered is None or not rendered.ok:
            return 0.0
        cases = [{"task": c.task, "expected_result": c.expected_result} for c in task.test_cases]
        texts = [b.text for b in rendered.layout.text_blocks]
        score = await self.orm_scorer(task.instruction, cases, html, texts, rendered.image)
        if score is None:
            notes.append("orm not judged: the outcome reward model failed")
        return score

    async def _appearance(self, files, html, site_dir, task, options, notes):
        rendered = None
        if html is not None and site_dir is not None:
            try:
                rendered = await render_site(self.pool, site_dir, html, options)
            except Exception as exc:  # the browser would not start: infrastructure
                logger.warning("rendering a site failed: %s", exc)
                rendered = Rendered.failure(FailureKind.BROWSER, f"browser: {exc}")
        if options.screenshot_weight == 0:
            return None, rendered, None
        if rendered is not None and rendered.infrastructure:
            notes.append(f"appearance not judged: the browser failed ({rendered.error})")
            return None, rendered, None
        if task.reference is not None and self.reference_scorer is not None:
            document = inline_site(files)
            score = 0.0 if document is None else await self.reference_scorer(document, task.reference)
            if score is None:
                notes.append("appearance not judged: the reference scorer could not score the site")
            return score, rendered, None
        if self.judge is None:
            why = "no screenshot judge endpoint configured"
            if task.reference is not None:
                why += " and no reference scorer"
            notes.append(f"appearance not judged: {why}")
            return None, rendered, None
        if rendered is None or not rendered.ok:
            return 0.0, rendered, None
        score, reply = await self.judge.grade_reply(rendered.png, instruction=task.instruction)
        if score is None:
            notes.append("appearance not judged: the screenshot judge gave no grade (server error or no score)")
        return score, rendered, reply

    async def _cases(self, html, site_dir, task, options) -> tuple[float | None, tuple[CaseResult, ...], list[str]]:
        if options.gui_weight == 0 or not task.test_cases:
            return None, (), ([] if options.gui_weight == 0 else ["functionality not judged: the task has no cases"])
        structured = [c for c in task.test_cases if c.scriptable]
        natural = [c for c in task.test_cases if not c.scriptable]
        notes = []
        groups: list[tuple[list[TestCase], Policy]] = [(structured, self.scripted)] if structured else []
        if natural and self.gui_agent is not None:
            groups.append((natural, self.gui_agent))
        elif natural:
            notes.append(
                f"functionality not judged on {len(natural)} natural-language case(s): no GUI agent (VLM) endpoint configured"
            )
        if not groups:
            return None, (), notes
        if html is None or site_dir is None:
            failed = tuple(CaseResult(c.task, Verdict.NO, 0, f"the site has no {ENTRY}") for g, _ in groups for c in g)
            return 0.0, failed, notes
        try:
            runs = await asyncio.gather(
                *(self.run_cases(html, site_dir, cases, policy, options) for cases, policy in groups)
            )
        except InfrastructureError as exc:
            return None, (), [*notes, f"functionality not judged: the browser failed ({exc})"]
        results = tuple(r for run in runs for r in run)
        return mean_score(list(results)), results, notes

    async def run_cases(
        self, html: str, site_dir: Path, cases: Sequence[TestCase], policy: Policy, options: EpisodeOptions
    ) -> list[CaseResult]:
        """Run ``cases`` with ``policy`` on the served site within the episode's ``CaseLimits`` (built once here)
        (raises ``InfrastructureError`` when the browser fails)."""
        limits = options.case_limits()
        if policy is not self.scripted:  # the scripted policy already waits for what it expects
            settle_ms = min(options.settle_timeout_ms, max(limits.deadline_ms // 4, 1))
            policy = SettleFirst(policy, quiet_ms=options.settle_quiet_ms, max_ms=settle_ms)
        results, _ = await arun_cases(
            html,
            cases,
            policy=policy,
            pool=self.pool,
            render=options.render_spec(),
            limits=limits,
            base_dir=str(site_dir),
        )
        return results
