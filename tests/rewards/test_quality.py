"""Reward quality: scores fall as the damage a reward is meant to see grows (Spearman <= -0.9 over each ladder,
averaged over pages); identical pages score >= 0.99; a blank page scores <= 0.3 on the composite."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from scipy.stats import spearmanr

from tests.rewards.pages import LADDERS, make_page, to_html
from vcoder.rewards import build_reward

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SEEDS = (1, 2, 3)
LEVELS = range(5)
PARAMS = {"clip_tiny": True, "render_timeout_ms": 10000}

# reward -> the ladders whose damage it is meant to see
SEES = {
    "text": ["text"],
    "color": ["color"],
    "block": ["remove"],
    "position": ["move"],
    "ssim": ["remove", "move"],
    "clip": ["remove"],
    "visual": ["text", "color", "remove", "move"],
}


def score_all(names, completions, refs):
    funcs = [build_reward(n, **PARAMS) for n in names]

    async def go():
        return await asyncio.gather(
            *(f(prompts=[""] * len(completions), completions=completions, html=refs) for f in funcs)
        )

    return dict(zip(names, asyncio.run(go())))


@pytest.fixture(scope="module")
def ladder_scores():
    """scores[reward][ladder] -> array (seeds x levels)."""
    completions, refs, index = [], [], []
    for seed in SEEDS:
        blocks = make_page(seed)
        for ladder, damage in LADDERS.items():
            for level in LEVELS:
                completions.append(to_html(damage(blocks, level, seed=seed)))
                refs.append(to_html(blocks))
                index.append((seed, ladder, level))
    raw = score_all(list(SEES), completions, refs)
    scores = {name: {ladder: np.zeros((len(SEEDS), len(LEVELS))) for ladder in LADDERS} for name in SEES}
    for name, values in raw.items():
        for (seed, ladder, level), value in zip(index, values):
            assert value is not None, (name, seed, ladder, level)
            scores[name][ladder][SEEDS.index(seed), level] = value
    return scores


@pytest.mark.parametrize("name", list(SEES))
def test_scores_fall_with_damage(ladder_scores, name):
    for ladder in SEES[name]:
        table = ladder_scores[name][ladder]
        rhos = [spearmanr(list(LEVELS), row).statistic for row in table]
        rhos = [-1.0 if np.isnan(r) else r for r in rhos]  # nan only if constant: caught by the next assert
        assert np.ptp(table) > 0.02, f"{name} does not react to {ladder} damage: {table.round(3).tolist()}"
        assert np.mean(rhos) <= -0.9, f"{name} on {ladder}: rho={np.round(rhos, 3)} scores={table.round(3).tolist()}"


@pytest.mark.parametrize("name", list(SEES))
def test_identical_page_scores_at_least_099(ladder_scores, name):
    for ladder in LADDERS:
        assert ladder_scores[name][ladder][:, 0].min() >= 0.99, (name, ladder, ladder_scores[name][ladder][:, 0])


def test_blank_and_near_empty_pages_score_low():
    refs = [to_html(make_page(s)) for s in SEEDS]
    blank = "<!DOCTYPE html><html><head></head><body></body></html>"
    near_empty = "<!DOCTYPE html><html><body><p style='font-size:10px'>x</p></body></html>"
    out = score_all(["visual", "ssim", "clip"], [blank] * 3 + [near_empty] * 3, refs + refs)
    assert max(out["visual"]) <= 0.3, out["visual"]
    assert max(out["ssim"]) <= 0.3, out["ssim"]
    assert max(out["clip"]) <= 0.3, out["clip"]


def test_validity_falls_with_broken_markup():
    base = to_html(make_page(4))
    ladder = [base]
    broken = base
    for k in range(1, 5):
        broken = broken.replace("</p>", "", 1).replace("</div>", "", 1) + "</span>" * k + "<i id='dup'></i>" * k
        ladder.append(broken)
    fn = build_reward("validity")
    scores = asyncio.run(fn(completions=ladder))
    assert scores[0] >= 0.95
    assert spearmanr(range(len(ladder)), scores).statistic <= -0.9, scores


def test_format_falls_with_format_damage():
    html = to_html(make_page(5, n_blocks=2))
    ladder = [
        f"```html\n{html}\n```",
        f"```html\n{html}\n```\nHope this helps!",
        f"```html\n{html}\n```\n```html\n{html}\n```\nmore text",
        f"Here you go: {html[: len(html) // 2]}",
        "Sorry, I can't do that.",
    ]
    fn = build_reward("format", format_style="fenced")
    scores = asyncio.run(fn(completions=ladder))
    assert scores[0] >= 0.95 and scores[-1] == 0.0
    assert spearmanr(range(len(ladder)), scores).statistic <= -0.9, scores
