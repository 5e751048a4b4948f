"""A GUI environment over one live page: observe (screenshot + numbered interactive elements) and act.

The page comes from the hermetic rendering pool (``AsyncBrowserPool.open_page``), so its JavaScript runs but
nothing reaches the network. ``GuiEnv`` adds what an agent needs on top: numbered interactive elements, a marked
screenshot for VLM policies (WebVoyager-style set-of-marks), a small action space and a step limit (WebGen-Bench
allows 15 actions). The episode's bounds (deadline, per-action timeouts, hang and navigation containment) come from
:class:`vcoder.gui.guard.PageGuard`, which every browser call goes through.

Example (inside a coroutine, with ``page`` from the pool)::

    env = GuiEnv(page, limits=CaseLimits(step_limit=15))
    obs = await env.observe()                 # obs.elements[0].index == 1, obs.png is the viewport
    await env.act(Action("click", 1))         # by element number ...
    await env.act(Action("type", "#email", "a@b.c"))   # ... or by Playwright selector
    await env.act(Action("answer", value="YES"))
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from vcoder.gui.actions import ACTIONS, Action, ActionResult, ActionTimeout, Observation, PageHung
from vcoder.gui.guard import GUARD_MARGIN_MS, PageGuard
from vcoder.gui.limits import CaseLimits, case_limits
from vcoder.gui.marks import ELEMENTS_JS, INTERACTIVE_SELECTOR, Element, draw_marks
from vcoder.gui.page_changes import change_count, next_change

logger = logging.getLogger(__name__)

#: longest wait, in ms, between two looks for an action's missing target (each DOM change wakes it sooner)
TARGET_POLL_MS = 250

__all__ = [
    "ACTIONS",
    "Action",
    "ActionResult",
    "ActionTimeout",
    "Element",
    "GuiEnv",
    "Observation",
    "PageGuard",
    "PageHung",
    "draw_marks",
]


class GuiEnv(PageGuard):
    """One episode on one live page: numbered elements, observations and actions, within the guard's bounds.

    Args:
        page: a live Playwright ``Page`` (from the rendering pool; the env never opens or closes pages).
        limits: the episode's bounds: ``step_limit`` actions (``answer`` is not counted), a wall-clock
            ``deadline_ms`` and ``action_timeout_ms`` per action, locating the element included (default:
            ``CaseLimits()``).
        max_elements: cap on numbered elements per observation.
        **limit_fields: ``CaseLimits`` fields to replace in ``limits`` (``step_limit=5``).
    """

    def __init__(
        self, page: Any, *, limits: CaseLimits | None = None, max_elements: int = 200, **limit_fields: int
    ) -> None:
        limits = case_limits(limits, **limit_fields)
        super().__init__(page, deadline_ms=limits.deadline_ms, action_timeout_ms=limits.action_timeout_ms)
        self.limits = limits
        self.step_limit = limits.step_limit
        self.max_elements = max_elements
        self.steps_taken = 0
        self.answer: str | None = None
        self._start_url = page.url
        self._elements: tuple[Element, ...] = ()

    async def resolve(self, target: int | str) -> Any:
        """What an action acts on: a Playwright ``Locator`` (first match) for a selector, or the ``ElementHandle``
        of an element number from the last observation. Both offer click/fill/select_option/press/is_visible.

        Raises:
            ValueError: for a number that the last observation did not show.
        """
        if isinstance(target, bool) or target is None:
            raise ValueError(f"target must be an element number or a Playwright selector, got {target!r}")
        if isinstance(target, int) or (isinstance(target, str) and target.strip().isdigit()):
            number = int(target)
            if not 1 <= number <= len(self._elements):
                raise ValueError(f"no element [{number}] in the last observation (valid: 1..{len(self._elements)})")
            # the page-side array holds exactly the observed elements, so a number means what the agent saw
            handle = await self.guard(
                self.page.evaluate_handle("i => (window.__vcoderElements || [])[i] || null", number - 1),
                what=f"resolving element [{number}]",
            )
            element = handle.as_element()
            if element is None:
                raise ValueError(f"element [{number}] is gone from the page; observe again")
            return element
        return self.page.locator(target).first

    async def elements(self) -> tuple[Element, ...]:
        """Number the page's visible interactive elements (one evaluate) and remember them for targeting."""
        raw = await self.guard(
            self.page.evaluate(ELEMENTS_JS, [INTERACTIVE_SELECTOR, self.max_elements]), what="listing elements"
        )
        self._elements = tuple(
            Element(
                index=i + 1,
                tag=r["tag"],
                role=r["role"],
                text=r["text"],
                value=r["value"],
                box=tuple(float(v) for v in r["box"]),
                in_view=bool(r["inView"]),
            )
            for i, r in enumerate(raw)
        )
        return self._elements

    async def screenshot(self) -> bytes:
        """PNG of the viewport as the user would see it now."""
        return await self.guard(
            self.page.screenshot(type="png", timeout=self.action_timeout_ms * 2),
            what="screenshot",
            timeout_ms=self.action_timeout_ms * 2 + 500,
        )

    async def observe(self) -> Observation:
        """Screenshot + numbered elements of the current state (element numbers are valid until the next call).

        Raises:
            PageHung: when the page no longer answers (the episode is then over).
        """
        await self.ensure_started()
        elements = await self.elements()
        png = await self.screenshot()
        return Observation(
            png=png,
            elements=elements,
            url=self.page.url,
            steps_taken=self.steps_taken,
            steps_left=max(0, self.step_limit - self.steps_taken),
        )

    async def marked_screenshot(self, observation: Observation | None = None) -> bytes:
        """The viewport PNG with each in-view element's box and number drawn on it (for VLM policies)."""
        obs = observation or await self.observe()
        return draw_marks(obs.png, obs.elements)

    async def act(self, action: Action) -> ActionResult:
        """Perform one action; never raises for page behaviour.

        Returns:
            ``ActionResult``: ``ok`` False with an ``error`` for a failed action (element missing, not editable, ...)
            — the episode goes on — and ``done`` True once the episode ended (answer, step limit, deadline, hang,
            navigation away).
        """
        if self.done:
            return ActionResult(False, self.error or "the episode is over", True)
        if action.kind not in ACTIONS:
            return ActionResult(False, f"unknown action {action.kind!r}; use one of {', '.join(ACTIONS)}")
        if action.kind == "answer":
            self.answer = "" if action.value is None else str(action.value)
            self.end()
            return ActionResult(True, None, True)
        if self.steps_taken >= self.step_limit:
            self.end(f"step limit: {self.step_limit} actions used without an answer")
            return ActionResult(False, self.error, True)
        if self.remaining_s <= 0:
            self.end(f"deadline: episode exceeded {self.deadline_ms:g} ms")
            return ActionResult(False, self.error, True)
        self.steps_taken += 1
        try:
            await self.ensure_started()
            await self._do(action)
            await self.check_document()
        except PageHung:
            return ActionResult(False, self.error, True)
        except Exception as exc:  # Playwright errors, bad targets: the action failed, the page may be fine
            self.end_if_navigating()  # the action may have started a navigation (the pool blocked it)
            if self.done:
                return ActionResult(False, self.error, True)
            if "Timeout" in type(exc).__name__ and not isinstance(exc, ActionTimeout) and not await self.alive():
                return ActionResult(False, self.error, True)
            message = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
            return ActionResult(False, f"{action.kind} {action.target!r} failed: {message}", self.done)
        return ActionResult(self.error is None, self.error, self.done)

    async def _do(self, action: Action) -> None:
        kind, target, value, ms = action.kind, action.target, action.value, self.action_timeout_ms
        if kind == "click":
            ms = await self._await_target(target, ms, visible=True)
            el = await self.resolve(target)
            await self.guard(el.click(timeout=ms), what=f"click {target!r}")
        elif kind == "type":
            ms = await self._await_target(target, ms, visible=True)
            el = await self.resolve(target)
            await self.guard(el.fill("" if value is None else str(value), timeout=ms), what=f"type into {target!r}")
        elif kind == "select":
            ms = await self._await_target(target, ms, visible=True)
            el = await self.resolve(target)
            await self.guard(el.select_option(str(value), timeout=ms), what=f"select in {target!r}")
        elif kind == "press":
            if not value:
                raise ValueError("press needs a key in 'value', e.g. 'Enter'")
            if target is None:
                await self.guard(self.page.keyboard.press(str(value)), what=f"press {value!r}")
            else:
                ms = await self._await_target(target, ms, visible=False)
                el = await self.resolve(target)
                await self.guard(el.press(str(value), timeout=ms), what=f"press {value!r} on {target!r}")
        elif kind == "scroll":
            if target is not None:
                el = await self.resolve(target)
                await self.guard(el.scroll_into_view_if_needed(timeout=ms), what=f"scroll to {target!r}")
            else:
                dy = float(value) if value not in (None, "") else None
                await self.guard(
                    self.page.evaluate("dy => window.scrollBy(0, dy === null ? window.innerHeight * 0.8 : dy)", dy),
                    what="scroll",
                )
        elif kind == "wait":
            if target is not None and not str(target).strip().isdigit():
                ms = await self._await_target(str(target), ms, visible=True)
                await self.guard(
                    self.page.locator(str(target)).first.wait_for(state="visible", timeout=ms), what=f"wait {target!r}"
                )
            else:
                pause_ms = float(value) if value not in (None, "") else 500.0
                await asyncio.sleep(min(max(pause_ms, 0.0), 5000.0, self.remaining_s * 1000) / 1000)
        elif kind == "back":
            # only in-document history (pushState / #hash): earlier entries belong to other pages of the pool
            if self.page.url == self._start_url:
                raise ValueError("there is no earlier state of this page to go back to")
            await self.guard(self.page.evaluate("() => history.back()"), what="back")
            await asyncio.sleep(0.05)

    async def _await_target(self, target: int | str | None, ms: float, *, visible: bool) -> float:
        """Wait, at most ``ms``, until a selector ``target`` matches an element (a visible one when ``visible``: what
        Playwright's click, fill and select wait for), looking again on every DOM change; element numbers need no
        wait. Returns the ms left for the action (Playwright then waits for the rest of its checks).

        Raises:
            LookupError: still no match and the page has nothing left that could add one before ``ms`` runs out
                (``page_changes``): the action fails now instead of at its timeout, as it would have then.
        """
        if not isinstance(target, str) or target.strip().isdigit():
            return ms
        t0 = time.monotonic()
        matches = self.page.locator(target)
        seen = None  # counted only once a look failed, before the next look: a change while looking wakes the wait
        while True:
            look = matches.first.is_visible() if visible else matches.count()
            if await self.guard(look, what=f"looking for {target!r}"):
                return max(ms - (time.monotonic() - t0) * 1000, 1.0)  # Playwright reads a 0 timeout as none
            left = ms - (time.monotonic() - t0) * 1000
            if left <= 0:
                return 1.0
            if seen is None:
                seen = await change_count(self)
                continue
            change = await next_change(
                self, seen, max_ms=min(left, TARGET_POLL_MS), idle_within_ms=left, timeout_ms=left + GUARD_MARGIN_MS
            )
            if change.idle:
                shown = "visible element" if visible else "element"
                raise LookupError(f"no {shown} matches {target!r} and the page has stopped changing")
            seen = change.count

    async def click(self, target: int | str) -> ActionResult:
        return await self.act(Action("click", target))

    async def type(self, target: int | str, text: str) -> ActionResult:
        return await self.act(Action("type", target, text))

    async def select(self, target: int | str, option: str) -> ActionResult:
        return await self.act(Action("select", target, option))

    async def press(self, key: str, target: int | str | None = None) -> ActionResult:
        return await self.act(Action("press", target, key))

    async def scroll(self, target: int | str | None = None, pixels: float | None = None) -> ActionResult:
        return await self.act(Action("scroll", target, None if pixels is None else str(pixels)))

    async def wait(self, ms: float = 500, target: str | None = None) -> ActionResult:
        return await self.act(Action("wait", target, str(ms)))

    async def back(self) -> ActionResult:
        return await self.act(Action("back"))

    async def finish(self, answer: str) -> ActionResult:
        """The ``answer`` action: end the episode with the policy's final answer (e.g. ``"YES"``)."""
        return await self.act(Action("answer", None, answer))
