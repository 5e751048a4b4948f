"""CDN assets are served offline from the npm cache: Tailwind 2, Bootstrap 4/5, Font Awesome, Google Fonts."""

from __future__ import annotations

import pytest

from vcoder.rendering.assets import AssetStore, check
from vcoder.rendering.cssprune import PrunableSheet, page_tokens

TW = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"


def test_cache_installed():
    missing = [k for k, v in check().items() if v is None]
    assert not missing, "run `vcoder assets install`"


@pytest.mark.parametrize(
    "url,expect",
    [
        (TW, "tailwindcss/dist/tailwind.min.css"),
        ("https://unpkg.com/tailwindcss@^2/dist/tailwind.min.css", "tailwindcss/dist/tailwind.min.css"),
        (
            "https://stackpath.bootstrapcdn.com/bootstrap/4.5.2/css/bootstrap.min.css",
            "bootstrap4/dist/css/bootstrap.min.css",
        ),
        (
            "https://cdn.jsdelivr.net/npm/bootstrap@5.3.0/dist/css/bootstrap.min.css",
            "bootstrap/dist/css/bootstrap.min.css",
        ),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/5.15.3/webfonts/fa-solid-900.woff2",
            "fontawesome5/webfonts/fa-solid-900.woff2",
        ),
        ("https://use.fontawesome.com/releases/v6.4.0/css/all.css", "fontawesome-free/css/all.css"),
        ("https://code.jquery.com/jquery-3.5.1.min.js", "jquery/dist/jquery.min.js"),
        ("https://cdn.tailwindcss.com", "@tailwindcss/browser/dist/index.global.js"),
        ("https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/../../../../etc/passwd", None),
        ("https://example.com/app.css", None),
    ],
)
def test_url_mapping(url, expect):
    got = AssetStore().resolve(url)
    if expect is None:
        assert got is None
    else:
        assert got is not None and str(got[2]).endswith(expect)


def test_google_fonts_css_points_at_local_files():
    css = AssetStore().google_fonts_css("family=Roboto:wght@400;700&family=Unknown+Font&display=swap")
    assert "font-family:'Roboto'" in css and "font-weight:700" in css and "Unknown" not in css


def test_prune_keeps_only_usable_rules():
    sheet = PrunableSheet(
        "*{box-sizing:border-box}.a{color:red}.b .c{color:blue}@media (min-width:640px){.md\\:a{color:green}.z{x:y}}"
        '.w-1\\.5{width:1px}.x::before{content:"{"}'
    )
    out = sheet.prune(
        page_tokens('<div class="a md:a w-1.5">hello</div><script>el.classList.add("b")</script>')
    ).decode()
    assert "*{box-sizing" in out and ".a{color:red}" in out and ".md\\:a" in out and ".w-1\\.5" in out
    assert ".b .c" not in out and ".z" not in out and ".x::before" not in out


@pytest.mark.browser
def test_tailwind_and_bootstrap_render_styled_offline(pool):
    tw = pool.render(f'<link href="{TW}" rel="stylesheet"><div class="bg-blue-500 w-20 h-20"></div>')
    assert tuple(tw.image[40, 40]) == (59, 130, 246)
    bs4 = pool.render(
        '<link rel="stylesheet" href="https://maxcdn.bootstrapcdn.com/bootstrap/4.0.0/css/bootstrap.min.css">'
        '<div class="bg-primary" style="width:80px;height:80px"></div>'
    )
    assert tuple(bs4.image[40, 40]) == (0, 123, 255)  # Bootstrap 4 primary
    bs5 = pool.render(
        '<link href="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css" rel="stylesheet">'
        '<div class="bg-primary" style="width:80px;height:80px"></div>'
    )
    assert tuple(bs5.image[40, 40]) == (13, 110, 253)  # Bootstrap 5 primary


@pytest.mark.browser
def test_pruned_tailwind_matches_full_stylesheet(pool):
    from pathlib import Path

    body = Path(__file__).parents[2].joinpath("examples/pages/tw_landing.html").read_text().split("<body>")[1]
    full_css = AssetStore().resolve(TW)[0].decode()
    linked = pool.render(f'<html><head><link href="{TW}" rel="stylesheet"></head><body>{body}')
    inline = pool.render(f"<html><head><style>{full_css}</style></head><body>{body}")
    assert linked.ok and inline.ok
    assert (linked.image == inline.image).all()


@pytest.mark.browser
def test_font_awesome_icon_renders_glyph(pool):
    fa = "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/5.15.4/css/all.min.css"
    r = pool.render(f'<link rel="stylesheet" href="{fa}"><i class="fas fa-home" style="font-size:60px"></i>')
    icon = next(e for e in r.layout.elements if e.tag == "i")
    x, y, w, h = (int(v) for v in icon.bbox)
    assert (r.image[y : y + h, x : x + w] < 128).any()  # a dark glyph, not an empty box
