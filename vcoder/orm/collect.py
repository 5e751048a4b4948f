"""Make a verdict log offline: the scripted GUI agent runs the interactive pages and their broken variants.

For each seed and page kind, the working page and every broken variant (``vcoder.data.site_kinds.pages``), plus one
``handler_dropped`` variant made here (one ``wire(...)`` line of the script removed, so one feature silently stops
working and the site is only partly broken), are run case by case by :class:`ScriptedPolicy` through the hermetic
pool. A :class:`RecordingPolicy` wraps the scripted one to keep what the agent did and saw: the page's visible text
before and after each case, reduced to its change. Each site is also rendered once for its screenshot and text
blocks, and becomes one :class:`~vcoder.verdicts.records.VerdictRecord` (source ``"gui_agent"``).

Example:
    >>> collect_verdicts(40, "verdicts.jsonl")  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vcoder.gui.limits import CaseLimits
from vcoder.gui.policy import CaseResult, Policy, TestCase
from vcoder.verdicts.log import VerdictLog
from vcoder.verdicts.records import VerdictRecord, case_verdict, site_hash

logger = logging.getLogger(__name__)

#: the variant made here on top of the data module's broken variants
DROPPED = "handler_dropped"
_TEXT_JS = "() => document.body ? document.body.innerText : ''"


class RecordingPolicy(Policy):
    """Runs another policy and keeps, per case task, the visible text before and after (for the ORM's history).

    Args:
        inner: the policy that carries the cases out and gives the verdicts.
    """

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.name = inner.name
        self.texts: dict[str, tuple[str | None, str | None]] = {}

    def check_case(self, case: TestCase) -> str | None:
        return self.inner.check_case(case)

    async def run_case(self, env: Any, case: TestCase) -> CaseResult:
        before = await _visible_text(env)
        result = await self.inner.run_case(env, case)
        self.texts[case.task] = (before, await _visible_text(env))
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _visible_text(env: Any) -> str | None:
    try:
        return await env.guard(env.page.evaluate(_TEXT_JS), what="reading the visible text")
    except Exception:  # a hung or departed page: the observation is unknown, not empty
        return None


def _change(policy: RecordingPolicy, case: TestCase) -> str | None:
    from vcoder.orm.prompt import text_change

    return text_change(*policy.texts.get(case.task, (None, None)))


def drop_handler(html: str, seed: int) -> str | None:
    """``html`` with one of its ``wire(...)`` lines removed (seeded), or None when it has fewer than two."""
    lines = html.split("\n")
    wires = [i for i, line in enumerate(lines) if line.startswith("wire(")]
    if len(wires) < 2:
        return None
    del lines[random.Random(seed).choice(wires)]
    return "\n".join(lines)


def variants(kinds: tuple[str, ...], seeds: range, *, dropped: bool = True) -> Iterator[dict[str, Any]]:
    """Pages to grade, seed by seed: per kind the working page, its broken variants and (optionally) one page with
    a dropped handler. Each row is ``make_page``'s dict plus ``seed`` and ``task_id`` (shared by a page's variants,
    so a held-out split by task keeps them together)."""
    from vcoder.data.site_kinds.pages import broken_variants, make_page

    for seed in seeds:
        for kind in kinds:
            base = make_page(kind, seed)
            extra = {"seed": seed, "task_id": f"interactive-{kind}-{seed}"}
            yield {**base, **extra}
            for broken in broken_variants(kind):
                yield {**make_page(kind, seed, broken=broken), **extra}
            html = drop_handler(base["html"], seed) if dropped else None
            if html is not None:
                yield {**base, "html": html, "broken": DROPPED, **extra}


def grade_page(page: dict[str, Any], *, pool: Any, out_dir: Path, **limits: Any) -> VerdictRecord:
    """Run one page's cases with the recording scripted agent, screenshot it, and build its verdict record.

    Args:
        page: a row of :func:`variants`.
        pool: a ``BrowserPool``.
        out_dir: the log's folder; the screenshot goes to ``screens/<hash>.png`` under it (paths kept relative).
        **limits: ``run_cases`` keywords (``limits=CaseLimits(...)``, ``render=RenderSpec(...)``).

    Returns:
        The record (not yet written).
    """
    from vcoder.gui.policy import parse_cases
    from vcoder.gui.runner import run_cases
    from vcoder.gui.scripted import ScriptedPolicy

    html, cases = page["html"], parse_cases(page["test_cases"])
    policy = RecordingPolicy(ScriptedPolicy())
    results, score = run_cases(html, cases, policy=policy, pool=pool, **limits)
    files = {"index.html": html}
    digest = site_hash(files)
    rendered = pool.render(html, full_page=True)
    shot = None
    if rendered.ok:
        shot = f"screens/{digest.split(':')[1][:16]}.png"
        (out_dir / shot).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / shot).write_bytes(rendered.png)
    return VerdictRecord(
        task_id=page["task_id"],
        instruction=page["instruction"],
        site_hash=digest,
        score=float(score),
        source="gui_agent",
        test_cases=tuple(c.to_dict() for c in cases),
        site_files=files,
        screenshot=shot,
        page_text=tuple(b.text for b in rendered.layout.text_blocks) if rendered.ok else None,
        cases=tuple(case_verdict(c, r, observed=_change(policy, c)) for c, r in zip(cases, results)),
        meta={
            "kind": page["kind"],
            "broken": page["broken"],
            "seed": page["seed"],
            "policy": policy.name,
        },
    )


def collect_verdicts(
    n: int,
    out: str | Path,
    *,
    seed: int = 0,
    kinds: tuple[str, ...] | None = None,
    dropped: bool = True,
    max_pages: int = 2,
    limits: CaseLimits | None = None,
) -> dict[str, Any]:
    """Grade ``n`` sites (working pages and broken variants, seed after seed) and append their records to ``out``.

    Args:
        n: number of records to write.
        out: the verdict log (appended to; created if missing).
        seed: first page seed.
        kinds: page kinds (default: all of ``vcoder.data.site_kinds.pages.KINDS``).
        dropped: include the ``handler_dropped`` variant.
        max_pages: concurrent browser pages.
        limits: each test case's bounds (default: ``CaseLimits()``).

    Returns:
        ``{"log", "records", "yes_rate", "by_variant", "elapsed_s"}``: ``yes_rate`` is the share of sites with score
        >= 0.5, ``by_variant`` the mean score per variant.
    """
    from vcoder.data.site_kinds.pages import KINDS
    from vcoder.rendering import BrowserPool

    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    kinds = tuple(kinds or KINDS)
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown page kind(s) {unknown}; choose among {', '.join(KINDS)}")
    out = Path(out)
    log, t0 = VerdictLog(out), time.monotonic()
    scores: dict[str, list[float]] = {}
    pool = BrowserPool(max_pages=max_pages)
    try:
        pages = variants(kinds, range(seed, seed + n), dropped=dropped)
        for i in range(n):
            page = next(pages)
            record = grade_page(page, pool=pool, out_dir=out.parent, limits=limits)
            log.append(record)
            scores.setdefault(page["broken"] or "working", []).append(record.score)
            if (i + 1) % 20 == 0:
                logger.info("collected %d/%d verdicts (%.0f s)", i + 1, n, time.monotonic() - t0)
    finally:
        pool.close()
    every = [s for v in scores.values() for s in v]
    return {
        "log": str(out),
        "records": len(every),
        "yes_rate": sum(s >= 0.5 for s in every) / len(every),
        "by_variant": {k: round(sum(v) / len(v), 3) for k, v in sorted(scores.items())},
        "elapsed_s": round(time.monotonic() - t0, 1),
    }
