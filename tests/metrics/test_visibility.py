"""Text visibility on real renders: whatever CSS hides a paragraph, its block is dropped; visible text is kept."""

from __future__ import annotations

import pytest

from vcoder.metrics._blocks import prepare_blocks

pytestmark = pytest.mark.browser

PARAS = [f"paragraph number {k} says something about river stones" for k in range(4)]

HIDE = {
    "transparent": "color:transparent",
    "background_colour": "color:#f4efe6",
    "faint_rgba": "color:rgba(0,0,0,0.03)",
    "opacity": "opacity:0.02",
    "clip_path": "clip-path:inset(50% 50% 50% 50%)",
    "zero_height_clip": "height:0;overflow:hidden;margin:0",
    "offscreen": "position:absolute;left:-9999px",
    "text_indent": "text-indent:-9999px;overflow:hidden",
    "font_1px": "font-size:1px",
    "scale_005": "transform:scale(0.05);transform-origin:0 0",
    "squeezed": "letter-spacing:-12px",
}
# kept: unusual but readable text
SHOW = {
    "light_grey": "color:#a0a0a0",
    "white_on_dark": "color:#fff;background:#223",
    "small_9px": "font-size:9px",
    "on_gradient": "color:#fff;background:linear-gradient(90deg,#c33,#33c)",
    "half_opacity": "opacity:0.5",
}


def page(style: str = "", cover: bool = False) -> str:
    paras = "".join(
        f"<p style='{style if k == 2 else ''}'>{t}</p>" if not (k == 2 and cover) else f"<p>{t}</p>"
        for k, t in enumerate(PARAS)
    )
    overlay = (
        "<div style='position:absolute;left:0;top:0;width:100%;height:100%;background:#f4efe6'></div>" if cover else ""
    )
    section = f"<section style='position:relative'>{paras}{overlay}</section>" if cover else paras
    return (
        "<html><body style='background:#f4efe6;font:16px DejaVu Sans;margin:20px'>"
        f"<h1>Stones</h1>{section}<footer>the end of the page</footer></body></html>"
    )


def texts(html: str) -> list[str]:
    from vcoder.rendering import get_default_pool

    r = get_default_pool().render(html, width=800, height=600, full_page=True)
    assert r.ok, r.error
    return [b.text for b in prepare_blocks(r.layout, r.image)]


def test_every_block_of_the_plain_page_is_visible():
    assert texts(page()) == ["stones", *PARAS, "the end of the page"]


@pytest.mark.parametrize("how", sorted(HIDE))
def test_hidden_paragraph_is_dropped(how):
    assert texts(page(HIDE[how])) == ["stones", *PARAS[:2], PARAS[3], "the end of the page"]


def test_covered_paragraphs_are_dropped():
    assert texts(page(cover=True)) == ["stones", "the end of the page"]


def test_opacity_on_an_ancestor_hides_too():
    html = page().replace("<footer>", "<div style='opacity:0.01'><span>under a faded wrapper</span></div><footer>")
    assert "under a faded wrapper" not in texts(html)


@pytest.mark.parametrize("how", sorted(SHOW))
def test_unusual_but_readable_text_is_kept(how):
    assert texts(page(SHOW[how])) == ["stones", *PARAS, "the end of the page"]
