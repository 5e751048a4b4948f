"""The synthetic generator: deterministic, self-contained, and harder as the difficulty goes up."""

from __future__ import annotations

import re

import pytest

from vcoder.data.synthetic import generate_page


@pytest.mark.parametrize("difficulty", [0, 1, 2, 3])
def test_same_seed_same_html_and_seeds_differ(difficulty):
    pages = [generate_page(s, difficulty=difficulty) for s in range(20)]
    assert [p.html for p in pages] == [generate_page(s, difficulty=difficulty).html for s in range(20)]
    assert len({p.html for p in pages}) >= 18
    assert pages[3].id == f"d{difficulty}-3"


@pytest.mark.parametrize("difficulty", [0, 1, 2, 3])
def test_pages_are_self_contained(difficulty):
    for seed in range(10):
        html = generate_page(seed, difficulty=difficulty).html
        assert "<style>" in html and html.rstrip().endswith("</html>")
        assert not re.search(r"(https?:)?//[a-z]", html), "no external URLs"
        assert "<script" not in html and "<img" not in html and "<link" not in html


def test_difficulty_increases_complexity():
    def stats(d):
        pages = [generate_page(s, difficulty=d).html for s in range(30)]
        chars = sum(map(len, pages)) / len(pages)
        tags = sum(len(re.findall(r"<[a-z]", h)) for h in pages) / len(pages)
        distinct = len({m for h in pages for m in re.findall(r"<([a-z0-9]+)", h)})
        return chars, tags, distinct

    levels = [stats(d) for d in range(4)]
    for lower, higher in zip(levels, levels[1:]):
        assert higher[0] > lower[0] and higher[1] > lower[1], levels
    assert levels[3][2] > levels[0][2]


def test_difficulty0_is_short_and_regular():
    pages = [generate_page(s) for s in range(50)]
    assert max(len(p.html) for p in pages) < 700
    assert {p.meta["width"] for p in pages} == {320} and {p.meta["height"] for p in pages} == {240}
    # only a few values vary: the skeleton (every line with its values blanked) has few variants
    skeletons = {re.sub(r"#[0-9a-f]{6}|\d+|>[^<]*<", "_", p.html) for p in pages}
    assert len(skeletons) <= 6


def test_bad_difficulty_is_named():
    with pytest.raises(ValueError, match="difficulty must be 0, 1, 2 or 3, got 7"):
        generate_page(0, difficulty=7)


def test_page_features_read_back_every_fact_the_generator_wrote():
    from vcoder.data import feature_accuracy, page_features
    from vcoder.data.synthetic import split_pages
    from vcoder.data.synthetic_facts import FEATURES

    pages = [p for split in ("train", "validation", "test") for p in split_pages(100, seed=3, split=split)]
    for page in pages:
        got = page_features(page.html)
        assert {k: got[k] for k in ("heading", "columns", "background", "block_height", "blocks")} == {
            k: page.meta[k] for k in ("heading", "columns", "background", "block_height", "blocks")
        }
    assert feature_accuracy([(p.html, p.meta) for p in pages]) == {**dict.fromkeys(FEATURES, 1.0), "n": 300}


def test_page_features_count_only_what_the_page_states():
    from vcoder.data import feature_accuracy, generate_page, page_features
    from vcoder.data.synthetic_facts import FEATURES

    page = generate_page(11)
    meta = page.meta
    # the heading written as a paragraph, a line-height where the box height was, the boxes' colours moved to a class
    html = page.html.replace(f"<h1>{meta['heading']}</h1>", f"<p>{meta['heading']}</p>")
    html = html.replace(f"height: {meta['block_height']}px", f"line-height: {meta['block_height']}px")
    html = html.replace('style="background: ', 'data-c="')
    got = page_features(html)
    assert got["heading"] is None and got["block_height"] is None and got["blocks"] == [None] * len(meta["blocks"])
    assert got["columns"] == meta["columns"] and got["background"] == meta["background"]
    shares = feature_accuracy([(html, meta)])
    assert shares["heading"] == shares["blocks"] == shares["first_block"] == 0.0 and shares["block_count"] == 1.0
    assert page_features("")["blocks"] == [] and feature_accuracy([("", meta)])["first_block"] == 0.0
    assert feature_accuracy([]) == {**dict.fromkeys(FEATURES), "n": 0}
