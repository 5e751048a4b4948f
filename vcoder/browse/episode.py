"""One web-navigation episode: a task's site opened fresh, a policy acting in WebRL's text setting within a step
budget, the final state scored by the task's WebArena evaluators.

The site is served by the hermetic rendering pool at a fresh origin (so its localStorage, the site's state, starts
empty: nothing leaks from one episode to the next), its ``storage_state`` loaded, the start route shown. Each step
the policy reads :func:`vcoder.browse.prompt.step_prompt` and writes one action; a malformed or failed action costs
its step and the error is shown in the history. The episode ends at ``exit``, when the budget is spent, or when the
page is lost (hung, or it left the site's document).

Example::

    from vcoder.browse import ScriptedSolver, run_episode
    episode = run_episode(task, ScriptedSolver(task.solution), pool=pool)   # a BrowserPool
    episode.evaluation.success, episode.steps[0].action
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from vcoder.browse.actions import ActionParseError, action_line, element_comment, parse_action, to_gui, with_comment
from vcoder.browse.evaluators import Evaluation, evaluate, selected_text
from vcoder.browse.fuzzy import FuzzyJudge
from vcoder.browse.observation import observe_page, observe_text
from vcoder.browse.prompt import step_prompt
from vcoder.browse.sites import ENTRY, SITES, site_files
from vcoder.browse.tasks import WebTask, route_of
from vcoder.gui.env import GuiEnv, draw_marks
from vcoder.gui.limits import CaseLimits

logger = logging.getLogger(__name__)

#: loads the storage state's entries and shows the start route without a history entry (go back cannot leave it)
_START_JS = """([entries, route]) => {
  for (const [k, v] of entries) localStorage.setItem(k, v);
  history.replaceState(null, '', '#' + route);
  window.SITE.reload();
}"""
_READY_TRIES = 3
_READY_JS = "() => document.readyState !== 'loading' && !!window.SITE && !!window.SITE_APP"
#: resolves after the tasks an action queued (a hashchange after go back) have run and a frame was drawn
_SETTLE_JS = "() => new Promise((done) => setTimeout(() => requestAnimationFrame(() => done()), 0))"
_SHOW_JS = "route => { history.replaceState(null, '', '#' + route); window.SITE.render(); }"


class WebPolicy(Protocol):
    """What acts: reads one step's chat messages, writes one action line. A policy with a true ``screenshots``
    attribute also gets the viewport's marked screenshot in each step's user turn (:func:`step_prompt`)."""

    name: str

    async def act(self, messages: list[dict[str, Any]]) -> str: ...


@dataclass(frozen=True)
class WebStep:
    """One step: the page the policy saw, what it wrote (the parsed action line, after its ``# Element:`` comment
    when it wrote one; the text as written when it did not parse), and what happened."""

    route: str
    observation: str
    action: str
    ok: bool
    error: str | None = None


@dataclass(frozen=True)
class WebEpisode:
    """A finished episode: its steps, answer, final URL (site form, ``__SHOP__/#/cart``) and evaluation."""

    task: WebTask
    policy: str
    steps: tuple[WebStep, ...]
    answer: str | None
    final_url: str
    evaluation: Evaluation
    error: str | None = None
    final_page: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The episode log's JSON line (the task in WebArena's form)."""
        return {
            "task_id": self.task.task_id,
            "site": self.task.site,
            "intent": self.task.intent,
            "policy": self.policy,
            "score": self.evaluation.score,
            "scores": self.evaluation.scores,
            "judged_by": self.evaluation.judged_by,
            "answer": self.answer,
            "final_url": self.final_url,
            "error": self.error,
            "steps": [s.__dict__ for s in self.steps],
            "task": self.task.to_dict(),
            "meta": self.meta,
        }

    def step_messages(self) -> list[list[dict[str, str]]]:
        """Each step's prompt and action as one chat (system, user, assistant): the per-step SFT / replay samples (text
        only: a screenshot policy's images are not recorded)."""
        history: list[str] = []
        out = []
        for s in self.steps:
            out.append(
                [
                    *step_prompt(self.task.intent, history, s.observation, route=s.route),
                    {"role": "assistant", "content": s.action},
                ]
            )
            line = action_line(s.action)
            history.append(line if s.ok else f"{line}  (failed: {s.error})")
        return out


def site_url(page_url: str, site: str) -> str:
    """A live page's URL in the tasks' form: ``http://live3.vcoder.invalid/index.html#/cart`` -> ``__SHOP__/#/cart``."""
    fragment = page_url.split("#", 1)[1] if "#" in page_url else "/"
    return f"{SITES[site]}/#{fragment}"


def _storage_entries(task: WebTask, base: Path | None) -> list[list[str]]:
    if not task.storage_state:
        return []
    path = Path(task.storage_state)
    if not path.is_absolute() and base is not None:
        path = base / path
    state = json.loads(path.read_text(encoding="utf-8"))
    return [[e["name"], e["value"]] for origin in state.get("origins", []) for e in origin.get("localStorage", [])]


