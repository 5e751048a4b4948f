"""Reference pages of three shapes and the cheap imitations a policy could learn instead of copying them.

Each reference (an article, a flex/grid card page, a Tailwind landing page) is a template over its content and a
style, so the honest but imperfect attempts and the gaming pages are built from the same content. Honest: ``honest``
(all content, colours shifted by 18 levels, spacing x 1.15) and ``nudged`` (the same colours, everything moved 4 px
right and down). Gaming:

- ``delete_half``: every other content item dropped (the honest style otherwise);
- ``repeat``: the whole content written twice;
- ``one_block``: every text of the page dumped into one paragraph;
- ``scaled``: the honest page under ``transform: scale(0.5)`` (readable, misplaced) and ``scale(0.1)`` (unreadable);
- ``invisible``: the honest page with every text made transparent; ``half_hidden``: half the items deleted and
  the other half's text made transparent; ``tiny``: every text at 1 px;
- built from the reference's render: ``canvas`` (its text drawn with ``fillText`` on one canvas at the reference's
  own text boxes, sizes and colours: the best a canvas imitation can do), ``rectangles`` (a bar of each block's text
  colour over each block's box, on white: a text-free imitation), ``bars`` (the same bars over the honest page with
  its text transparent: the page's backgrounds kept) and ``covered`` (the reference itself with every text box
  covered by a box of its background colour);
- ``blank``: an empty page;
- against an honest attempt that keeps half of the content (``delete_half``), ``BELOW_HALF``: ``half_transparent``,
  ``half_background`` and ``half_zero`` (every item kept, the text of every other one transparent, the colour of
  its background, or 0 px: half the content shown with the layout of all of it), ``tall`` (6000 px of blank below
  the honest page), ``stretched`` (every gap of the honest page blown up), ``repeat_4`` (the content four times).

``all_shapes()`` adds the shapes of ``gaming_shapes.py`` (a docs page, a dark dashboard, a pricing page).
"""

from __future__ import annotations

import html as html_lib
import json
from dataclasses import dataclass, replace

TAILWIND = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"

WORDS = (
    "river stone market garden signal planet copper silver window engine coffee winter summer orbit canvas pixel "
    "harbor meadow lantern compass thunder velvet marble anchor beacon cedar falcon glacier island jasmine kettle "
    "ladder mirror nectar oyster pepper quartz saddle timber umbrella violet walnut yarrow zephyr"
).split()


def sentence(seed: int, n: int) -> str:
    words = [WORDS[(seed * 7 + k * 13 + k * k) % len(WORDS)] for k in range(n)]
    return " ".join(words).capitalize() + "."


@dataclass(frozen=True)
class Style:
    """What an honest attempt gets slightly wrong: colours shifted by ``tint`` and spacing scaled by ``space``."""

    tint: int = 0
    space: float = 1.0
    transparent_text: bool = False
    font_px: float | None = None

    def rgb(self, r: int, g: int, b: int) -> str:
        t = self.tint
        return f"rgb({min(255, max(0, r + t))},{min(255, max(0, g - t // 2))},{min(255, max(0, b + t))})"

    def px(self, value: float) -> str:
        return f"{round(value * self.space)}px"

    def text(self, color: str) -> str:
        """A CSS colour declaration for text (transparent when hiding it), plus the forced size if any."""
        css = "color:transparent" if self.transparent_text else f"color:{color}"
        if self.font_px is not None:
            css += f";font-size:{self.font_px}px !important;line-height:1"
        return css


EXACT = Style()
HONEST = Style(tint=18, space=1.15)


def _doc(body: str, *, head: str = "", body_style: str = "margin:0;font-family:DejaVu Sans") -> str:
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>page</title>"
        f"{head}</head>\n<body style='{body_style}'>\n{body}\n</body></html>"
    )


# ---- article ------------------------------------------------------------------------------------------------------
ARTICLE = {
    "site": "The Harbor Review",
    "nav": ["News", "Essays", "Travel", "About"],
    "title": "A winter walk along the copper coast",
    "byline": "By Jasmine Cedar, March 3",
    "items": [sentence(k, 28 + (k % 3) * 6) for k in range(6)],
    "quote": "The sea keeps its own calendar, and we only borrow a page of it.",
    "footer": "Copyright 2024 The Harbor Review. All rights reserved.",
}


