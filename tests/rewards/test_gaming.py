"""No cheap direction up: for every content reward, every gaming page scores below both honest attempts, and the
imitations of ``BELOW_HALF`` below even an honest attempt that keeps only half of the content.

Six reference shapes (an article, a flex/grid card page, a Tailwind page in ``tests/rewards/gaming.py``; a docs page,
a dark dashboard, a pricing page in ``tests/rewards/gaming_shapes.py``). For each,
two honest but imperfect attempts (colours and spacing off; colours off and everything nudged 4 px) and the pages a
policy could learn instead: half the content deleted, the content repeated, all text in one block, the page scaled
down (0.5: readable; 0.1: not), text made invisible (all of it; half deleted and the rest hidden; 1 px), text drawn
on a canvas, coloured bars where the text is (on white; over the page with its text hidden), the reference with its
text covered, and a blank page; and against the honest half (``delete_half``): every item kept with the text of every
other one hidden (transparent, the colour of its background, 0 px), the page stretched very tall (6000 px of blank
below; every gap blown up), the body repeated twice and four times. Rewards: block, text, position, color, ssim, visual, dom and clip (a tiny offline
CLIP) against the reference's HTML, and ssim, visual and clip against its screenshot only. format and validity do
not look at content: they may tie with the honest page, never beat it. The measured table is printed (``-s``).
"""

from __future__ import annotations

import pytest

from tests.rewards.gaming import BELOW_HALF, HONEST_NAMES, REFERENCES, all_shapes, render_variants, variants
from vcoder.rewards import build_reward

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PARAMS = {"clip_tiny": True, "render_timeout_ms": 15000}
CONTENT = ["block", "text", "position", "color", "ssim", "visual", "dom", "clip"]
IMAGE_ONLY = ["ssim@img", "visual@img", "clip@img"]
FORM = ["format", "validity"]


def score_table(rewards: dict, shapes=tuple(all_shapes())) -> dict[str, dict[str, float | None]]:
    """``{"shape/page": {reward: score}}`` for every page of every shape; rewards named ``"x@img"`` are given the
    reference's screenshot only, the others its HTML. ``rewards`` maps names to built reward callables."""
    import asyncio

    from vcoder.rendering import get_default_pool

    pool = get_default_pool()
    table: dict[str, dict[str, float | None]] = {}
    for shape in shapes:
        pages = variants(shape)
        reference = pages.pop("reference")
        rendered = pool.render(reference, full_page=True)
        assert rendered.ok, rendered.error
        pages.update(render_variants(shape, rendered.layout, rendered.image))
        names = list(pages)
        values = asyncio.run(_score_pages(rewards, list(pages.values()), reference, rendered.pil()))
        for reward, scores in zip(rewards, values):
            for page, value in zip(names, scores):
                table.setdefault(f"{shape}/{page}", {})[reward] = value
    return table


async def _score_pages(rewards: dict, completions: list[str], reference: str, screenshot) -> list:
    import asyncio

    n = len(completions)
    jobs = []
    for name, func in rewards.items():
        columns = {"image": [screenshot] * n} if name.endswith("@img") else {"html": [reference] * n}
        jobs.append(func(completions=completions, prompts=[""] * n, **columns))
    return await asyncio.gather(*jobs)


def format_table(table: dict[str, dict[str, float | None]]) -> str:
    columns = list(next(iter(table.values())))
    lines = ["page".ljust(22) + "".join(c.rjust(11) for c in columns)]
    for page, row in table.items():
        cells = ("None" if row[c] is None else f"{row[c]:.3f}" for c in columns)
        lines.append(page.ljust(22) + "".join(cell.rjust(11) for cell in cells))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def table():
    names = CONTENT + IMAGE_ONLY + FORM
    rewards = {name: build_reward(name.split("@")[0], **PARAMS) for name in names}
    out = score_table(rewards)
    print("\n" + format_table(out))
    return out


def _by_shape(table):
    shapes: dict[str, dict[str, dict]] = {}
    for key, row in table.items():
        shape, page = key.split("/")
        shapes.setdefault(shape, {})[page] = row
    return shapes


@pytest.mark.parametrize("reward", CONTENT + IMAGE_ONLY)
def test_every_gaming_page_scores_below_every_honest_attempt(table, reward):
    for shape, pages in _by_shape(table).items():
        honest = min(pages[h][reward] for h in HONEST_NAMES)
        cheats = {p: row[reward] for p, row in pages.items() if p not in HONEST_NAMES}
        assert honest is not None and all(v is not None for v in cheats.values()), (shape, reward)
        above = {p: v for p, v in cheats.items() if v >= honest}
        assert not above, f"{shape}: {reward} ranks {above} at or above the honest attempts ({honest:.3f})"


@pytest.mark.parametrize("reward", CONTENT + IMAGE_ONLY)
def test_imitations_score_below_an_honest_half(table, reward):
    for shape, pages in _by_shape(table).items():
        half = pages["delete_half"][reward]
        cheats = {p: pages[p][reward] for p in BELOW_HALF}
        assert half is not None and all(v is not None for v in cheats.values()), (shape, reward)
        above = {p: round(v, 3) for p, v in cheats.items() if v >= half}
        assert not above, f"{shape}: {reward} ranks {above} at or above the honest half ({half:.3f})"


@pytest.mark.parametrize("reward", FORM)
def test_format_and_validity_are_not_fooled_either(table, reward):
    for shape, pages in _by_shape(table).items():
        honest = min(pages[h][reward] for h in HONEST_NAMES)
        assert all(row[reward] <= honest for p, row in pages.items()), (shape, reward)


def test_honest_attempts_score_well(table):
    # on gaming.py's three shapes; the docs page's honest copy (spacing x 1.15 over a long page) scores visual@img
    # 0.557, which says nothing about gaming
    for key, row in table.items():
        if key.split("/")[0] in REFERENCES and key.split("/")[1] in HONEST_NAMES:
            for reward in ("block", "text", "dom", "visual", "visual@img"):
                assert row[reward] >= 0.6, (key, reward, row[reward])
