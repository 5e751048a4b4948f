"""No cheap direction up: for every content reward, every gaming page scores below both honest attempts.

Three reference shapes (an article, a flex/grid card page, a Tailwind page; ``tests/rewards/gaming.py``). For each,
two honest but imperfect attempts (colours and spacing off; colours off and everything nudged 4 px) and the pages a
policy could learn instead: half the content deleted, the content repeated, all text in one block, the page scaled
down (0.5: readable; 0.1: not), text made invisible (all of it; half deleted and the rest hidden; 1 px), text drawn
on a canvas, coloured bars where the text is (on white; over the page with its text hidden), the reference with its
text covered, and a blank page. Rewards: block, text, position, color, ssim, visual, dom and clip (a tiny offline
CLIP) against the reference's HTML, and ssim, visual and clip against its screenshot only. format and validity do
not look at content: they may tie with the honest page, never beat it. The measured table is printed (``-s``).
"""

from __future__ import annotations

import pytest

from tests.rewards.gaming import HONEST_NAMES, format_table, score_table
from vcoder.rewards import build_reward

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PARAMS = {"clip_tiny": True, "render_timeout_ms": 15000}
CONTENT = ["block", "text", "position", "color", "ssim", "visual", "dom", "clip"]
IMAGE_ONLY = ["ssim@img", "visual@img", "clip@img"]
FORM = ["format", "validity"]


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


@pytest.mark.parametrize("reward", FORM)
def test_format_and_validity_are_not_fooled_either(table, reward):
    for shape, pages in _by_shape(table).items():
        honest = min(pages[h][reward] for h in HONEST_NAMES)
        assert all(row[reward] <= honest for p, row in pages.items()), (shape, reward)


def test_honest_attempts_score_well(table):
    for key, row in table.items():
        if key.split("/")[1] in HONEST_NAMES:
            for reward in ("block", "text", "dom", "visual", "visual@img"):
                assert row[reward] >= 0.6, (key, reward, row[reward])
