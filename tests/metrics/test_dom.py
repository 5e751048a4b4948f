"""DOM structure similarity: exact LCS, identical/empty extremes, monotone damage, bounded cost on huge trees."""

from __future__ import annotations

import random

import pytest

from vcoder.layout import DomNode
from vcoder.metrics.dom import dom_similarity, dom_tokens, lcs_length

PAGE = (
    "<html><head><title>t</title></head><body>"
    + "".join(f"<section><h2>h{k}</h2><ul><li>a</li><li>b</li></ul><p>x<br>y</p></section>" for k in range(10))
    + "</body></html>"
)


def _dp_lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def test_bit_parallel_lcs_equals_dynamic_programming():
    rng = random.Random(0)
    for _ in range(200):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 70))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]
        assert lcs_length(a, b) == _dp_lcs(a, b)


def test_tokens_follow_html5_parsing():
    expected = "<ul <li >li <li >li >ul <img >img <p >p".split()
    assert dom_tokens("<ul><li>a<li>b</ul><img src=x><p>t</span></p>") == expected
    tree = DomNode("html", (DomNode("body", (DomNode("p"),)),))
    assert dom_tokens(tree) == ["<html", "<body", "<p", ">p", ">body", ">html"]
    assert dom_similarity("<html><body><p>hi</p></body></html>", tree) == 1.0


def test_extremes():
    assert dom_similarity(PAGE, PAGE) == 1.0
    assert dom_similarity("", PAGE) == 0.0
    assert dom_similarity(None, PAGE) == 0.0
    assert dom_similarity("<div><p>a</p></div>", "<div><span>b</span></div>") == 0.5
    with pytest.raises(TypeError, match="DomNode"):
        dom_similarity(PAGE, 3)


def test_monotone_as_sections_are_removed():
    scores = []
    for removed in (0, 2, 4, 7, 10):
        body = "".join(
            f"<section><h2>h{k}</h2><ul><li>a</li><li>b</li></ul><p>x<br>y</p></section>" for k in range(10 - removed)
        )
        scores.append(dom_similarity(PAGE, f"<html><head><title>t</title></head><body>{body}</body></html>"))
    assert all(a > b for a, b in zip(scores, scores[1:])), scores
    assert 0.0 < scores[-1] < 0.2


def test_one_wrapper_costs_little():
    wrapped = PAGE.replace("<body>", "<body><div>").replace("</body>", "</div></body>")
    assert dom_similarity(PAGE, wrapped) > 0.98


def test_huge_inputs_are_bounded():
    deep = None
    for _ in range(50_000):  # built bottom-up: no recursion anywhere
        deep = DomNode("div", (deep,) if deep else ())
    wide = DomNode("html", tuple(DomNode("div", (DomNode("span"),)) for _ in range(50_000)))
    assert dom_similarity(deep, deep) == 1.0
    assert 0.0 <= dom_similarity(deep, wide) < 0.5
    assert len(dom_tokens(wide)) == 20_000
    html = "<div>" * 50_000 + "</div>" * 50_000
    assert dom_similarity(html, deep) == 1.0  # both capped at the same 20,000-token prefix
