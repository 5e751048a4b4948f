"""A pool's lifecycle: its options, its home event loop, the renderer started there on first use, closing for good."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from vcoder.rendering import defaults
from vcoder.rendering.assets import AssetStore
from vcoder.rendering.browser import check_executable
from vcoder.rendering.loop import HomeLoop
from vcoder.rendering.renderer import Renderer
from vcoder.rendering.types import POOL_CLOSED, BrowserUnavailable
from vcoder.suggest import unknown_names

T = TypeVar("T")
STATS = ("renders", "failures", "timeouts", "crashes", "page_replacements", "relaunches", "dedup_hits")


def _option(default: Any, help: str) -> Any:
    return dataclasses.field(default=default, metadata={"help": help})


@dataclasses.dataclass(frozen=True)
class PoolOptions:
    """A browser pool's options, declared once: ``AsyncBrowserPool``, ``BrowserPool`` and ``get_default_pool`` take
    these keywords (their signatures are made from these fields) and validate them here."""

    max_pages: int = _option(defaults.MAX_PAGES, "concurrent page slots (each its own browser context).")
    executable_path: str | os.PathLike | None = _option(
        None,
        "Chromium binary (default: ``$VCODER_CHROMIUM``, Playwright's, Debian's ``chromium-headless-shell``, "
        "then its ``chromium``).",
    )
    assets_dir: str | os.PathLike | None = _option(
        None, "front-end asset cache (default ``$VCODER_ASSETS_DIR`` or ``~/.cache/vcoder/assets``)."
    )
    timeout_ms: float = _option(defaults.TIMEOUT_MS, "default per-render deadline, in ms.")
    max_height: int = _option(
        defaults.MAX_HEIGHT, "screenshot height cap in px (taller pages are cut, ``Rendered.truncated``)."
    )
    launch_args: tuple[str, ...] = _option(
        (), "extra Chromium flags (a ``--disable-features`` list is merged into the pool's one)."
    )
    recycle_after: int = _option(
        defaults.RECYCLE_AFTER,
        "renders after which a slot's context is replaced. Measured over 500 renders: browser memory grew ~16% "
        "with 500 and stayed flat with 100 (a new context costs ~0.2 s, 0.2% of 100 renders).",
    )

    @classmethod
    def from_keywords(cls, where: str, options: dict[str, Any]) -> PoolOptions:
        """The options from keyword arguments, refusing unknown names with a did-you-mean (``where`` names the
        callable, as Python's own TypeError does)."""
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = [k for k in options if k not in names]
        if unknown:
            raise TypeError(f"{where}() got unknown option(s) {unknown_names(unknown, names)}")
        return cls(**options)

    def __post_init__(self) -> None:
        object.__setattr__(self, "launch_args", tuple(self.launch_args))
        if self.max_pages < 1:
            raise ValueError(f"max_pages must be >= 1, got {self.max_pages}")
        if self.timeout_ms <= 0 or self.max_height <= 0 or self.recycle_after < 1:
            raise ValueError(
                f"timeout_ms, max_height and recycle_after must be positive, got {self.timeout_ms}, "
                f"{self.max_height}, {self.recycle_after}"
            )
        if self.executable_path is not None:
            check_executable(self.executable_path)


def takes_pool_options(func: Callable | None = None, *, unset_is_none: bool = False) -> Callable:
    """Give ``func(..., **options)`` the keyword-only signature of ``PoolOptions``' fields, so ``help()`` and tools
    list every option where the code says ``**options`` (``unset_is_none``: each shows None, "not given")."""
    if func is None:
        return functools.partial(takes_pool_options, unset_is_none=unset_is_none)
    signature = inspect.signature(func)
    own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    keywords = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=None if unset_is_none else f.default, annotation=f.type
        )
        for f in dataclasses.fields(PoolOptions)
    ]
    func.__signature__ = signature.replace(parameters=own + keywords)  # type: ignore[attr-defined]
    return func


class Lifecycle:
    """The started state of one pool, on its home loop: the renderer (Chromium and its slots), started once.

    Args:
        options: the pool's options.
        loop: the home loop to bind to (see ``HomeLoop``).
        stats: the pool's counters.
    """

    def __init__(self, options: PoolOptions, *, loop: asyncio.AbstractEventLoop | None, stats: dict):
        self.options, self.stats = options, stats
        self.home = HomeLoop(loop, on_lost=self._forget)
        self.closed = False
        self.store: AssetStore | None = None
        self._forget()

    def _forget(self) -> None:
        self.renderer: Renderer | None = None
        self._start_lock: asyncio.Lock | None = None

    async def run(self, fn: Callable[..., Awaitable[T]], /, *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` awaited on the home loop (``BrowserUnavailable`` once closed)."""
        if self.closed:
            raise BrowserUnavailable(POOL_CLOSED)
        return await self.home.run(fn, *args, **kwargs)

    async def started(self) -> Renderer:
        """The renderer, launched on first use (call on the home loop).

        Raises:
            BrowserUnavailable: Chromium would not start, or the pool is closed.
        """
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self.closed:
                raise BrowserUnavailable(POOL_CLOSED)
            if self.renderer is None:
                o = self.options
                if self.store is None:
                    self.store = AssetStore(o.assets_dir)
                    # parse Tailwind's 2.9 MB stylesheet while Chromium launches (pruned per page, see cssprune.py)
                    asyncio.get_running_loop().run_in_executor(None, self.store.prewarm)
                self.renderer = await Renderer.launch(
                    self.store,
                    executable_path=o.executable_path,
                    launch_args=o.launch_args,
                    max_pages=o.max_pages,
                    max_height=o.max_height,
                    recycle_after=o.recycle_after,
                    stats=self.stats,
                )
            return self.renderer

    async def close(self) -> None:
        """Close for good (idempotent); renders waiting or in flight end with ``FailureKind.BROWSER``."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(BrowserUnavailable):  # a home loop that is gone took the browser with it
            await self.home.run(self._close)

    async def _close(self) -> None:
        renderer = self.renderer
        self._forget()
        if renderer is not None:
            await renderer.close()
