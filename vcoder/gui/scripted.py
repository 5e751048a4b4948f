"""The deterministic scripted policy: run a case's structured steps, then check its expectations.

Verdict (WebGen-Bench's scale on machine-checkable cases): every expectation met -> YES, some -> PARTIAL, none or a
step failed -> NO. Steps go through :class:`~vcoder.gui.env.GuiEnv` (Playwright locators with short timeouts,
hang containment, navigation-away detection); unmet expectations are re-checked whenever the page changes, for
a short while, so handlers that update the page asynchronously (``setTimeout``, promises, fetches) still count,
and given up as soon as the page has nothing left that could change it (:mod:`vcoder.gui.page_changes`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time

from vcoder.gui.env import Action, GuiEnv, PageHung
from vcoder.gui.page_changes import change_count, next_change
from vcoder.gui.policy import CaseResult, Expectation, Policy, TestCase, Verdict

logger = logging.getLogger(__name__)

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
    """Runs structured test cases deterministically.

    Args:
        expect_timeout_ms: how long unmet expectations may wait for the page after the last step (async handlers);
            they are re-checked on every DOM change and given up early once the page is idle.
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
        return None

    async def run_case(self, env: GuiEnv, case: TestCase) -> CaseResult:
        """Run the steps, then grade the expectations (never raises for page behaviour)."""
        problem = self.check_case(case)
        if problem:
            return CaseResult(case.task, Verdict.NO, 0, problem)
        for i, step in enumerate(case.steps):
            outcome = await env.act(Action(step.action, step.target, step.value))
            if not outcome.ok:
                return CaseResult(case.task, Verdict.NO, env.steps_taken, f"step {i}: {outcome.error}")
            if env.done:
                return CaseResult(case.task, Verdict.NO, env.steps_taken, f"step {i}: {env.error or 'episode ended'}")
        try:
            met = await self._check(env, case.expect)
            left = not await env.check_document()  # a navigation that landed while the expectations were read
        except PageHung:
            return CaseResult(case.task, Verdict.NO, env.steps_taken, env.error)
        if left:
            return CaseResult(case.task, Verdict.NO, env.steps_taken, env.error)
        n_met = sum(met)
        verdict = Verdict.YES if n_met == len(met) else Verdict.NO if n_met == 0 else Verdict.PARTIAL
        details = tuple(
            f"{'met' if ok else 'unmet'}: {e.target} {e.kind}={e.expected!r}" for e, ok in zip(case.expect, met)
        )
        error = None if verdict is Verdict.YES else f"{len(met) - n_met} of {len(met)} expectations unmet"
        env.end()
        return CaseResult(case.task, verdict, env.steps_taken, error, details)

    async def _check(self, env: GuiEnv, expect: tuple[Expectation, ...]) -> list[bool]:
        met = [False] * len(expect)
        give_up = time.monotonic() + self.expect_timeout_ms / 1000
        seen = None  # counted only once a read found something unmet, before the next read (a change while
        # reading then wakes the wait at once)
        while True:
            for i, exp in enumerate(expect):
                if not met[i]:
                    met[i] = await self._check_one(env, exp)
            left_ms = min(give_up - time.monotonic(), env.remaining_s) * 1000
            if all(met) or left_ms <= 0:
                return met
            if seen is None:
                seen = await self._change_count(env)
                continue
            try:
                change = await next_change(
                    env, seen, max_ms=min(left_ms, self.poll_ms), idle_within_ms=left_ms, timeout_ms=left_ms + 1000
                )
            except PageHung:
                raise
            except Exception as exc:  # the document was replaced mid-wait: look again after a pause
                logger.debug("waiting for the page to change: %s", exc)
                await asyncio.sleep(self.poll_ms / 1000)
                seen = await self._change_count(env)
                continue
            if change.idle:  # nothing left that could change the page: the unmet ones stay unmet
                return met
            seen = change.count

    @staticmethod
    async def _change_count(env: GuiEnv) -> int:
        try:
            return await change_count(env)
        except PageHung:
            raise
        except Exception:  # a page mid-navigation: the next wait returns at once and counts again
            return -1

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
