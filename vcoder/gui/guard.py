"""Containment of one episode on a live page: the episode deadline, per-call timeouts, hangs and navigation away.

Every browser call of an episode goes through :meth:`PageGuard.guard` (``asyncio.wait_for`` under the action
timeout, capped by the episode deadline): a page whose click handler loops forever ends the episode with
``error="page hung: ..."`` instead of hanging the caller, and ``page_broken`` tells the runner to have the pool
replace the page (also when the episode deadline cut a call short and the page then does not answer: the error
says "deadline", and the frozen page is replaced all the same). A page that starts loading another document (the pool blocks the request; the error page arrives
a moment later) ends the episode with ``error="navigated away: ..."``. :class:`vcoder.gui.env.GuiEnv` builds
the agent's observations and actions on top of this.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from vcoder.gui.actions import ActionTimeout, PageHung

logger = logging.getLogger(__name__)

#: ms a page gets to answer a trivial evaluate before it is declared hung
ALIVE_TIMEOUT_MS = 3000
#: ms a guarded call gets beyond the action timeout, so that Playwright's own timeout (a normal "element not
#: found") fires first
GUARD_MARGIN_MS = 1000
#: ms a page cut off by the episode deadline gets to answer before it is declared hung (well inside the runner's
#: grace period, which cancels the whole case 2 s after the deadline)
DEADLINE_ALIVE_MS = 1000


class PageGuard:
    """The bounds of one episode on one live page: a deadline, per-call timeouts, hang and navigation detection.

    Args:
        page: a live Playwright ``Page`` (from the rendering pool; the guard never opens or closes pages).
        deadline_ms: wall-clock budget of the whole episode, in ms.
        action_timeout_ms: budget of one browser call, in ms.

    Attributes:
        done: the episode is over (answer, step limit, deadline, hang, navigation away).
        error: why it ended, when it ended badly (the first error wins).
        page_broken: the page stopped answering: the runner must not hand it on.
    """

    def __init__(self, page: Any, *, deadline_ms: float, action_timeout_ms: int) -> None:
        if deadline_ms <= 0 or action_timeout_ms <= 0:
            raise ValueError(f"deadline_ms and action_timeout_ms must be > 0, got {deadline_ms}, {action_timeout_ms}")
        self.page = page
        self.deadline_ms = deadline_ms
        self.action_timeout_ms = action_timeout_ms
        self.done = False
        self.error: str | None = None
        self.page_broken = False
        self._t0 = time.monotonic()
        self._token: str | None = None
        self._left: str | None = None
        # a main-frame navigation request means the page is leaving its document (the pool blocks it, and the
        # error page arrives a moment later: the request event is the earliest, race-free sign)
        page.on("request", self._on_request)

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
            timeout_ms: budget override in ms; default ``action_timeout_ms`` plus ``GUARD_MARGIN_MS`` so
                Playwright's own timeout (a normal "element not found") fires first.

        Returns:
            The call's result.

        Raises:
            ActionTimeout: the call did not return in time but the page still answers (the action failed).
            PageHung: the call did not return in time and the page no longer answers, or the deadline passed; the
                episode is then over (``page_broken`` set for a hung page).
        """
        budget = (timeout_ms if timeout_ms is not None else self.action_timeout_ms + GUARD_MARGIN_MS) / 1000
        budget = min(budget, self.remaining_s)
        try:
            return await asyncio.wait_for(coro, timeout=max(budget, 0.01))
        except asyncio.TimeoutError:
            if self.remaining_s <= 0:
                self.end(f"deadline: episode exceeded {self.deadline_ms:g} ms during {what}")
                # the deadline cut the call short, which says nothing about the page: one that no longer answers
                # (a handler looping) is marked broken, or the runner would hand it back to the pool frozen
                await self.alive(timeout_ms=DEADLINE_ALIVE_MS)
                raise PageHung(self.error) from None
        # slow is not hung (a loaded machine delays everything): only a page that no longer answers is broken
        if await self.alive():
            raise ActionTimeout(f"{what} did not finish within {budget:.1f} s")
        raise PageHung(self.error)

    async def alive(self, *, timeout_ms: float | None = None) -> bool:
        """Whether the page still answers a trivial evaluate quickly (after a Playwright timeout: slow or hung?).

        A page that does not answer is marked ``page_broken`` and ends the episode (an earlier error is kept).

        Args:
            timeout_ms: how long to wait for the answer; default ``ALIVE_TIMEOUT_MS`` capped by the time left.
        """
        if timeout_ms is None:
            # generous: on a loaded machine a healthy page can take a second to answer; a looping one never does
            timeout_ms = min(ALIVE_TIMEOUT_MS, max(self.remaining_s * 1000, 10))
        try:
            await asyncio.wait_for(self.page.evaluate("1"), timeout=timeout_ms / 1000)
            return True
        except Exception:
            self.page_broken = True
            self.end("page hung: the page stopped responding (a script is looping or the tab crashed)")
            return False

    async def ensure_started(self) -> None:
        """Mark the document the episode starts on (once), so that leaving it is noticed later."""
        if self._token is None:
            self._token = f"vc{id(self):x}{time.monotonic_ns():x}"
            await self.guard(self.page.evaluate("t => { window.__vcoderEnv = t; }", self._token), what="start")

    def end_if_navigating(self) -> None:
        """End the episode when the page asked to load another document (the pool blocked it)."""
        if self._left and not self.done:
            self.end(f"navigated away: the page tried to load {self._left}")

    async def check_document(self) -> bool:
        """Whether the page is still the document the episode started on; ends the episode if it left it.

        Raises:
            PageHung: the page no longer answers (the episode is then over).
        """
        if self._token is not None and not self.done:
            await self._check_marker()
        elif self._left and not self.error:
            self.end(f"navigated away: the page tried to load {self._left}")
        return not (self.error or "").startswith("navigated away")

    async def _check_marker(self) -> None:
        if self._left:
            self.end_if_navigating()
            return
        try:
            marker = await self.guard(self.page.evaluate("() => window.__vcoderEnv || null"), what="checking page")
        except PageHung:
            raise
        except Exception:  # execution context destroyed: a navigation is under way
            marker = None
        if marker != self._token:
            self.end(f"navigated away: the page left its document (now at {self.page.url})")

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
