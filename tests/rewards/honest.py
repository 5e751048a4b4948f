"""Honest, imperfect attempts at a reference page: the same content written again with the errors a copying model
makes, and nothing hidden, repeated or stuffed.

Each transform takes a reference's HTML and a ``random.Random`` and returns another page (None when it does not
apply: nothing in the page for it to change). Magnitudes are drawn from ranges a model copying a screenshot plausibly
gets wrong by:

- ``font_size``: every px font size and the root size x 0.8-1.3;
- ``spacing``: every px padding, margin and gap x 0.5-1.8;
- ``font_family``: another installed family for every element (a serif, a sans, a monospace: wider glyphs);
- ``line_height``: every line 1.15-1.9 high;
- ``container``: the content in a centred, padded column 65-95 % of the viewport wide (re-flowed text);
- ``reword``: a quarter of the words replaced by words of other lengths, one in twelve followed by an extra word;
- ``drop_section``: one block of the page's main sequence left out;
- ``extra_section``: one more block like one of the page's own (a shown one, copied with other words) added to the
  main sequence;
- ``grid_columns``: every grid re-flowed to columns at least 280-450 px wide (fewer per row);
- ``stack``: another layout: every row of three or more items (flex or grid) stacked as one column;
- ``placeholders``: every fixed height (drawn images, boxes, ``<img>``) x 0.6-1.8;
- ``colors``: every colour shifted by up to 30 levels per channel.

``honest_variants(html, seed)`` gives each transform once and ``combos`` pages of 2-3 transforms together.
"""

from __future__ import annotations

import copy
import random
import re

from bs4 import BeautifulSoup

_PX = re.compile(r"(-?\d+(?:\.\d+)?)px")
_WORD = re.compile(r"[A-Za-z]{3,}")
_WORDS = (
    "copper orbit meadow lantern harbor quartz signal velvet compass anchor beacon timber violet glacier walnut "
    "simple modern garden network journey studio premium market island summer river mirror pepper falcon"
).split()


def _add_css(html: str, css: str) -> str:
    tag = f"<style>{css}</style>"
    if "</head>" in html:
        return html.replace("</head>", tag + "</head>", 1)
    return tag + html


def _scale_props(html: str, props: str, factor: float) -> str:
    """Every px value of the CSS properties matching ``props`` (inline or in a style sheet) times ``factor``."""
    pattern = re.compile(rf"((?<![a-z-])(?:{props})\s*:\s*)([^;\"'}}]+)")

    def scale(match: re.Match) -> str:
        values = _PX.sub(lambda n: f"{float(n.group(1)) * factor:.1f}px", match.group(2))
        return match.group(1) + values

    return pattern.sub(scale, html)


def _text_chunks(html: str, edit) -> str:
    """``edit`` applied to every text run of the page outside scripts, style sheets and the head."""
    parts = re.split(r"(<script.*?</script>|<style.*?</style>|<head.*?</head>)", html, flags=re.S | re.I)
    for k in range(0, len(parts), 2):
        parts[k] = re.sub(r">([^<>]+)<", lambda m: ">" + edit(m.group(1)) + "<", parts[k])
    return "".join(parts)


def font_size(html: str, rng: random.Random) -> str:
    factor = rng.uniform(0.8, 1.3)
    return _add_css(_scale_props(html, "font-size", factor), f"html{{font-size:{16 * factor:.1f}px}}")


def spacing(html: str, rng: random.Random) -> str:
    factor = rng.choice([rng.uniform(0.5, 0.85), rng.uniform(1.15, 1.8)])
    return _scale_props(html, r"padding(?:-[a-z]+)?|margin(?:-[a-z]+)?|gap|row-gap|column-gap", factor)


def font_family(html: str, rng: random.Random) -> str:
    family = rng.choice(["'DejaVu Serif'", "'Liberation Serif'", "'Liberation Sans'", "'DejaVu Sans Mono'"])
    return _add_css(html, f"*{{font-family:{family},sans-serif !important}}")


def line_height(html: str, rng: random.Random) -> str:
    return _add_css(html, f"*{{line-height:{rng.uniform(1.15, 1.9):.2f} !important}}")


def container(html: str, rng: random.Random) -> str | None:
    head, sep, rest = html.partition("<body")
    if not sep or "</body>" not in rest:
        return None
    end = rest.index(">") + 1
    inner = rest[end : rest.rindex("</body>")]
    # a share of the 1280 px viewport; a narrower viewport keeps its width (max-width only narrows)
    wrapper = f"<div style='max-width:{round(1280 * rng.uniform(0.65, 0.95))}px;margin:0 auto;padding:{rng.randint(8, 40)}px'>"
    return f"{head}<body{rest[:end]}{wrapper}{inner}</div></body></html>"