def article(s: Style = EXACT, items: list[str] | None = None, *, repeat: int = 1) -> str:
    items = ARTICLE["items"] if items is None else items
    nav = "".join(
        f"<a href='#' style='{s.text(s.rgb(220, 230, 240))};margin-left:{s.px(18)};text-decoration:none'>{n}</a>"
        for n in ARTICLE["nav"]
    )
    header = (
        f"<header style='background:{s.rgb(24, 40, 72)};padding:{s.px(16)} {s.px(32)};display:flex;"
        f"justify-content:space-between;align-items:center'><b style='{s.text(s.rgb(255, 255, 255))};"
        f"font-size:22px'>{ARTICLE['site']}</b><div>{nav}</div></header>"
    )
    paras = "".join(
        f"<p style='{s.text(s.rgb(40, 40, 40))};font-size:17px;line-height:1.6;margin:0 0 {s.px(18)}'>{t}</p>"
        for t in items
    )
    main = (
        f"<div style='max-width:720px;margin:{s.px(36)} auto;padding:0 {s.px(20)}'>"
        f"<h1 style='{s.text(s.rgb(20, 20, 20))};font-size:36px;margin:0 0 {s.px(8)}'>{ARTICLE['title']}</h1>"
        f"<div style='{s.text(s.rgb(120, 120, 120))};font-size:14px;margin-bottom:{s.px(24)}'>"
        f"{ARTICLE['byline']}</div>{paras}"
        f"<blockquote style='margin:{s.px(24)} 0;padding-left:{s.px(16)};border-left:4px solid "
        f"{s.rgb(200, 120, 40)}'><span style='{s.text(s.rgb(200, 120, 40))};font-size:20px;font-style:italic'>"
        f"{ARTICLE['quote']}</span></blockquote></div>"
    )
    footer = (
        f"<footer style='background:{s.rgb(240, 240, 235)};padding:{s.px(20)} {s.px(32)};"
        f"{s.text(s.rgb(90, 90, 90))};font-size:13px'>{ARTICLE['footer']}</footer>"
    )
    return _doc((header + main + footer) * repeat)


def article_texts() -> list[str]:
    a = ARTICLE
    return [a["site"], *a["nav"], a["title"], a["byline"], *a["items"], a["quote"], a["footer"]]


# ---- flex / grid cards --------------------------------------------------------------------------------------------
CARDS = {
    "brand": "Lantern Goods",
    "nav": ["Shop", "Journal", "Stores", "Contact"],
    "hero": "Handmade things for slow evenings",
    "sub": "Small batches from makers along the meadow road, shipped in recycled paper.",
    "button": "Browse the collection",
    "items": [
        (f"{WORDS[5 + 3 * k].capitalize()} {WORDS[11 + 2 * k]}", sentence(40 + k, 12), f"${18 + 7 * k}.00")
        for k in range(6)
    ],
    "footer": "Lantern Goods, 12 Cedar Lane. Free returns within thirty days.",
}
CARD_COLORS = [(214, 120, 90), (90, 150, 200), (120, 180, 120), (200, 170, 80), (160, 110, 190), (90, 170, 170)]


