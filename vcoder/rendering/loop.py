"""The pool's home event loop: Playwright objects belong to the loop that made them, callers may be on any loop.

TRL awaits async rewards on its own loop, ``BrowserPool`` keeps its loop in a background thread, a script may call
``asyncio.run`` several times: ``HomeLoop.run`` runs a coroutine on the pool's home loop and awaits its result from
whichever loop the caller is on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from vcoder.rendering.types import BrowserUnavailable

T = TypeVar("T")


def retrieve_exception(fut: asyncio.Future) -> None:
    """A done-callback for a future nobody may await: its exception, if any, is marked retrieved (asyncio would
    log "exception was never retrieved" otherwise); whoever does await it still gets it."""
    if not fut.cancelled():
        fut.exception()


class HomeLoop:
    """The event loop a pool's browser lives on.

    Args:
        loop: bind to this loop for good (it must be running, in another thread, when called from elsewhere). None:
            the first loop that uses the pool becomes its home, and when that loop has been closed (an earlier
            ``asyncio.run`` ended) the next caller's loop replaces it.
        on_lost: called when an adopted home loop is found closed (the pool then forgets its browser).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None, *, on_lost: Callable[[], None] = lambda: None):
        self.loop = loop
        self.bound = loop is not None
        self._on_lost = on_lost

    def is_here(self) -> bool:
        """True when the running loop is the home loop (or no loop has been adopted yet)."""
        return self.loop is None or self.loop.is_closed() or asyncio.get_running_loop() is self.loop

    async def run(self, fn: Callable[..., Awaitable[T]], /, *args, **kwargs) -> T:
        """Await ``fn(*args, **kwargs)`` on the home loop (directly when already there).

        Raises:
            BrowserUnavailable: the home loop is another loop that is not running (or a bound loop that was closed).
        """
        here = asyncio.get_running_loop()
        home = self.loop
        if home is not None and home.is_closed():
            if self.bound:
                raise BrowserUnavailable("the event loop this pool was bound to is closed; create a new pool")
            self._on_lost()  # the loop that owned the browser is gone (e.g. an earlier asyncio.run): start afresh
            home = None
        if home is None:
            self.loop = home = here
        if home is here:
            return await fn(*args, **kwargs)
        if not home.is_running():
            raise BrowserUnavailable(
                "this pool's event loop is not running, so it cannot serve a call from another loop; use the pool "
                "from the loop that started it, or use BrowserPool (it keeps its own loop thread)"
            )
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(fn(*args, **kwargs), home))
