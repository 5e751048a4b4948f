"""What one render is asked to do (``Job``: the validated document, viewport, deadline), and batches of them.

Bad input never raises here: a document that is not HTML, or too large, becomes its typed ``Rendered`` failure.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence

from vcoder.rendering.site import Site, normalize_files, site_path
from vcoder.rendering.types import FailureKind, Rendered

MAX_HTML_BYTES = 8_000_000  # larger documents fail fast: sending them through the protocol alone blocks for seconds
DEFAULT_ENTRY = "index.html"


@dataclasses.dataclass(frozen=True)
class Job:
    """One document to render (or to open as a live page), validated.

    Attributes:
        html: the document, served at ``/<entry>`` of the render's origin.
        entry: the document's site path.
        site: the other files served at that origin.
    """

    html: bytes
    width: int
    height: int
    full_page: bool
    timeout_ms: float
    site: Site
    entry: str = DEFAULT_ENTRY


def make_job(
    html,
    *,
    width: int,
    height: int,
    full_page: bool,
    timeout_ms: float,
    base_dir: str | os.PathLike | None,
    files: Mapping[str, str | bytes] | None = None,
    entry: str = DEFAULT_ENTRY,
) -> Job | Rendered:
    """A ``Job``, or the ``Rendered`` failure that a document that is not HTML (or too large) gets.

    With ``html`` None and a site (``files`` or ``base_dir``), the document is the site's ``entry`` file.

    Raises:
        TypeError: ``files`` is not a mapping of str paths to str/bytes contents.
        ValueError: a ``files`` key or ``entry`` is not a path inside the site.
    """
    entry_path = site_path(entry) if isinstance(entry, str) else None
    if entry_path is None or not entry.strip("/ "):
        raise ValueError(f"entry must be a path inside the site, like 'index.html'; got {entry!r}")
    site = Site(normalize_files(files), None if base_dir is None else str(base_dir))
    if html is None and (site.files or site.base_dir is not None):
        html = site.get(entry_path)
        if html is None:
            return Rendered.failure(
                FailureKind.EMPTY, f"empty: no HTML given and the site has no {entry_path!r} (pass html, or entry=)"
            )
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
    return Job(data, width, height, full_page, timeout_ms, site, entry_path)


def per_document(htmls, *, base_dirs: Sequence | None, files: Sequence | None) -> tuple[list, list, list]:
    """``render_many``'s inputs as three lists of one entry per document (None where not given).

    Raises:
        TypeError: ``files`` is one mapping instead of one per document.
        ValueError: ``base_dirs`` or ``files`` has not one entry per document, or there are no documents at all.
    """
    if isinstance(files, Mapping):
        raise TypeError("render_many's files is one mapping per document (a list of them), not one mapping")
    if htmls is None:
        if files is None and base_dirs is None:
            raise ValueError("render_many needs htmls, or files/base_dirs (one site per document)")
        htmls = [None] * len(files if files is not None else base_dirs)
    htmls = list(htmls)
    lists = []
    for name, values in (("base_dirs", base_dirs), ("files", files)):
        values = [None] * len(htmls) if values is None else list(values)
        if len(values) != len(htmls):
            raise ValueError(f"{name} has {len(values)} entries for {len(htmls)} documents; pass one per document")
        lists.append(values)
    return htmls, lists[0], lists[1]


def dedup_key(index: int, job: Job | Rendered) -> tuple:
    """Identical jobs (same document, same site, same entry) share one render; a failed input stands alone."""
    if not isinstance(job, Job):
        return ("failed", index)
    return (job.html, job.entry, job.site.base_dir, tuple(sorted(job.site.files.items())))


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