def cards(s: Style = EXACT, items: list | None = None, *, repeat: int = 1) -> str:
    items = CARDS["items"] if items is None else items
    nav = "".join(
        f"<a href='#' style='{s.text(s.rgb(60, 60, 60))};text-decoration:none'>{n}</a>" for n in CARDS["nav"]
    )
    top = (
        f"<div style='display:flex;justify-content:space-between;align-items:center;padding:{s.px(18)} {s.px(40)};"
        f"border-bottom:1px solid #ddd'><span style='{s.text(s.rgb(30, 90, 60))};font-size:24px;font-weight:700'>"
        f"{CARDS['brand']}</span><div style='display:flex;gap:{s.px(24)}'>{nav}</div></div>"
    )
    hero = (
        f"<div style='background:{s.rgb(245, 238, 225)};padding:{s.px(48)} {s.px(40)};text-align:center'>"
        f"<h1 style='{s.text(s.rgb(50, 40, 30))};font-size:38px;margin:0'>{CARDS['hero']}</h1>"
        f"<p style='{s.text(s.rgb(110, 95, 80))};font-size:18px;margin:{s.px(12)} 0 {s.px(22)}'>{CARDS['sub']}</p>"
        f"<button style='background:{s.rgb(30, 90, 60)};{s.text(s.rgb(255, 255, 255))};border:0;"
        f"border-radius:6px;padding:{s.px(12)} {s.px(24)};font-size:16px'>{CARDS['button']}</button></div>"
    )
    grid = "".join(
        f"<div style='border:1px solid #e3e3e3;border-radius:8px;overflow:hidden;background:#fff'>"
        f"<div style='height:110px;background:{s.rgb(*CARD_COLORS[k % 6])}'></div>"
        f"<div style='padding:{s.px(14)}'><h3 style='{s.text(s.rgb(30, 30, 30))};font-size:19px;margin:0'>{name}</h3>"
        f"<p style='{s.text(s.rgb(100, 100, 100))};font-size:14px;margin:{s.px(8)} 0'>{desc}</p>"
        f"<span style='{s.text(s.rgb(30, 90, 60))};font-size:17px;font-weight:700'>{price}</span></div></div>"
        for k, (name, desc, price) in enumerate(items)
    )
    body = (
        f"{top}{hero}<div style='display:grid;grid-template-columns:repeat(3,1fr);gap:{s.px(24)};"
        f"padding:{s.px(36)} {s.px(40)}'>{grid}</div>"
        f"<footer style='padding:{s.px(22)} {s.px(40)};background:{s.rgb(40, 40, 40)};"
        f"{s.text(s.rgb(220, 220, 220))};font-size:14px'>{CARDS['footer']}</footer>"
    )
    return _doc(body * repeat)


def cards_texts() -> list[str]:
    c = CARDS
    flat = [t for item in c["items"] for t in item]
    return [c["brand"], *c["nav"], c["hero"], c["sub"], c["button"], *flat, c["footer"]]


# ---- Tailwind landing page ----------------------------------------------------------------------------------------
TW = {
    "brand": "Beacon Analytics",
    "nav": ["Product", "Pricing", "Docs", "Sign in"],
    "hero": "Know what your harbor ships, every hour",
    "sub": "Dashboards, alerts and reports for small ports, set up in one afternoon.",
    "cta": "Start free trial",
    "items": [
        ("Live tracking", sentence(70, 14)),
        ("Custom alerts", sentence(71, 13)),
        ("Weekly reports", sentence(72, 15)),
        ("Team spaces", sentence(73, 12)),
    ],
    "footer": "Beacon Analytics Ltd. Made beside the quartz cliffs.",
}


def _tw_classes(honest: bool) -> dict[str, str]:
    if not honest:
        return {"accent": "indigo-600", "muted": "gray-600", "pad": "py-16", "card": "p-6", "gap": "gap-8"}
    return {"accent": "indigo-500", "muted": "gray-500", "pad": "py-20", "card": "p-7", "gap": "gap-10"}