def reword(html: str, rng: random.Random) -> str:
    def edit(text: str) -> str:
        def word(m: re.Match) -> str:
            w = m.group(0)
            if rng.random() < 0.25:
                w = rng.choice([x for x in _WORDS if len(x) != len(w)])
            return w + (" " + rng.choice(_WORDS) if rng.random() < 1 / 12 else "")

        return _WORD.sub(word, text)

    return _text_chunks(html, edit)


def _main_sequence(soup: BeautifulSoup):
    """The page's main list of blocks: below ``body``, the first element with two or more element children."""
    node = soup.body
    while node is not None:
        children = [c for c in node.find_all(recursive=False) if c.name not in ("script", "style")]
        if len(children) >= 2:
            return children
        node = children[0] if children else None
    return None


def drop_section(html: str, rng: random.Random) -> str | None:
    soup = BeautifulSoup(html, "html.parser")
    children = _main_sequence(soup)
    if not children:
        return None
    rng.choice(children[1:]).decompose()  # the first block (a header, a title) is the one a copy rarely misses
    return str(soup)


def extra_section(html: str, rng: random.Random) -> str | None:
    soup = BeautifulSoup(html, "html.parser")
    shown = [c for c in _main_sequence(soup) or () if not c.has_attr("hidden") and "none" not in c.get("style", "")]
    if not shown:
        return None
    original = rng.choice(shown)
    block = copy.copy(original)  # a block like the page's own, written with other words (a deep copy)
    for tag in [block, *block.find_all(True)]:
        tag.attrs.pop("id", None)
    for text in block.find_all(string=True):
        if text.parent.name not in ("script", "style"):
            text.replace_with(_WORD.sub(lambda m: rng.choice(_WORDS), str(text)))
    original.insert_after(block)
    return str(soup)


def grid_columns(html: str, rng: random.Random) -> str | None:
    if "grid" not in html:
        return None
    width = rng.randint(280, 450)
    return _add_css(html, f"*{{grid-template-columns:repeat(auto-fill,minmax({width}px,1fr)) !important}}")


def stack(html: str, rng: random.Random) -> str | None:
    if "flex" not in html and "grid" not in html:
        return None
    return _add_css(
        html, "*:has(> :nth-child(3)){flex-direction:column !important;grid-template-columns:1fr !important}"
    )


def placeholders(html: str, rng: random.Random) -> str | None:
    factor = rng.choice([rng.uniform(0.6, 0.85), rng.uniform(1.2, 1.8)])
    out = _scale_props(html, "height|min-height", factor)
    out = re.sub(r"(<img\b[^>]*\bheight=['\"]?)(\d+)", lambda m: f"{m.group(1)}{round(int(m.group(2)) * factor)}", out)
    return None if out == html else out


def colors(html: str, rng: random.Random) -> str | None:
    shift = [rng.randint(-30, 30) for _ in range(3)]

    def channel(value: int, k: int) -> int:
        return min(255, max(0, value + shift[k]))

    def hex_colour(m: re.Match) -> str:
        h = m.group(1)
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return "#" + "".join(f"{channel(int(h[2 * k : 2 * k + 2], 16), k):02x}" for k in range(3))

    def rgb(m: re.Match) -> str:
        return "rgb(" + ",".join(str(channel(int(v), k)) for k, v in enumerate(m.groups())) + ")"

    out = re.sub(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b(?![0-9a-fA-F])", hex_colour, html)
    out = re.sub(r"rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", rgb, out)
    return None if out == html else out


TRANSFORMS = {
    "font_size": font_size,
    "spacing": spacing,
    "font_family": font_family,
    "line_height": line_height,
    "container": container,
    "reword": reword,
    "drop_section": drop_section,
    "extra_section": extra_section,
    "grid_columns": grid_columns,
    "stack": stack,
    "placeholders": placeholders,
    "colors": colors,
}


def honest_variants(html: str, seed: int, *, combos: int = 4, names: tuple[str, ...] = tuple(TRANSFORMS)) -> dict:
    """``{name: page}``: each of ``names`` applied once to ``html``, and ``combos`` pages of 2-3 of them together
    (named ``a+b[+c]``); transforms that do not apply are left out. Deterministic in ``seed``."""
    rng = random.Random(f"honest:{seed}")
    out: dict[str, str] = {}
    for name in names:
        page = TRANSFORMS[name](html, rng)
        if page is not None and page != html:
            out[name] = page
    for _ in range(combos):
        chosen = rng.sample(names, rng.randint(2, min(3, len(names))))
        page = html
        for name in chosen:
            page = TRANSFORMS[name](page, rng) or page
        if page != html:
            out["+".join(chosen)] = page
    return out
