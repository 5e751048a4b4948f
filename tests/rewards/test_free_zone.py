"""The imitation factor's free zone (``vcoder.rewards.features.MAX_STRETCH`` and ``HIDDEN_TOLERANCE``): honest
attempts at a reference pay nothing, the gaming pages that stretch or hide do.

The honest pages are ``tests/rewards/honest.py``'s variants (fonts, sizes, spacing, a narrower column, reworded text,
a section missing or added, another layout, placeholder sizes, colours, combinations) of references the project
generates; the constants were set from ``experiments/free_zone.py``'s measurement over 1100+ such pages (see the
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
    argv = [sys.executable, "experiments/free_zone.py", "--small"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["honest"]["n"] >= 20 and report["gaming"]["n"] >= 15, report
    assert report["honest"]["penalised"] == 0.0, report["honest_outside"]
    caught = {page.split("/")[1] for page, (_, _, charged) in report["gaming_pages"].items() if charged}
    assert set(STRETCHED_OR_HIDDEN) <= caught


def _factors(reference: str, pages: dict[str, str]) -> dict[str, float]:
    from experiments.free_zone import measure

    return {name: m["factor"] for name, m in zip(pages, measure(reference, list(pages.values())))}


# references whose honest variants the old free zone (1.5x as tall) charged: a card row stacked, a section added
@pytest.mark.parametrize("shape", ["cards", "docs"])
def test_honest_variants_pay_no_imitation_penalty_and_gaming_pages_do(shape):
    from tests.rewards.gaming import render_variants, variants
    from tests.rewards.honest import honest_variants
    from vcoder.rendering import get_default_pool

    pages = variants(shape)
    reference = pages.pop("reference")
    honest = {**honest_variants(reference, 0), **{n: pages[n] for n in ("honest", "nudged", "delete_half")}}
    paid = {n: round(f, 3) for n, f in _factors(reference, honest).items() if f < 1.0}
    assert not paid, f"{shape}: honest pages pay the imitation factor: {paid}"

    rendered = get_default_pool().render(reference, full_page=True, timeout_ms=15000)
    pages.update(render_variants(shape, rendered.layout, rendered.image))
    gaming = {n: pages[n] for n in STRETCHED_OR_HIDDEN}
    free = {n for n, f in _factors(reference, gaming).items() if f >= 1.0}
    assert not free, f"{shape}: gaming pages pay no imitation factor: {sorted(free)}"
