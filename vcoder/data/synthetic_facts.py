"""What a difficulty-0 synthetic page states, read back from HTML: the facts of a screenshot a model must get right.

:func:`page_features` reads a page (a reference or a model's) as the generator's template writes it;
:func:`feature_accuracy` compares a model's pages with their references' ``meta``; :func:`altered_pages` changes one
fact at a time, so a reward's price for each fact can be measured (``experiments/quickstart_features.py``).
"""

from __future__ import annotations

import random

from vcoder.data.synthetic import _D0_BACKGROUNDS, _D0_COLORS, _D0_NAMES, _D0_WORDS, SynthPage

__all__ = ["FEATURES", "altered_pages", "feature_accuracy", "page_features"]


#: what :func:`page_features` reads from a difficulty-0 page, and :func:`feature_accuracy` compares
FEATURES = ("heading", "columns", "background", "block_height", "block_count", "blocks", "first_block")


def page_features(html: str) -> dict:
    """What a difficulty-0 page shows, read from its HTML: the inverse of the generator's template.

    A model's page is read the same way, so its features can be compared with the reference's ``meta``: which of the
    screenshot's facts it got right (the heading it must read, the layout and colours it must see). A fact the page
    does not state is None; blocks are the ``.box`` elements' background colours, in order.

    Example:
        >>> from vcoder.data import generate_page
        >>> page = generate_page(5)
        >>> {k: page_features(page.html)[k] == page.meta[k] for k in ("heading", "columns", "blocks")}
        {'heading': True, 'columns': True, 'blocks': True}
    """
    import re

    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html or "", "lxml")
    css = " ".join(tag.get_text() for tag in soup.find_all("style"))

    def css_value(selector: str, pattern: str) -> str | None:
        rule = re.search(selector + r"\s*\{([^}]*)\}", css)
        found = re.search(pattern, rule.group(1)) if rule else None
        return found.group(1).lower() if found else None

    heading = soup.find("h1")
    columns = css_value(r"\.grid", r"grid-template-columns\s*:\s*repeat\(\s*(\d+)")
    height = css_value(r"\.box", r"(?<![-\w])height\s*:\s*(\d+)px")
    blocks = []
    for box in soup.find_all(class_="box"):
        colour = re.search(r"background(?:-color)?\s*:\s*(#[0-9a-fA-F]{3,8})", box.get("style") or "")
        blocks.append(colour.group(1).lower() if colour else None)
    return {
        "heading": heading.get_text(strip=True) if heading else None,
        "columns": int(columns) if columns else None,
        "background": css_value(r"body", r"background(?:-color)?\s*:\s*(#[0-9a-fA-F]{3,8})"),
        "block_height": int(height) if height else None,
        "blocks": blocks,
    }


def feature_accuracy(pages: list[tuple[str, dict]]) -> dict:
    """The share of ``(html, meta)`` pairs whose page states each fact of :data:`FEATURES` as its reference does.

    ``block_count``: as many blocks; ``blocks``: every block's colour, in order; ``first_block``: the first block's
    colour. ``meta`` is a difficulty-0 :class:`SynthPage`'s. Returns ``{feature: share, "n": pairs}``.

    Example:
        >>> from vcoder.data import generate_page
        >>> page = generate_page(5)
        >>> feature_accuracy([(page.html, page.meta)])["blocks"]
        1.0
    """
    right = dict.fromkeys(FEATURES, 0)
    for html, meta in pages:
        got = page_features(html)
        for name in ("heading", "columns", "background", "block_height", "blocks"):
            right[name] += got[name] == meta[name]
        right["block_count"] += len(got["blocks"]) == len(meta["blocks"])
        right["first_block"] += bool(got["blocks"]) and got["blocks"][0] == meta["blocks"][0]
    n = len(pages)
    return {**{name: right[name] / n if n else None for name in FEATURES}, "n": n}


def altered_pages(page: SynthPage, *, seed: int = 0) -> dict[str, str]:
    """A difficulty-0 page with one fact changed at a time: ``{fact: html}``, the facts of :data:`FEATURES` as a
    model could get them wrong. What a reward pays for a fact is the reference's score minus the altered page's.

    ``heading``, ``columns``, ``block_height``: another of the generator's values. ``background``: another light one
    (the dark one changes the text colour too). ``first_block``: the first box's colour and its label (what a model
    that misread the colour writes); ``first_block_colour``: its colour alone. ``block_count``: the first box dropped,
    or a box added after it on a one-box page.

    Example:
        >>> from vcoder.data import generate_page
        >>> sorted(altered_pages(generate_page(5)))[:3]  # its background is the dark one: no 'background'
        ['block_count', 'block_height', 'columns']
    """
    if page.meta.get("difficulty") != 0:
        raise ValueError(f"{page.id} is not a difficulty-0 page; only those have the template's facts")
    rng = random.Random(f"vcoder-alter:{page.id}:{seed}")
    meta, html = page.meta, page.html

    def other(values, current):
        return rng.choice([v for v in values if v != current])

    first = meta["blocks"][0]
    colour = other(_D0_COLORS, first)
    box = '<div class="box" style="background: {};">{}</div>'
    first_box = box.format(first, _D0_NAMES[first])
    light = [b for b in _D0_BACKGROUNDS if b != "#222222"]
    altered = {
        "heading": html.replace(f"<h1>{meta['heading']}</h1>", f"<h1>{other(_D0_WORDS, meta['heading'])}</h1>"),
        "columns": html.replace(
            f"repeat({meta['columns']}, 1fr)", f"repeat({other((1, 2, 3), meta['columns'])}, 1fr)"
        ),
        "block_height": html.replace(
            f"height: {meta['block_height']}px", f"height: {other((40, 60, 80), meta['block_height'])}px"
        ),
        "first_block": html.replace(first_box, box.format(colour, _D0_NAMES[colour]), 1),
        "first_block_colour": html.replace(first_box, box.format(colour, _D0_NAMES[first]), 1),
    }
    if meta["background"] in light:
        bg = f"background: {meta['background']};"
        altered["background"] = html.replace(bg, f"background: {other(light, meta['background'])};", 1)
    if len(meta["blocks"]) > 1:
        altered["block_count"] = html.replace(first_box + "\n", "", 1)
    else:
        altered["block_count"] = html.replace(first_box, first_box + "\n" + box.format(colour, _D0_NAMES[colour]), 1)
    return dict(sorted(altered.items()))
