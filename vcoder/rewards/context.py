"""Shared per-process state of the rewards: ONE render per distinct completion, ONE per reference.

TRL calls every reward function of a step concurrently with the same completions, so the first reward that
needs a completion's render starts it and the others await the same future. Derived features (SSIM grey image,
CLIP embedding, Design2Code blocks) are memoised on the cache entry, so stacking nine rewards costs one render
and one of each feature. Completion entries are dropped when the trainer's step changes; references live in an
LRU of their own (a prompt's reference is reused across its G completions and across epochs).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vcoder.images import to_rgb_array
from vcoder.rewards.settings import RewardSettings

logger = logging.getLogger(__name__)


@dataclass
class Page:
    """A rendered page (or a reference known only by its screenshot) plus memoised derived features.

    Attributes:
        rendered: the render (None for an image-only reference).
        key: the cache key (distinct pages have distinct keys).
        source: the HTML the page was rendered from ("" for an image-only reference).
        image: HxWx3 uint8 screenshot (decoded lazily for renders).
    """

    rendered: Any = None
    key: str = ""
    source: str = ""
    _image: Any = None
    _memo: dict[str, Any] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _feature_locks: dict[str, threading.Lock] = field(default_factory=dict)

    @classmethod
    def from_image(cls, image: Any, key: str = "") -> Page:
        """A reference known only by its screenshot (any image form ``vcoder.images.to_rgb_array`` reads)."""
        return cls(key=key, _image=to_rgb_array(image))

    @property
    def ok(self) -> bool:
        return self._image is not None or (self.rendered is not None and self.rendered.ok)

    @property
    def layout(self):
        return self.rendered.layout if self.rendered is not None and self.rendered.ok else None

    @property
    def image(self):
        if self._image is None:
            self._image = self.rendered.image
        return self._image

    def has_feature(self, name: str) -> bool:
        """Whether ``name`` has been computed for this page."""
        with self._lock:
            return name in self._memo

    def put_feature(self, name: str, value: Any) -> Any:
        """Store a feature computed elsewhere (e.g. in a batch); the first stored value wins and is returned."""
        with self._lock:
            return self._memo.setdefault(name, value)

    def forget(self, name: str) -> None:
        """Drop a memoised feature that nothing will ask for again (e.g. an intermediate once its users have theirs)."""
        with self._lock:
            self._memo.pop(name, None)

    def feature(self, name: str, compute: Callable[[Page], Any]) -> Any:
        """Compute ``compute(self)`` once per page and name, even when several rewards ask at the same time from
        different threads (the first computes, the others wait for its value instead of repeating the work)."""
        with self._lock:
            if name in self._memo:
                return self._memo[name]
            lock = self._feature_locks.setdefault(name, threading.Lock())
        with lock:
            if name in self._memo:
                return self._memo[name]
            value = compute(self)
            with self._lock:
                self._memo[name] = value
            return value


class _LRU:
    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[str, Page] = OrderedDict()

    def get(self, key: str) -> Page | None:
        page = self.items.get(key)
        if page is not None:
            self.items.move_to_end(key)
        return page

    def put(self, key: str, page: Page) -> None:
        self.items[key] = page
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


class RewardContext:
    """Render cache and counters of one process. Use `get_context()`; it is re-created after a fork."""

    def __init__(self, cache_size: int = 256) -> None:
        self.completions = _LRU(cache_size)
        self.references = _LRU(cache_size)
        self._inflight: dict[tuple[int, str], asyncio.Future] = {}
        self._step: int | None = None
        self._pool = None
        self.counters = {"renders": 0, "render_failures": 0, "cache_hits": 0, "render_ms": 0.0}

    def use_pool(self, pool: Any) -> None:
        """Render on ``pool`` (a ``BrowserPool``, e.g. one with more pages) instead of the process's default pool;
        None goes back to the default."""
        self._pool = pool

    def new_step(self, trainer_state: Any) -> None:
        """Drop completion renders when the trainer moved to another step (they will not be seen again)."""
        step = getattr(trainer_state, "global_step", None)
        if step is not None and step != self._step:
            self._step = step
            self.completions.items.clear()

    async def render(self, html: str, settings: RewardSettings, *, reference: bool = False) -> Page:
        """The page for ``html``, rendered at most once however many rewards ask for it concurrently.

        A failure of the infrastructure (``FailureKind.BROWSER``: Chromium could not take the screenshot or died
        twice, which a loaded machine can cause) is never cached: it is the answer of this render, not of the page,
        so the next reward call that asks renders again instead of inheriting "could not judge" (before, one such
        render left a completion None for every later call, and a reference None for every completion of its
        prompt for the life of the process). A failed reference is rendered a second time before its prompt's
        completions are given up on. References and completions of the same HTML are rendered apart: a completion
        never takes a reference's render (and its failure semantics), nor the reverse.
        """
        key = _key(html, settings)
        lru = self.references if reference else self.completions
        page = lru.get(key)
        if page is not None:
            self.counters["cache_hits"] += 1
            return page
        loop_key = (id(asyncio.get_running_loop()), reference, key)
        pending = self._inflight.get(loop_key)
        if pending is not None:
            self.counters["cache_hits"] += 1
            return await asyncio.shield(pending)
        future = asyncio.get_running_loop().create_future()
        self._inflight[loop_key] = future
        try:
            page = await self._render(html, settings)
            if reference and not page.ok:
                logger.info("reference render failed (%s); rendering it again", page.rendered.error)
                page = await self._render(html, settings)
            page.key, page.source = key, html
            if page.ok or not page.rendered.infrastructure:
                lru.put(key, page)
            future.set_result(page)
            return page
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it, nobody else needs to
            raise
        finally:
            self._inflight.pop(loop_key, None)

    async def _render(self, html: str, settings: RewardSettings) -> Page:
        from vcoder.rendering import get_default_pool

        if self._pool is None or self._pool.closed:  # the process-wide pool: the first reward's settings size it
            self._pool = get_default_pool(max_pages=settings.render_max_pages)
        pool = self._pool
        rendered = await pool.async_pool.render(html, full_page=True, **settings.render_kwargs())
        self.counters["renders"] += 1
        self.counters["render_ms"] += rendered.elapsed_ms
        if not rendered.ok:
            self.counters["render_failures"] += 1
            logger.debug("render failed: %s", rendered.error)
        return Page(rendered=rendered)

    async def reference(self, settings: RewardSettings, *, html: str | None, image: Any) -> Page | None:
        """The reference page of a sample: its HTML rendered (preferred: gives a layout), else its screenshot."""
        if isinstance(html, str) and html.strip():
            return await self.render(html, settings, reference=True)
        if image is None:
            return None
        key = "img:" + _image_key(image)
        page = self.references.get(key)
        if page is None:
            page = Page.from_image(image, key)
            self.references.put(key, page)
        return page

    def log(self, log_metric: Callable[[str, float], None] | None) -> None:
        """Report counters through TRL's ``log_metric`` (a no-op outside a trainer)."""
        if log_metric is None:
            return
        for name, value in self.counters.items():
            try:
                log_metric(f"vcoder/{name}", float(value))
            except Exception:  # a logging hook must never fail a reward
                logger.debug("log_metric(%s) failed", name, exc_info=True)


_CONTEXT: RewardContext | None = None
_CONTEXT_PID: int | None = None


def get_context() -> RewardContext:
    """The process-wide reward context (a forked child gets its own; caches never cross processes)."""
    global _CONTEXT, _CONTEXT_PID
    if _CONTEXT is None or _CONTEXT_PID != os.getpid():
        _CONTEXT, _CONTEXT_PID = RewardContext(), os.getpid()
    return _CONTEXT


def _key(html: str, settings: RewardSettings) -> str:
    digest = hashlib.sha1(html.encode("utf-8", "replace"))
    digest.update(f"{settings.render_width}x{settings.render_height}:{settings.render_timeout_ms}".encode())
    return digest.hexdigest()


def _image_key(image: Any) -> str:
    if isinstance(image, str):
        return "path:" + image
    arr = to_rgb_array(image)
    return hashlib.sha1(arr.tobytes()).hexdigest() + f":{arr.shape}"
