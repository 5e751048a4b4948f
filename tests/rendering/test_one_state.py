"""One render, one state: a Rendered's layout and screenshot describe the same document, or the render fails.

Pages that navigate (meta refresh, location.replace, about:blank, blob: and javascript: documents) with a CDN
stylesheet: each comes back ok with its layout text drawn in its pixels, or as a NAVIGATION failure; never ok with
a blank screenshot (which is what about:blank, blob: and javascript: documents gave: they never reach the network,
so nothing refused them, and they committed between the layout read and the screenshot).
"""

from __future__ import annotations

import numpy as np
import pytest

from vcoder.rendering import FailureKind

pytestmark = pytest.mark.browser

TW = '<link href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css" rel="stylesheet">'
TEXT = "Original page text"


def page(head: str = "", script: str = "") -> str:
    return (
        f'<html><head>{TW}{head}</head><body class="bg-blue-500">'
        f'<h1 class="text-4xl text-white p-8">{TEXT}</h1><script>{script}</script></body></html>'
    )


AFTER_LOAD = 'addEventListener("load", () => {});'
# navigations over the network: refused by the router (204), the document stays -> ok
REFUSED = {
    "meta_refresh_same_origin": page(head='<meta http-equiv="refresh" content="0;url=/other.html">'),
    "meta_refresh_external": page(head='<meta http-equiv="refresh" content="0;url=https://example.com/">'),
    "replace_same_origin": page(script=AFTER_LOAD.replace("{}", 'location.replace("/next.html")')),
    "replace_external": page(script=AFTER_LOAD.replace("{}", 'location.replace("https://example.com/x")')),
}
# navigations that never reach the network: a new document commits whenever it commits -> ok or NAVIGATION
UNREFUSABLE = {
    "replace_about_blank": page(script=AFTER_LOAD.replace("{}", 'location.replace("about:blank")')),
    "meta_refresh_about_blank": page(head='<meta http-equiv="refresh" content="0;url=about:blank">'),
    "blob_document": page(
        script=AFTER_LOAD.replace(
            "{}", "location.href = URL.createObjectURL(new Blob(['<p>blob doc</p>'], {type: 'text/html'}))"
        )
    ),
    "javascript_url": page(script=AFTER_LOAD.replace("{}", "location.replace(\"javascript:'<p>js doc</p>'\")")),
    "document_rewrite": page(
        script=AFTER_LOAD.replace("{}", 'document.open(); document.write("<p>rewritten</p>"); document.close();')
    ),
}


def text_is_drawn(r) -> bool:
    """Every text block of the layout covers pixels of more than one colour (its glyphs on its background)."""
    for block in r.layout.text_blocks:
        x, y, w, h = (int(round(v)) for v in block.bbox)
        crop = r.image[y : y + h, x : x + w].reshape(-1, 3)
        if len(crop) == 0 or len(np.unique(crop, axis=0)) < 2:
            return False
    return bool(r.layout.text_blocks)


def test_refused_navigations_keep_the_document(pool):
    names = list(REFUSED)
    rs = pool.render_many([REFUSED[n] + f"<!-- {i} -->" for n in names for i in range(2)], timeout_ms=8000)
    for name, r in zip([n for n in names for _ in range(2)], rs):
        assert r.ok, (name, r.error)
        assert [b.text for b in r.layout.text_blocks] == [TEXT] and text_is_drawn(r), name


# a blob: document that commits while its screenshot is pending left Chromium never answering it (a TIMEOUT, about
# one render in 20): rendered often enough that the race shows if the screenshot stops watching for a new document
REPEATS = {"blob_document": 40}


def test_a_new_document_is_consistent_or_a_navigation_failure(pool):
    names = [n for n in UNREFUSABLE for _ in range(REPEATS.get(n, 3))]
    rs = pool.render_many([UNREFUSABLE[n] + f"<!-- {i} -->" for i, n in enumerate(names)], timeout_ms=8000)
    outcomes = {}
    for name, r in zip(names, rs):
        if r.ok:
            assert len(np.unique(r.image.reshape(-1, 3), axis=0)) > 1, f"{name}: ok with a blank screenshot"
            assert text_is_drawn(r), f"{name}: layout text {[b.text for b in r.layout.text_blocks]} not in the pixels"
        else:
            assert r.kind is FailureKind.NAVIGATION and "replaced its document" in r.error, (name, r.error)
        outcomes.setdefault(name, set()).add(r.ok)
    # about:blank has nothing to draw: it is never ok
    assert outcomes["replace_about_blank"] == {False} and outcomes["meta_refresh_about_blank"] == {False}


def test_a_navigation_while_parsing_leaves_an_unfinished_document_and_fails_fast(pool):
    r = pool.render(page(head='<script>location.href = "/next.html"</script>'), timeout_ms=8000)
    # a navigation failure, no longer a timeout on a screenshot that never came
    assert (r.ok, r.kind) == (False, FailureKind.NAVIGATION) and "still being parsed" in r.error
    assert pool.render("<p>next</p>").ok
