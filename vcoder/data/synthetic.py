"""Deterministic synthetic web pages for offline training, tests and the quickstart.

Every page is self-contained HTML (inline ``<style>``, no external URLs, fonts installed here) generated from a seed
alone, so the same seed gives byte-identical HTML on every machine. Difficulty sets how much there is to learn:

- 0: a tiny ~320x240 page (background colour, one heading, 1-3 coloured blocks labelled with their colour's name,
  on a grid) from a fixed, short
  template with a handful of varying values; a tiny model can learn it on a CPU in minutes.
- 1: a few WebSight-like sections (header, hero, one card row or paragraph, footer).
- 2: more sections (nav, hero, cards, table, form, footer) with palettes, fonts and spacing varied.
- 3: all of 2 with more sections, nested grids and longer text.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field

from vcoder.data.sections import SECTION_BUILDERS, Theme, make_theme, title
from vcoder.data.splits import check_split, content_split

# few distinct values keep difficulty-0 HTML to a small, regular token set
_D0_COLORS = ["#e74c3c", "#3498db", "#2ecc71", "#f1c40f", "#9b59b6", "#e67e22", "#1abc9c", "#34495e"]
# each block is labelled with its colour's name: the label is readable from the block's colour alone, and it
# makes every block a Design2Code text block (so block/position/colour metrics see the grid, not just the heading)
_D0_NAMES = dict(zip(_D0_COLORS, ["red", "blue", "green", "yellow", "purple", "orange", "teal", "navy"]))
_D0_BACKGROUNDS = ["#ffffff", "#f5f5f5", "#fdf6e3", "#eef6fb", "#222222"]
_D0_WORDS = ["Hello", "Welcome", "Blue Sky", "Green Park", "Red Box", "My Page", "Sale", "News", "About", "Contact"]

# sections per difficulty (beyond the always-present header/footer pair for 1+)
_SECTION_COUNTS = {1: (1, 2), 2: (3, 4), 3: (5, 7)}


@dataclass(frozen=True)
class SynthPage:
    """One generated page.

    Attributes:
        id: stable identifier, ``d<difficulty>-<seed>``.
        html: the complete, self-contained HTML document.
        meta: generation facts (seed, difficulty, width, height, sections, palette) for analysis.
    """

    id: str
    html: str
    meta: dict = field(default_factory=dict)


def _difficulty0(rng: random.Random) -> tuple[str, dict]:
    bg = rng.choice(_D0_BACKGROUNDS)
    fg = "#ffffff" if bg == "#222222" else "#222222"
    heading = rng.choice(_D0_WORDS)
    cols = rng.randint(1, 3)
    n_blocks = rng.randint(1, 3)
    blocks = [rng.choice(_D0_COLORS) for _ in range(n_blocks)]
    height = rng.choice([40, 60, 80])
    lines = [
        "<!DOCTYPE html>",  # as WebSight's pages have; without it a perfect copy scores 0.9 on the validity reward
        "<html>",
        "<head>",
        "<style>",
        f"body {{ margin: 0; padding: 16px; background: {bg}; font-family: 'DejaVu Sans', sans-serif; }}",
        f"h1 {{ margin: 0 0 12px 0; font-size: 24px; color: {fg}; }}",
        f".grid {{ display: grid; grid-template-columns: repeat({cols}, 1fr); gap: 8px; }}",
        f".box {{ height: {height}px; color: #ffffff; font-size: 16px; }}",
        "</style>",
        "</head>",
        "<body>",
        f"<h1>{heading}</h1>",
        '<div class="grid">',
        *[f'<div class="box" style="background: {c};">{_D0_NAMES[c]}</div>' for c in blocks],
        "</div>",
        "</body>",
        "</html>",
    ]
    meta = {"background": bg, "heading": heading, "columns": cols, "blocks": blocks, "block_height": height}
    return "\n".join(lines) + "\n", meta


def _page_css(theme: Theme) -> str:
    t = theme
    return "\n".join(
        [
            "* { box-sizing: border-box; }",
            f"body {{ margin: 0; font-family: {t.font}; background: {t.background}; color: {t.text}; "
            f"line-height: 1.5; }}",
            f"h1, h2, h3 {{ margin: 0 0 {t.gap}px 0; color: {t.heading}; }}",
            f"p {{ margin: 0 0 {t.gap}px 0; }}",
            f"section, header, footer, nav {{ padding: {t.pad}px {t.pad * 2}px; }}",
            f".btn {{ display: inline-block; padding: 8px 16px; background: {t.primary}; color: {t.on_primary}; "
            f"border-radius: {t.radius}px; text-decoration: none; }}",
            f".card {{ background: {t.surface}; padding: {t.pad}px; border-radius: {t.radius}px; "
            f"border: 1px solid {t.border}; }}",
            f".row {{ display: flex; gap: {t.gap}px; }}",
            ".row > * { flex: 1; }",
        ]
    )


def generate_page(seed: int, *, difficulty: int = 0, width: int | None = None, height: int | None = None) -> SynthPage:
    """Generate one self-contained HTML page, deterministic from ``seed`` and ``difficulty``.

    Args:
        seed: any integer; the same (seed, difficulty) always gives the same HTML.
        difficulty: 0 (tiny, regular; learnable by a tiny model on CPU) to 3 (WebSight-like variety).
        width: intended viewport width recorded in ``meta`` (default 320 for difficulty 0, else 1280).
        height: intended viewport height recorded in ``meta`` (default 240 for difficulty 0, else 720).

    Returns:
        A :class:`SynthPage` with id ``d<difficulty>-<seed>``.

    Example:
        >>> generate_page(3).html == generate_page(3).html
        True
    """
    if difficulty not in (0, 1, 2, 3):
        raise ValueError(f"difficulty must be 0, 1, 2 or 3, got {difficulty!r}")
    # string seeding: stable across Python versions and processes (hash() of str is salted)
    rng = random.Random(f"vcoder-synth:{difficulty}:{seed}")
    if difficulty == 0:
        html, meta = _difficulty0(rng)
        width, height = width or 320, height or 240
    else:
        theme = make_theme(rng, difficulty)
        lo, hi = _SECTION_COUNTS[difficulty]
        pool = [name for name in SECTION_BUILDERS if name not in ("header", "footer", "pricing")]
        if difficulty == 1:
            pool = ["hero", "cards", "text"]
        elif difficulty == 3:
            pool.append("pricing")
        k = rng.randint(lo, hi)
        # distinct sections first (variety), repeats only beyond the pool; a hero, when drawn, leads like on the web
        chosen = rng.sample(pool, min(k, len(pool))) + [rng.choice(pool) for _ in range(k - len(pool))]
        chosen.sort(key=lambda name: name != "hero")
        names = ["header", *chosen, "footer"]
        body = "\n".join(SECTION_BUILDERS[name](rng, theme, difficulty) for name in names)
        page_title = title(rng, 2)
        html = (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{page_title}</title>\n<style>\n{_page_css(theme)}\n</style>\n</head>\n<body>\n"
            f"{body}\n</body>\n</html>\n"
        )
        meta = {"sections": names, "palette": theme.name, "font": theme.font}
        width, height = width or 1280, height or 720
    meta = {"seed": seed, "difficulty": difficulty, "width": width, "height": height, **meta}
    return SynthPage(id=f"d{difficulty}-{seed}", html=html, meta=meta)


def page_digest(html: str) -> str:
    """A short stable digest of an HTML string (used for ids and holdout assignment)."""
    return hashlib.sha1(html.encode("utf-8")).hexdigest()[:16]


def content_key(page: SynthPage) -> str:
    """A page's content: what a policy that memorised the page could copy onto another screenshot.

    Difficulty 0: the heading, the blocks' labels in order and the column count (the text a screenshot shows and its
    layout; the background and the boxes' height are style, so two pages that differ only there share content).
    Difficulty 1-3: the page itself (its digest; these pages differ in text almost everywhere).

    Example:
        >>> content_key(generate_page(3)) == content_key(generate_page(3))
        True
    """
    meta = page.meta
    if meta["difficulty"] == 0:
        labels = [_D0_NAMES[c] for c in meta["blocks"]]
        return "d0:" + json.dumps([meta["heading"], labels, meta["columns"]])
    return f"d{meta['difficulty']}:" + page_digest(page.html)


def page_split(page: SynthPage) -> str:
    """The split of a page, from its content alone (see :mod:`vcoder.data.splits`)."""
    return content_split(content_key(page), salt="synthetic")


def split_pages(n: int, *, seed: int = 0, split: str = "train", difficulty: int = 0) -> list[SynthPage]:
    """``n`` pages of one split with distinct contents: generator seeds ``seed * 1_000_003`` upward, keeping each page
    whose content falls in ``split`` and is new (deterministic; the splits never share a content).

    Raises:
        ValueError: an unknown split, or too few contents in the seeds tried.

    Example:
        >>> [page_split(p) for p in split_pages(2, split="test")]
        ['test', 'test']
    """
    split = check_split(split)
    pages: list[SynthPage] = []
    seen: set[str] = set()
    candidate = start = seed * 1_000_003
    while len(pages) < n:
        if candidate - start > 200 * n + 1000:
            raise ValueError(f"could not find {n} distinct difficulty-{difficulty} {split} pages; ask for fewer")
        page = generate_page(candidate, difficulty=difficulty)
        candidate += 1
        key = content_key(page)
        if key not in seen and page_split(page) == split:
            seen.add(key)
            pages.append(page)
    return pages