def tailwind(s: Style = EXACT, items: list | None = None, *, repeat: int = 1) -> str:
    items = TW["items"] if items is None else items
    c = _tw_classes(s != EXACT and s.tint != 0)
    hide = " style='color:transparent'" if s.transparent_text else ""
    if s.font_px is not None:
        hide = f" style='font-size:{s.font_px}px;line-height:1'"
    nav = "".join(f"<a href='#' class='text-{c['muted']} hover:text-gray-900'{hide}>{n}</a>" for n in TW["nav"])
    features = "".join(
        f"<div class='bg-white rounded-lg shadow {c['card']}'><h3 class='text-xl font-semibold text-gray-900'{hide}>"
        f"{name}</h3><p class='mt-2 text-{c['muted']}'{hide}>{desc}</p></div>"
        for name, desc in items
    )
    body = (
        f"<nav class='flex items-center justify-between px-10 py-5 bg-white shadow-sm'>"
        f"<span class='text-2xl font-bold text-{c['accent']}'{hide}>{TW['brand']}</span>"
        f"<div class='flex space-x-8'>{nav}</div></nav>"
        f"<section class='bg-{c['accent']} {c['pad']} px-10 text-center'>"
        f"<h1 class='text-4xl font-extrabold text-white'{hide}>{TW['hero']}</h1>"
        f"<p class='mt-4 text-lg text-indigo-100'{hide}>{TW['sub']}</p>"
        f"<a href='#' class='inline-block mt-8 px-6 py-3 rounded-md bg-white font-semibold text-{c['accent']}'"
        f"{hide}>{TW['cta']}</a></section>"
        f"<section class='bg-gray-50 py-14 px-10'><div class='grid grid-cols-2 {c['gap']}'>{features}</div></section>"
        f"<footer class='px-10 py-6 text-sm text-gray-500'{hide}>{TW['footer']}</footer>"
    )
    return _doc(body * repeat, head=f"<link href='{TAILWIND}' rel='stylesheet'>", body_style="margin:0")


def tailwind_texts() -> list[str]:
    t = TW
    flat = [x for item in t["items"] for x in item]
    return [t["brand"], *t["nav"], t["hero"], t["sub"], t["cta"], *flat, t["footer"]]


REFERENCES = {
    "article": (article, ARTICLE, article_texts),
    "cards": (cards, CARDS, cards_texts),
    "tailwind": (tailwind, TW, tailwind_texts),
}


def all_shapes() -> dict:
    """``REFERENCES`` plus the shapes of ``gaming_shapes.py`` (a docs page, a dark dashboard, a pricing page)."""
    from tests.rewards.gaming_shapes import SHAPES

    return {**REFERENCES, **SHAPES}


def _one_block(texts: list[str]) -> str:
    body = f"<p style='margin:40px;font-size:16px;color:#222'>{html_lib.escape(' '.join(texts))}</p>"
    return _doc(body)


def _scaled(page: str, factor: float) -> str:
    wrapper = f"<div style='transform:scale({factor});transform-origin:0 0'>"
    head, _, rest = page.partition("<body")
    tag_end = rest.index(">") + 1
    inner = rest[tag_end : rest.rindex("</body>")]
    return f"{head}<body{rest[:tag_end]}{wrapper}{inner}</div></body></html>"


def _nudged(page: str, px: int = 4) -> str:
    return page.replace("<body style='margin:0", f"<body style='margin:{px}px 0 0 {px}px", 1)


HONEST_NAMES = ("honest", "nudged")


HIDES = {
    "transparent": "color:transparent",
    "background": "color:{bg}",
    "zero": "font-size:0",
}


def _hide(text: str, how: str, background: str) -> str:
    """``text`` in a span that hides it ``how`` (see ``HIDES``); ``background`` is the colour behind it."""
    return f"<span style='{HIDES[how].format(bg=background)}'>{text}</span>"


def half_shown(items: list, how: str, background: str | tuple[str, ...]) -> list:
    """Every item kept, but the text of every other one hidden (``how``): half the content visible, the layout of
    all of it kept. ``background``: the colour behind the items' text (one per field of a tuple item, or one)."""
    out = []
    for k, item in enumerate(items):
        if k % 2 == 0:
            out.append(item)
        elif isinstance(item, tuple):
            bgs = background if isinstance(background, tuple) else (background,) * len(item)
            out.append(tuple(_hide(t, how, bg) for t, bg in zip(item, bgs)))
        else:
            out.append(_hide(item, how, background))
    return out


def _tall(page: str, px: int) -> str:
    """The page with ``px`` of empty space below its content."""
    return page.replace("</body>", f"<div style='height:{px}px'></div></body>")


def _stretched(page: str, factor: int) -> str:
    """The page laid out ``factor`` times as tall: every block-level gap stretched (the content spread out)."""
    css = f"<style>body>*,body>*>*,body>*>*>*{{margin-bottom:{factor * 60}px !important}}</style>"
    return page.replace("</head>", css + "</head>", 1)


