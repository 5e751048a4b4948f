"""Every way a render can fail comes back as a typed ``Rendered`` failure, never as an exception."""

from __future__ import annotations

import pytest

from vcoder.rendering import FailureKind

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("html", [None, 123, ["<p>x</p>"], "", b"  \n", "\t"])
def test_no_html_is_an_empty_failure(pool, html):
    r = pool.render(html)
    assert (r.ok, r.kind, r.infrastructure) == (False, FailureKind.EMPTY, False)
    assert r.error.startswith("empty:") and r.png is None and r.layout is None


def test_render_many_returns_one_result_per_input_whatever_the_input(pool):
    rs = pool.render_many([None, "<p>fine</p>", {"not": "html"}, "<p>fine</p>", b"<p>bytes</p>"])
    assert [r.kind for r in rs] == [FailureKind.EMPTY, None, FailureKind.EMPTY, None, None]
    assert [b.text for b in rs[1].layout.text_blocks] == ["fine"] and rs[3].cached
    assert [b.text for b in rs[4].layout.text_blocks] == ["bytes"]


def test_too_large_is_typed(pool):
    r = pool.render("<p>" + "x" * 8_000_001 + "</p>")
    assert (r.ok, r.kind) == (False, FailureKind.TOO_LARGE) and r.error.startswith("too_large:")
