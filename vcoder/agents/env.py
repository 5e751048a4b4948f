"""A GUI environment over one live page: observe (screenshot + numbered interactive elements), act, stay contained.

The page comes from the hermetic rendering pool (``AsyncBrowserPool.open_page``), so its JavaScript runs but
nothing reaches the network. ``GuiEnv`` adds what an agent needs on top: numbered interactive elements, a marked
screenshot for VLM policies (WebVoyager-style set-of-marks), a small action space, a step limit (WebGen-Bench
allows 15 actions), an episode deadline, and per-action timeouts. Every browser call goes through
``asyncio.wait_for``: a page whose click handler loops forever ends the episode with ``error="page hung: ..."``
instead of hanging the caller, and ``page_broken`` tells the runner to have the pool replace the page.

Example (inside a coroutine, with ``page`` from the pool)::

    env = GuiEnv(page, step_limit=15)
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

from vcoder.agents.actions import ACTIONS, Action, ActionResult, ActionTimeout, Observation, PageHung
from vcoder.agents.marks import ELEMENTS_JS, INTERACTIVE_SELECTOR, Element, draw_marks

logger = logging.getLogger(__name__)

__all__ = [
    "ACTIONS",
    "Action",
    "ActionResult",
    "ActionTimeout",
    "Element",
    "GuiEnv",
    "Observation",
    "PageHung",
    "draw_marks",
]

#: seconds a page gets to answer a trivial evaluate before it is declared hung
ALIVE_TIMEOUT_S = 3.0


class GuiEnv:
    """One episode on one live page.

    Args:
        page: a live Playwright ``Page`` (from the rendering pool; the env never opens or closes pages).
        step_limit: actions allowed before the episode ends (``answer`` is not counted).
        deadline_ms: wall-clock budget of the whole episode, in ms.
        action_timeout_ms: budget of one action (locating the element included).
        max_elements: cap on numbered elements per observation.
    """

    def __init__(
        self,
        page: Any,
        *,
        step_limit: int = 15,
        deadline_ms: float = 30_000,
        action_timeout_ms: int = 3000,
        max_elements: int = 200,
    ) -> None:
        if step_limit < 1:
            raise ValueError(f"step_limit must be >= 1, got {step_limit}")
        if deadline_ms <= 0 or action_timeout_ms <= 0:
            raise ValueError(f"deadline_ms and action_timeout_ms must be > 0, got {deadline_ms}, {action_timeout_ms}")
        self.page = page
        self.step_limit = step_limit
        self.deadline_ms = deadline_ms
        self.action_timeout_ms = action_timeout_ms
        self.max_elements = max_elements
        self.steps_taken = 0
        self.done = False
        self.error: str | None = None
        self.answer: str | None = None
        self.page_broken = False
        self._t0 = time.monotonic()
        self._start_url = page.url
        self._token: str | None = None
        self._left: str | None = None
        # a main-frame navigation request means the page is leaving its document (the pool blocks it, and the
        # error page arrives a moment later: the request event is the earliest, race-free sign)
        page.on("request", self._on_request)
        self._elements: tuple[Element, ...] = ()

    @property
    def remaining_s(self) -> float:
        """Seconds left before the episode deadline (never negative)."""
        return max(0.0, self.deadline_ms / 1000 - (time.monotonic() - self._t0))

    def end(self, error: str | None = None) -> None:
        """End the episode (first error wins)."""
        self.done = True
        if error and not self.error:
            self.error = error

    async def guard(self, coro: Any, *, what: str, timeout_ms: float | None = None) -> Any:
        """Await a browser call under the action timeout (capped by the deadline); a hang ends the episode.

        Args:
            coro: the awaitable (a Playwright call).
            what: short description for the error message.
            timeout_ms: budget override in ms; default ``action_timeout_ms`` plus a small margin so Playwright's
                own timeout (a normal "element not found") fires first.

        Returns:
            The call's result.

        Raises:
            ActionTimeout: the call did not return in time but the page still answers (the action failed).
            PageHung: the call did not return in time and the page no longer answers, or the deadline passed; the
                episode is then over (``page_broken`` set for a hung page).
        """
        budget = (timeout_ms if timeout_ms is not None else self.action_timeout_ms + 1000) / 1000
        budget = min(budget, self.remaining_s)
        try:
            return await asyncio.wait_for(coro, timeout=max(budget, 0.01))
        except asyncio.TimeoutError:
            if self.remaining_s <= 0:
                self.end(f"deadline: episode exceeded {self.deadline_ms:g} ms during {what}")
                raise PageHung(self.error) from None
        # slow is not hung (a loaded machine delays everything): only a page that no longer answers is broken
        if await self.alive():
            raise ActionTimeout(f"{what} did not finish within {budget:.1f} s")
        raise PageHung(self.error)

    async def alive(self) -> bool:
        """Whether the page still answers a trivial evaluate quickly (after a Playwright timeout: slow or hung?)."""
        try:
            # generous: on a loaded machine a healthy page can take a second to answer; a looping one never does
            await asyncio.wait_for(self.page.evaluate("1"), timeout=min(ALIVE_TIMEOUT_S, max(self.remaining_s, 0.01)))
            return True
        except Exception:
            self.page_broken = True
            self.end("page hung: the page stopped responding (a script is looping or the tab crashed)")
            return False

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
        await self._ensure_started()
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

    async def _ensure_started(self) -> None:
        if self._token is None:
            # a page-side marker tells later whether the document is still the one the episode started on
            self._token = f"vc{id(self):x}{time.monotonic_ns():x}"
            await self.guard(self.page.evaluate("t => { window.__vcoderEnv = t; }", self._token), what="start")

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
            await self._ensure_started()
            await self._do(action)
            await self._check_document()
        except PageHung:
            return ActionResult(False, self.error, True)
        except Exception as exc:  # Playwright errors, bad targets: the action failed, the page may be fine
            if self._left and not self.done:  # the action started a navigation (the pool blocked it)
                self.end(f"navigated away: the page tried to load {self._left}")
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
            el = await self.resolve(target)
            await self.guard(el.click(timeout=ms), what=f"click {target!r}")
        elif kind == "type":
            el = await self.resolve(target)
            await self.guard(el.fill("" if value is None else str(value), timeout=ms), what=f"type into {target!r}")
        elif kind == "select":
            el = await self.resolve(target)
            await self.guard(el.select_option(str(value), timeout=ms), what=f"select in {target!r}")
        elif kind == "press":
            if not value:
                raise ValueError("press needs a key in 'value', e.g. 'Enter'")
            if target is None:
                await self.guard(self.page.keyboard.press(str(value)), what=f"press {value!r}")
            else:
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

    def _on_request(self, request: Any) -> None:
        try:
            if self._left is None and request.is_navigation_request() and request.frame == self.page.main_frame:
                self._left = request.url
        except Exception:  # a request of a frame that is already gone
            pass

    def close(self) -> None:
        """Detach from the page (the pool reuses it for other pages); the runner calls this after each case."""
        self.end()
        try:
            self.page.remove_listener("request", self._on_request)
        except Exception:
            pass

    async def check_document(self) -> bool:
        """Whether the page is still the document the episode started on; ends the episode if it left it."""
        if self._token is not None and not self.done:
            await self._check_document()
        elif self._left and not self.error:
            self.end(f"navigated away: the page tried to load {self._left}")
        return not (self.error or "").startswith("navigated away")

    async def _check_document(self) -> None:
        if self._left:
            self.end(f"navigated away: the page tried to load {self._left}")
            return
        try:
            marker = await self.guard(self.page.evaluate("() => window.__vcoderEnv || null"), what="checking page")
        except PageHung:
            raise
        except Exception:  # execution context destroyed: a navigation is under way
            marker = None
        if marker != self._token:
            self.end(f"navigated away: the page left its document (now at {self.page.url})")

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