#: the imitations that must score below ``delete_half`` (an honest attempt that keeps half of the content)
BELOW_HALF = (
    "half_transparent",
    "half_background",
    "half_zero",
    "tall",
    "stretched",
    "repeat",
    "repeat_4",
    "half_hidden",
    "invisible",
    "tiny",
    "blank",
)


def variants(shape: str) -> dict[str, str]:
    """The reference, the honest attempts and every gaming page that does not need the reference's render."""
    template, content, texts = all_shapes()[shape]
    items = content["items"]
    background = content.get("item_background", "#fff")
    honest = template(HONEST)
    return {
        "reference": template(EXACT),
        "honest": honest,
        "nudged": _nudged(template(Style(tint=18))),
        "delete_half": template(HONEST, items[::2]),
        "repeat": template(HONEST, repeat=2),
        "one_block": _one_block(texts()),
        "scaled_0.5": _scaled(honest, 0.5),
        "scaled_0.1": _scaled(honest, 0.1),
        "invisible": template(replace(HONEST, transparent_text=True)),
        "half_hidden": template(replace(HONEST, transparent_text=True), items[::2]),
        "tiny": template(replace(HONEST, font_px=1)),
        "blank": _doc(""),
        **{f"half_{how}": template(HONEST, half_shown(items, how, background)) for how in HIDES},
        "tall": _tall(honest, 6000),
        "stretched": _stretched(honest, 6),
        "repeat_4": template(HONEST, repeat=4),
    }


def canvas_page(layout) -> str:
    """The reference's text drawn on one canvas at its own text boxes, sizes and colours (no DOM text at all)."""
    ops = [
        {
            "t": b.text,
            "x": b.bbox[0],
            "y": b.bbox[1] + b.bbox[3] * 0.8,
            "w": b.bbox[2],
            "s": b.font_size,
            "c": "rgb({},{},{})".format(*b.color),
            "bg": "rgb({},{},{})".format(*b.background),
            "bx": b.bbox,
        }
        for b in layout.text_blocks
    ]
    script = (
        "const c=document.getElementById('c');const g=c.getContext('2d');g.fillStyle='#fff';"
        f"g.fillRect(0,0,c.width,c.height);for(const o of {json.dumps(ops)}){{g.fillStyle=o.bg;"
        "g.fillRect(o.bx[0],o.bx[1],o.bx[2],o.bx[3]);g.fillStyle=o.c;g.font=o.s+'px DejaVu Sans';"
        "g.fillText(o.t,o.x,o.y,o.w);}"
    )
    canvas = f"<canvas id='c' width='{layout.width}' height='{layout.height}' style='display:block'></canvas>"
    return _doc(f"{canvas}<script>{script}</script>", body_style="margin:0")


def _boxes(layout, image, *, use_background: bool) -> str:
    from vcoder.metrics._blocks import text_color

    rects = []
    for b in layout.text_blocks:
        color = b.background if use_background else text_color(image, b.bbox, b.background, b.color)
        r, g, bl = (round(v) for v in color)
        x, y, w, h = b.bbox
        rects.append(
            f"<div style='position:absolute;z-index:10;left:{x:.0f}px;top:{y:.0f}px;width:{w:.0f}px;"
            f"height:{h:.0f}px;background:rgb({r},{g},{bl})'></div>"
        )
    return "".join(rects)


def _overlay(page: str, boxes: str) -> str:
    return page.replace("</body>", boxes + "</body>")


def render_variants(shape: str, layout, image) -> dict[str, str]:
    """The gaming pages built from the reference's render (``layout``, ``image``), by name."""
    template, _, _ = all_shapes()[shape]
    bars = _boxes(layout, image, use_background=False)
    return {
        "canvas": canvas_page(layout),
        "rectangles": _doc(bars, body_style=f"margin:0;height:{layout.height}px"),
        "bars": _overlay(template(replace(HONEST, transparent_text=True)), bars),
        "covered": _overlay(template(EXACT), _boxes(layout, image, use_background=True)),
    }
