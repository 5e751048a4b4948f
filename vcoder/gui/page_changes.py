"""Waiting for a live page to change instead of waiting out a deadline.

A GUI check that is not met yet (an expectation, the button a step clicks) waits for the page's next DOM change
(a ``MutationObserver``), re-checks, and so returns as soon as it holds. It gives up early only when the page has
nothing left that could change it by itself: its document has loaded (a live page is lent once it commits, so a
case may start while scripts still load), the pool's determinism shim (``rendering/init.js``) reports it
settled (no timer to fast-forward, no fetch or XHR under way, no message posted by the page), no real-time timer
is due before the check's own deadline, the DOM stayed unchanged for ``QUIET_MS`` more, and nothing changed since
the caller last looked. Only a check that the page could still satisfy waits out its deadline, so a page graded
this way gets the verdict the deadline would have given it, in a fraction of the time.

Usage (``seen`` is the count before the check's read, so a change during the read wakes the wait at once)::

    seen = await change_count(env)
    while not await holds():
        change = await next_change(env, seen, max_ms=..., idle_within_ms=...)
        if change.idle:
            break  # nothing will change any more: the check failed
        seen = change.count
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: ms the DOM must stay unchanged after the shim reports the page settled (work the shim does not see: an image's
#: load handler, a font, a dynamic import) before the page counts as idle
QUIET_MS = 100

# One observer per document (kept under a symbol, invisible to the page's own code) counts DOM changes; a wait
# resolves on the first change after `seen`, after maxMs, or (idleMs not null) once the page is idle as above.
_WAIT_JS = """async ({seen, maxMs, idleMs, quietMs}) => {
  const key = Symbol.for('vcoder.changes');
  let w = window[key];
  if (!w) {
    w = {n: 0, wake: []};
    Object.defineProperty(window, key, {value: w});
    new MutationObserver(() => { w.n += 1; for (const f of w.wake.splice(0)) f(); })
      .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  if (w.n !== seen || maxMs <= 0) return {count: w.n, idle: false};
  const v = window.__vcoder;
  const sleep = (ms) => (v ? v.sleep(ms) : new Promise((r) => setTimeout(r, ms)));
  const loaded = () => document.readyState === 'complete';
  const idle = () => loaded() && w.n === seen && (!v.next || v.next() < 0 || v.next() > idleMs);
  return await new Promise((resolve) => {
    let over = false;
    const finish = (isIdle) => { if (!over) { over = true; resolve({count: w.n, idle: isIdle}); } };
    w.wake.push(() => finish(false));
    sleep(maxMs).then(() => finish(false));
    if (v && idleMs !== null)
      (async () => {
        if (!loaded()) await new Promise((r) => addEventListener('load', r, {once: true}));
        await v.settle();
        if (over || !idle()) return;
        await sleep(quietMs);
        await v.settle();
        if (!over && idle()) finish(true);
      })();
  });
}"""


@dataclass(frozen=True)
class Change:
    """What a wait saw: the page's DOM change count now, and whether the page is idle (nothing will change it)."""

    count: int
    idle: bool


async def change_count(env: Any) -> int:
    """The page's DOM change count now (starts counting on the first call for a document).

    Raises:
        PageHung: the page no longer answers.
    """
    return (await next_change(env, -1, max_ms=0)).count


async def next_change(
    env: Any, seen: int, *, max_ms: float, idle_within_ms: float | None = None, timeout_ms: float | None = None
) -> Change:
    """Wait until the page's DOM changes after count ``seen``, at most ``max_ms`` (real time).

    Args:
        env: a :class:`~vcoder.gui.guard.PageGuard` (the call goes through its guard).
        seen: the count the caller last saw (-1: none, returns at once).
        max_ms: the longest wait; what the observer cannot see (a property set by a timer) is re-checked after it.
        idle_within_ms: return ``idle=True`` once the page is idle, counting a real-time timer due after this many
            ms as never firing (the caller's deadline); None: never idle.
        timeout_ms: how long the page may take to answer (a page busy in a long script answers late, as it would
            to any action); default ``max_ms`` + 3 s.

    Raises:
        PageHung: the page no longer answers; other Playwright errors (a navigation replaced the document) propagate.
    """
    args = {"seen": seen, "maxMs": max(0.0, max_ms), "idleMs": idle_within_ms, "quietMs": QUIET_MS}
    out = await env.guard(
        env.page.evaluate(_WAIT_JS, args),
        what="waiting for the page to change",
        timeout_ms=max_ms + 3000 if timeout_ms is None else max(timeout_ms, max_ms + 500),
    )
    return Change(int(out["count"]), bool(out["idle"]))
