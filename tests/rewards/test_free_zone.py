"""The imitation factor's free zone (``vcoder.rewards.features.MAX_STRETCH`` and ``HIDDEN_TOLERANCE``): honest
attempts at a reference pay nothing, the gaming pages that stretch or hide do.

The honest pages are ``tests/rewards/honest.py``'s variants (fonts, sizes, spacing, a narrower column, reworded text,
a section missing or added, another layout, placeholder sizes, colours, combinations) of references the project
generates; the constants were set from ``tests/rewards/free_zone.py``'s measurement over 1100+ such pages (see the
comment beside them and docs/results.md, "The imitation factor's free zone"), which the first test runs small.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
#: the gaming pages the imitation factor itself must catch (the others are the evidence gate's and the metrics')
STRETCHED_OR_HIDDEN = (
    "repeat",
    "repeat_4",
    "tall",
    "stretched",
    "invisible",
    "half_hidden",
    "tiny",
    "half_transparent",
    "half_background",
    "half_zero",
    "scaled_0.1",
    "bars",
    "covered",
)


@pytest.mark.timeout(600)
def test_the_measurement_runs_small():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    argv = [sys.executable, "-m", "tests.rewards.free_zone", "--small"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["honest"]["n"] >= 20 and report["gaming"]["n"] >= 15, report
    assert report["honest"]["penalised"] == 0.0, report["honest_outside"]
    caught = {page.split("/")[1] for page, (_, _, charged) in report["gaming_pages"].items() if charged}
    assert set(STRETCHED_OR_HIDDEN) <= caught


def _factors(reference: str, pages: dict[str, str]) -> dict[str, float]:
    from tests.rewards.free_zone import measure

    return {name: m["factor"] for name, m in zip(pages, measure(reference, list(pages.values())))}


@pytest.fixture(scope="module")
def factors() -> dict[str, dict[str, float]]:
    """``{"honest" | "gaming": {"shape/page": imitation factor}}`` over the six shapes of the gaming tests."""
    from tests.rewards.gaming import all_shapes, render_variants, variants
    from tests.rewards.honest import honest_variants
    from vcoder.rendering import get_default_pool

    out: dict[str, dict[str, float]] = {"honest": {}, "gaming": {}}
    for shape in all_shapes():
        pages = variants(shape)
        reference = pages.pop("reference")
        honest = {
            **honest_variants(reference, 0, combos=2),
            **{n: pages[n] for n in ("honest", "nudged", "delete_half")},
        }
        rendered = get_default_pool().render(reference, full_page=True, timeout_ms=15000)
        pages.update(render_variants(shape, rendered.layout, rendered.image))
        for group, chosen in (("honest", honest), ("gaming", {n: pages[n] for n in STRETCHED_OR_HIDDEN})):
            out[group].update({f"{shape}/{n}": f for n, f in _factors(reference, chosen).items()})
    return out


#: the honest pages of this sample in the measured tail beyond the zone (the gaming shapes are long pages of card
#: grids: their honest 99th percentile is 1.99): the card grid stacked into one column (2.13 times as tall, the
#: largest honest ratio measured), stacked plans with taller lines (1.77), the article's main column copied with
#: other words (1.88) and the dashboard's tiles stacked with larger fonts (1.57). The old zone (1.5) also charged
#: the dashboard's stacked tiles alone (1.54) and its tiles with one more row (1.54): 6 of the 92 pages, 4 now.
HONEST_OUTSIDE = {"cards/stack", "pricing/stack+line_height", "article/extra_section", "dashboard/stack+font_size"}


def test_honest_variants_pay_no_imitation_penalty(factors):
    assert len(factors["honest"]) >= 80
    paid = {n: round(f, 3) for n, f in factors["honest"].items() if f < 1.0}
    print(f"{len(paid)} of {len(factors['honest'])} honest pages charged: {paid}")
    assert set(paid) == HONEST_OUTSIDE, f"honest pages the imitation factor charges: {paid}"


def test_gaming_pages_pay_the_imitation_penalty(factors):
    free = sorted(n for n, f in factors["gaming"].items() if f >= 1.0)
    assert not free, f"gaming pages the imitation factor does not charge: {free}"
