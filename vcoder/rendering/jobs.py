"""What one render is asked to do (``Job``: the validated document, viewport, deadline), and batches of them.

Bad input never raises here: a document that is not HTML, or too large, becomes its typed ``Rendered`` failure.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Awaitable, Callable, Sequence

from vcoder.rendering.types import FailureKind, Rendered

MAX_HTML_BYTES = 8_000_000  # larger documents fail fast: sending them through the protocol alone blocks for seconds


@dataclasses.dataclass(frozen=True)
class Job:
    """One document to render (or to open as a live page), validated."""

    html: bytes
    width: int
    height: int
    full_page: bool
    timeout_ms: float
    base_dir: str | None


def make_job(
    html, *, width: int, height: int, full_page: bool, timeout_ms: float, base_dir: str | os.PathLike | None
) -> Job | Rendered:
    """A ``Job``, or the ``Rendered`` failure that a document that is not HTML (or too large) gets."""
    if isinstance(html, bytes):
        html = html.decode("utf-8", errors="replace")
    if not isinstance(html, str):
        return Rendered.failure(
            FailureKind.EMPTY, f"empty: there is no HTML (expected str or bytes, got {type(html).__name__})"
        )
    if not html.strip():
        return Rendered.failure(FailureKind.EMPTY, f"empty: the HTML is empty or whitespace only ({html[:20]!r})")
    data = html.encode("utf-8", errors="replace")
    if len(data) > MAX_HTML_BYTES:
        return Rendered.failure(
            FailureKind.TOO_LARGE, f"too_large: the HTML is {len(data)} bytes, over the {MAX_HTML_BYTES} byte limit"
        )
    return Job(data, width, height, full_page, timeout_ms, None if base_dir is None else str(base_dir))


def per_document(name: str, values: Sequence | None, count: int) -> list:
    """``values`` as a list of one entry per document (None entries when not given).

    Raises:
        ValueError: the lengths differ.
    """
    if values is None:
        return [None] * count
    values = list(values)
    if len(values) != count:
        raise ValueError(f"{name} has {len(values)} entries for {count} documents; pass one per document")
    return values


def dedup_key(index: int, html, base_dir) -> tuple:
    """Identical documents (same HTML, same base_dir) share one render; anything that is not HTML stands alone."""
    if not isinstance(html, (str, bytes)):
        return ("not html", index)
    return (html, None if base_dir is None else str(base_dir))


async def run_batch(
    keys: Sequence, render_one: Callable[[int], Awaitable[Rendered]], *, progress: bool
) -> list[Rendered]:
    """Render documents concurrently, each distinct key once; copies come back with ``cached=True``.

    Args:
        keys: one dedup key per document (``dedup_key``).
        render_one: renders the document at an index.
        progress: show a tqdm bar on stderr.
    """
    first: dict = {}
    owner = [first.setdefault(key, i) for i, key in enumerate(keys)]
    unique = sorted(set(owner))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(unique), desc="render", unit="page")

    async def one(i: int) -> Rendered:
        r = await render_one(i)
        if bar is not None:
            bar.update(1)
        return r

    try:
        done = dict(zip(unique, await asyncio.gather(*(one(i) for i in unique))))
    finally:
        if bar is not None:
            bar.close()
    return [done[o] if o == i else dataclasses.replace(done[o], cached=True) for i, o in enumerate(owner)]
