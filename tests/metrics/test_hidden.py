"""Hidden text and stretch (``vcoder.metrics.hidden``): written text counted from the HTML, seen text on real renders."""

from __future__ import annotations

import numpy as np
import pytest

from tests.metrics.test_visibility import HIDE, PARAS, SHOW, page
from vcoder.layout import Layout
from vcoder.metrics import height_ratio, hidden_text_share, written_text_chars


def chars(*texts: str) -> int:
    return sum(len("".join(t.split())) for t in texts)


def test_written_text_counts_body_text_only():
    html = (
        "<html><head><title>Title here</title><style>p{color:red}</style></head><body><p>One two</p>"
        "<script>var s = 'not text';</script><noscript>enable js</noscript><template><p>later</p></template>"
        "<select><option>choice</option></select><textarea>typed</textarea><div>A &amp; B</div></body></html>"
    )
    assert written_text_chars(html) == chars("One two", "A & B")


def test_written_text_refuses_bytes():
    with pytest.raises(TypeError, match="must be a str"):
        written_text_chars(b"<p>hi</p>")


def test_height_ratio():
    assert height_ratio((1000, 1280, 3), (1000, 1280, 3)) == 1.0
    assert height_ratio((1000, 1280, 3), (3000, 1280, 3)) == 3.0
    assert height_ratio((1000, 1280, 3), (1500, 640, 3)) == 3.0  # for its width
    with pytest.raises(ValueError, match="positive"):
        height_ratio((0, 1280), (10, 10))


def test_a_page_cut_short_is_not_judged():
    image = np.zeros((100, 100, 3), np.uint8)
    assert hidden_text_share("<p>text</p>", Layout(100, 100, ()), image) == 1.0
    assert hidden_text_share("<p>text</p>", Layout(100, 100, (), dom_truncated=True), image) == 0.0
    assert hidden_text_share("<p>text</p>", Layout(100, 5000, ()), image) == 0.0  # screenshot capped
    assert hidden_text_share("<div></div>", Layout(100, 100, ()), image) == 0.0


def share(html: str) -> float:
    from vcoder.rendering import get_default_pool

    r = get_default_pool().render(html, width=800, height=600, full_page=True)
    assert r.ok, r.error
    return hidden_text_share(html, r.layout, r.image)


ALL = chars("Stones", *PARAS, "the end of the page")


@pytest.mark.browser
def test_a_plain_page_hides_nothing():
    assert share(page()) == 0.0


@pytest.mark.browser
@pytest.mark.parametrize("how", sorted({**HIDE, "zero_px": "font-size:0"}))
def test_hidden_paragraph_counts_as_hidden(how):
    style = {**HIDE, "zero_px": "font-size:0"}[how]
    assert share(page(style)) == pytest.approx(chars(PARAS[2]) / ALL)


@pytest.mark.browser
@pytest.mark.parametrize("how", sorted(SHOW))
def test_unusual_but_readable_text_is_not_hidden(how):
    assert share(page(SHOW[how])) == 0.0


@pytest.mark.browser
def test_text_a_script_writes_is_seen_not_hidden():
    html = page().replace(
        "</body>",
        "<script>document.body.append(Object.assign(document.createElement('p'), "
        "{textContent: 'added by a script after load'}))</script></body>",
    )
    assert share(html) == 0.0
