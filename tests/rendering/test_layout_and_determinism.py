"""Layout extraction semantics, and identical pixels for identical HTML."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
PAGES = sorted((Path(__file__).parents[2] / "examples" / "pages").glob("*.html"))


def test_text_blocks_tags_colours_boxes(pool):
    html = (
        '<body style="margin:0;background:#000080"><p style="color:#ff0000;font-size:20px">Hi <b>there</b></p>'
        '<div><label>Name</label> <em>x</em></div>loose text<span style="display:none">hidden</span>'
        '<h2 style="opacity:0">invisible</h2><script>document.write("")</script></body>'
    )
    r = pool.render(html)
    blocks = {b.text: b for b in r.layout.text_blocks}
    assert list(blocks) == ["Hi", "there", "Name x", "loose text"]
    assert (blocks["Hi"].tag, blocks["Hi"].color, blocks["Hi"].background) == ("p", (255, 0, 0), (0, 0, 128))
    assert (blocks["there"].tag, blocks["there"].font_weight, blocks["there"].font_size) == ("b", 700, 20.0)
    assert blocks["Name x"].tag == "div" and blocks["loose text"].tag == "body"
    x, y, w, h = blocks["Hi"].bbox
    assert x == 0 and 0 < w < 40 and 15 < h < 30  # tight text box, not the full-width <p>
    assert blocks["there"].bbox[0] > x + w - 1
    tags = [(e.tag, e.depth) for e in r.layout.elements]
    assert ("html", 0) in tags and ("body", 1) in tags and ("b", 3) in tags
    assert r.layout.dom.tag == "html" and [c.tag for c in r.layout.dom.children] == ["head", "body"]


def test_full_page_height_and_cap(pool):
    tall = '<body style="margin:0"><div style="height:3000px;background:red"></div></body>'
    assert (pool.render(tall).height, pool.render(tall, full_page=False).height) == (3000, 720)
    huge = '<body style="margin:0"><div style="height:20000px"></div></body>'
    r = pool.render(huge)
    assert r.height == 8192 and r.truncated and r.layout.height == 8192


def test_layout_round_trips_through_dict(pool):
    from vcoder.rendering import Layout

    r = pool.render(PAGES[0].read_text())
    assert Layout.from_dict(r.layout.to_dict()) == r.layout


def test_example_pages_render_identically_twice(pool):
    assert len(PAGES) >= 20
    htmls = [p.read_text() for p in PAGES]
    first = pool.render_many(htmls, base_dirs=[p.parent for p in PAGES])
    second = pool.render_many(htmls, base_dirs=[p.parent for p in PAGES])
    for page, a, b in zip(PAGES, first, second):
        assert a.ok and b.ok, (page.name, a.error, b.error)
        assert a.png == b.png or (a.image == b.image).all(), page.name
        assert a.layout == b.layout, page.name


def test_batch_dedup(pool):
    before = pool.stats()["dedup_hits"]
    rs = pool.render_many(["<p>same</p>", "<p>other</p>", "<p>same</p>"])
    assert [r.cached for r in rs] == [False, False, True] and rs[0].png == rs[2].png
    assert pool.stats()["dedup_hits"] == before + 1