async def play(env: GuiEnv, policy: WebPolicy, intent: str, *, step_budget: int, site: str | None = None):
    """The step loop on a live env: observe, ask the policy, act, until ``exit``, the budget or a lost page.

    Args:
        env: the GUI environment over the live page.
        policy: what acts.
        intent: the task as the policy reads it.
        step_budget: actions allowed (``exit`` included).
        site: the site (routes are read from the URL's fragment); None: the route is the URL's fragment as is.

    Returns:
        ``(steps, answer)``: the steps taken and the ``exit`` message (None without one).
    """
    page = env.page
    see = bool(getattr(policy, "screenshots", False))
    steps: list[WebStep] = []
    history: list[str] = []
    answer = None
    for _ in range(step_budget):
        route = route_of(site_url(page.url, site), site) if site else (page.url.split("#", 1)[1:] or ["/"])[0]
        observation, elements = await observe_page(env)
        shot = draw_marks(await env.screenshot(), elements) if see else None
        text = (await policy.act(step_prompt(intent, history, observation, route=route, screenshot=shot))).strip()
        ok, error, line, said = True, None, text, text
        try:
            action = parse_action(text)
            line = action.to_text()
            said = with_comment(line, element_comment(text))  # WebRL's "# Element:" note stays in the step
            for gui_action in to_gui(action):
                result = await env.act(gui_action)
                ok, error = ok and result.ok, error or result.error
            if not env.done:
                await env.guard(page.evaluate(_SETTLE_JS), what="letting the page settle")
            if action.name == "exit":
                answer = action.argument
        except ActionParseError as exc:
            ok, error = False, str(exc)
        steps.append(WebStep(route, observation, said, ok, error))
        history.append(line if ok else f"{line}  (failed: {error})")
        if answer is not None or (env.done and env.error):
            break
    return steps, answer


class SiteNotReady(RuntimeError):
    """A task's site did not finish loading on a fresh page, on every try (the machine, not the policy)."""


async def _episode(task, policy, apool, **options) -> WebEpisode:
    # The pool lends the page once its document commits; the site's scripts may still be loading. On a machine
    # short of CPU that can outlast the wait: nothing has acted yet, so the episode starts again on a fresh page
    # (with twice the wait each time) instead of failing the run or scoring the policy for the machine's delay.
    files = site_files(task.site, seed=task.site_seed)
    wait_ms = options["action_timeout_ms"] * 3
    for attempt in range(1, _READY_TRIES + 1):
        async with apool.open_page(files=files, entry=ENTRY) as page:
            try:
                await page.wait_for_function(_READY_JS, timeout=wait_ms)
            except Exception as exc:  # playwright's TimeoutError, or the page closed under a crash
                logger.warning(
                    "site %s not ready after %d ms (try %d of %d): %s",
                    task.site,
                    wait_ms,
                    attempt,
                    _READY_TRIES,
                    type(exc).__name__,
                )
                wait_ms *= 2
                continue
            return await _episode_on(page, task, policy, **options)
    raise SiteNotReady(f"the {task.site} site of task {task.task_id} did not load on {_READY_TRIES} fresh pages")


async def _episode_on(page, task, policy, *, step_budget, judge, deadline_ms, action_timeout_ms, base) -> WebEpisode:
    entries = _storage_entries(task, base)
    await page.evaluate(_START_JS, [entries, task.route])
    # one WebRL action is at most two GUI actions (Search = type + Enter)
    limits = CaseLimits(2 * step_budget + 2, int(deadline_ms), int(action_timeout_ms))
    env = GuiEnv(page, limits=limits)
    try:
        steps, answer = await play(env, policy, task.intent, step_budget=step_budget, site=task.site)
        final_url = site_url(page.url, task.site)
        final_page = await observe_text(env) if not env.done or answer is not None else ""
    finally:
        env.close()

    async def select(url: str, locator: str) -> str:
        if url != "last":
            await page.evaluate(_SHOW_JS, route_of(url, task.site))
        if not locator.strip():  # WebArena: the page's HTML
            return await page.content()
        try:
            value = await page.evaluate(f"() => {locator}")
        except Exception:  # WebArena: a locator that fails on the page selects nothing
            return ""
        return selected_text(value)  # WebArena's str(): null is "None"

    evaluation = await evaluate(task, answer=answer, url=final_url, select=select, judge=judge)
    return WebEpisode(task, policy.name, tuple(steps), answer, final_url, evaluation, env.error, final_page)


async def arun_episode(
    task: WebTask,
    policy: WebPolicy,
    *,
    pool: Any,
    step_budget: int = 10,
    judge: FuzzyJudge | None = None,
    deadline_ms: float = 120_000,
    action_timeout_ms: int = 3000,
    base_dir: str | Path | None = None,
) -> WebEpisode:
    """Run one episode (see the module docstring) from any event loop.

    Args:
        task: the task (its site, seed, start URL, storage state and evaluators).
        policy: what acts.
        pool: an ``AsyncBrowserPool`` or ``BrowserPool``.
        step_budget: actions allowed (``exit`` included).
        judge: the fuzzy-match judge (default: offline).
        deadline_ms: wall-clock bound of the episode's browser work.
        action_timeout_ms: bound of one action.
        base_dir: folder a relative ``storage_state`` is read from.
    """
    if step_budget < 1:
        raise ValueError(f"step_budget={step_budget} must be >= 1")
    apool = getattr(pool, "async_pool", pool)
    await apool.start()
    return await apool.run_on_loop(
        _episode,
        task,
        policy,
        apool,
        step_budget=step_budget,
        judge=judge,
        deadline_ms=deadline_ms,
        action_timeout_ms=action_timeout_ms,
        base=None if base_dir is None else Path(base_dir),
    )


def run_episode(task: WebTask, policy: WebPolicy, *, pool: Any, **kwargs: Any) -> WebEpisode:
    """Blocking :func:`arun_episode` (same arguments); not from inside a running event loop."""
    return asyncio.run(arun_episode(task, policy, pool=pool, **kwargs))
