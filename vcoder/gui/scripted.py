"""The deterministic scripted policy: run a case's structured steps, then check what they produced.

Verdict (WebGen-Bench's scale on machine-checkable cases): every expectation met -> YES, some -> PARTIAL, none or a
step failed -> NO. Steps go through :class:`~vcoder.gui.env.GuiEnv` (Playwright locators with short timeouts,
hang containment, navigation-away detection); unmet expectations are re-checked whenever the page changes, for
a short while, so handlers that update the page asynchronously (``setTimeout``, promises, fetches) still count,
and given up as soon as the page has nothing left that could change it (:mod:`vcoder.gui.page_changes`).

The rule: an expectation counts only if the case's actions produced it. It is met at the end AND it was unmet at
some earlier observation point of the same case on the same fresh page (each case runs on its own load, see
:mod:`vcoder.gui.runner`). The observation points are the fresh page before the first step, after each step but
the last, and the reads of the final check. Text a page merely has (written statically, or put there by its own
script at load) holds at every point and earns nothing; the result says ``held before any action`` for it. So a
case that checks a state the page starts in (reset to the start value, the first tab again) takes steps that leave
that state first, and a case with no steps can earn nothing (:meth:`ScriptedPolicy.check_case` refuses it).

What the observation points see:

- Before the first read, the fresh page is left alone until it is idle, counting the timers due within the final
  check's own budget (``expect_timeout_ms``) as due: whatever the page would show by itself while the final check
  waits has shown before the first read. A script that reveals every expected text after a timer therefore earns
  nothing, whether the pool's clock fast-forwards the timer or it runs in real time within that budget. The price:
  a page that never goes idle (a carousel, an animation loop) spends the whole budget there, once per case.
- After a step, an expectation not yet seen unmet is read again on every DOM change until it is seen unmet, the
  page is idle, or ``min(expect_timeout_ms, STEP_OBSERVE_MS)`` passes: an asynchronous handler that moves the page
  away from the checked state and back (a hash route, a fetch) is still seen moving. Expectations already seen
  unmet (most of them: unmet on the fresh page) cost no read after a step.

What the rule does not catch: a page that shows the expected texts on ANY interaction (the first click reveals them
all); a real-time timer set at load that outlasts the first read's wait and fires during the final check (tuned to
how long the case's steps take); a page that cycles through the expected texts. The first needs cases whose steps
must NOT produce a text; the others need page-specific timing that does not carry across cases.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable

from vcoder.gui.env import Action, GuiEnv, PageHung
from vcoder.gui.page_changes import change_count, next_change
from vcoder.gui.policy import CaseResult, Expectation, Policy, TestCase, Verdict

logger = logging.getLogger(__name__)

#: longest wait, in ms, after a step for an expectation still in its starting state to be seen leaving it
STEP_OBSERVE_MS = 1000
HELD = "held before any action"

# "visible" follows Element.checkVisibility(): hidden/display:none ancestors, visibility, zero-opacity count as hidden.
# Text is the rendered text of visible matches only: a hidden panel does not "show" its text.
_READ_JS = """(els, kind) => {
  const vis = e => e.checkVisibility ? e.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})
                                     : !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);
  if (kind === 'count') return els.length;
  if (kind === 'visible') return els.length > 0 && vis(els[0]);
  if (kind === 'value') return els.length && 'value' in els[0] ? String(els[0].value) : null;
  return els.slice(0, 50).filter(vis).map(e => e.innerText || '');
}"""


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().casefold()


def expectation_met(exp: Expectation, observed) -> bool:
    """Whether ``observed`` (what ``_READ_JS`` returned for ``exp.target``) satisfies ``exp``.

    Args:
        exp: the assertion.
        observed: list of visible texts (text), the first match's value or None (value), a bool (visible) or the
            match count (count).

    Returns:
        True when met: text = some visible match contains the expected text (case-insensitive, whitespace
        normalised); value = equals exactly; visible = equals; count = equals.

    Example:
        >>> expectation_met(Expectation("#n", "text", "Total: 3"), ["  total:\\n 3 items"])
        True
    """
    if exp.kind == "text":
        want = _norm(exp.expected)
        return any(want in _norm(t) for t in observed or ())
    if exp.kind == "value":
        return observed is not None and observed == exp.expected
    if exp.kind == "visible":
        return bool(observed) == exp.expected
    return observed == exp.expected


class ScriptedPolicy(Policy):
    """Runs structured test cases deterministically, crediting only what the steps produced (module docstring).

    Args:
        expect_timeout_ms: how long unmet expectations may wait for the page after the last step (async handlers);
            they are re-checked on every DOM change and given up early once the page is idle. The fresh page is
            left alone for as long (at most) before the first read.
        poll_ms: longest wait between re-checks (a change no DOM observer sees, such as a property a timer sets, is
            seen after at most this); idle pages are only recognised when it exceeds ``page_changes.QUIET_MS``.
    """

    name = "scripted"

    def __init__(self, *, expect_timeout_ms: int = 400, poll_ms: int = 250) -> None:
        if expect_timeout_ms < 0 or poll_ms <= 0:
            raise ValueError(f"expect_timeout_ms must be >= 0 and poll_ms > 0, got {expect_timeout_ms}, {poll_ms}")
        self.expect_timeout_ms = expect_timeout_ms
        self.poll_ms = poll_ms

    def check_case(self, case: TestCase) -> str | None:
        if not case.expect:
            return "the case has no 'expect' assertions, which the scripted policy needs (or use the vlm policy)"
        if not case.steps:
            return (
                "the case has no 'steps': the scripted policy credits only what the steps produce (an expectation "
                "the page meets before any action earns nothing), so add the actions that lead to the expected state"
            )
        return None

    async def run_case(self, env: GuiEnv, case: TestCase) -> CaseResult:
        """Run the steps, then grade the expectations (never raises for page behaviour)."""
        problem = self.check_case(case)
        if problem:
            return CaseResult(case.task, Verdict.NO, 0, problem)
        expect = case.expect
        try:
            await self._wait(env, self.expect_timeout_ms, None)  # the fresh page, left alone until idle
            # was_unmet[i]: expectation i was seen unmet at some observation point of this case
            was_unmet = [not ok for ok in await self._read(env, expect)]
        except PageHung:
            return CaseResult(case.task, Verdict.NO, env.steps_taken, env.error)
        last = len(case.steps) - 1
        for i, step in enumerate(case.steps):
            outcome = await env.act(Action(step.action, step.target, step.value))
            if not outcome.ok:
                return CaseResult(case.task, Verdict.NO, env.steps_taken, f"step {i}: {outcome.error}")
            if env.done:
                return CaseResult(case.task, Verdict.NO, env.steps_taken, f"step {i}: {env.error or 'episode ended'}")
            try:
                if i < last:  # after the last step the final check's reads are the observation points
                    await self._observe(env, expect, was_unmet)
            except PageHung:
                return CaseResult(case.task, Verdict.NO, env.steps_taken, env.error)
        try:
            met = await self._check(env, expect, was_unmet)
            left = not await env.check_document()  # a navigation that landed while the expectations were read
        except PageHung:
            return CaseResult(case.task, Verdict.NO, env.steps_taken, env.error)
        if left:
            return CaseResult(case.task, Verdict.NO, env.steps_taken, env.error)
        counted = [ok and moved for ok, moved in zip(met, was_unmet)]
        n_met, n_held = sum(counted), sum(ok and not moved for ok, moved in zip(met, was_unmet))
        verdict = Verdict.YES if n_met == len(met) else Verdict.NO if n_met == 0 else Verdict.PARTIAL
        details = tuple(
            f"{'met' if ok else HELD if held else 'unmet'}: {e.target} {e.kind}={e.expected!r}"
            for e, ok, held in zip(expect, counted, met)
        )
        error = None
        if verdict is not Verdict.YES:
            error = f"{len(met) - n_met} of {len(met)} expectations unmet"
            error += f" ({n_held} of them {HELD}: not produced by the steps)" if n_held else ""
        env.end()
        return CaseResult(case.task, verdict, env.steps_taken, error, details)

    async def _observe(self, env: GuiEnv, expect: tuple[Expectation, ...], was_unmet: list[bool]) -> None:
        """After a step: read the expectations not yet seen unmet, again on each change until they are (or idle)."""

        async def moved() -> bool:
            for i, exp in enumerate(expect):
                if not was_unmet[i]:
                    was_unmet[i] = not await self._check_one(env, exp)
            return all(was_unmet)

        await self._wait(env, min(self.expect_timeout_ms, STEP_OBSERVE_MS), moved)

    async def _check(self, env: GuiEnv, expect: tuple[Expectation, ...], was_unmet: list[bool]) -> list[bool]:
        """The final check: read unmet expectations on every change until all are met or the page is idle."""
        met = [False] * len(expect)

        async def all_met() -> bool:
            for i, exp in enumerate(expect):
                if not met[i]:
                    met[i] = await self._check_one(env, exp)
                    was_unmet[i] = was_unmet[i] or not met[i]
            return all(met)

        await self._wait(env, self.expect_timeout_ms, all_met)
        return met

    async def _wait(self, env: GuiEnv, budget_ms: float, done: Callable[[], Awaitable[bool]] | None) -> None:
        """Read with ``done`` now and after every page change until it says True, the page is idle (nothing due
        within the budget could change it) or ``budget_ms`` passes; ``done=None``: wait for idle only."""
        give_up = time.monotonic() + budget_ms / 1000
        # counted before the read, so a change during the read wakes the wait at once
        seen = await self._change_count(env)
        if done is not None and await done():
            return
        while True:
            left_ms = min(give_up - time.monotonic(), env.remaining_s) * 1000
            if left_ms <= 0:
                return
            try:
                change = await next_change(
                    env, seen, max_ms=min(left_ms, self.poll_ms), idle_within_ms=left_ms, timeout_ms=left_ms + 1000
                )
            except PageHung:
                raise
            except Exception as exc:  # the document was replaced mid-wait: look again after a pause
                logger.debug("waiting for the page to change: %s", exc)
                await asyncio.sleep(self.poll_ms / 1000)
                change = None
            if change is not None and change.idle:  # nothing left that could change the page
                return
            seen = change.count if change is not None else await self._change_count(env)
            if done is not None and await done():
                return

    @staticmethod
    async def _change_count(env: GuiEnv) -> int:
        try:
            return await change_count(env)
        except PageHung:
            raise
        except Exception:  # a page mid-navigation: the next wait returns at once and counts again
            return -1

    async def _read(self, env: GuiEnv, expect: tuple[Expectation, ...]) -> list[bool]:
        return [await self._check_one(env, exp) for exp in expect]

    async def _check_one(self, env: GuiEnv, exp: Expectation) -> bool:
        try:
            observed = await env.guard(
                env.page.locator(exp.target).evaluate_all(_READ_JS, exp.kind), what=f"checking {exp.target!r}"
            )
        except PageHung:
            raise
        except Exception as exc:  # an invalid selector in the case, or a page mid-navigation: unmet, not fatal
            logger.debug("expectation %s could not be read: %s", exp, exc)
            return False
        return expectation_met(exp, observed)
