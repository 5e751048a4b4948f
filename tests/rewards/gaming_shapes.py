"""Three more reference shapes for the gaming tests, unlike ``gaming.py``'s: a documentation page (sidebar, sections
with dark code blocks), a dark dashboard (stat tiles and a table) and a pricing page (plan columns, a comparison
table, an FAQ list). Each is a template over its content and a ``Style``, as in ``gaming.py``, so honest attempts and
imitations are built from the same content; ``item_background`` is the colour behind each field of an item (what
"text the colour of its background" uses).
"""

from __future__ import annotations

from tests.rewards.gaming import EXACT, Style, _doc, sentence

# ---- documentation page -------------------------------------------------------------------------------------------
DOCS = {
    "brand": "Quartz CLI",
    "nav": ["Install", "Configure", "Commands", "Plugins", "Troubleshooting", "Changelog"],
    "title": "Configuring a workspace",
    "items": [
        (f"Step {k + 1}: {sentence(90 + k, 3)[:-1]}", sentence(100 + k, 22), f"quartz config set key{k} value{k}")
        for k in range(6)
    ],
    "footer": "Quartz CLI documentation, version 4.2. Edit this page on the project's repository.",
    "item_background": ("#fff", "#fff", "rgb(30,32,40)"),
}


def docs(s: Style = EXACT, items: list | None = None, *, repeat: int = 1) -> str:
    items = DOCS["items"] if items is None else items
    nav = "".join(
        f"<li style='margin:0 0 {s.px(10)}'><a href='#' style='{s.text(s.rgb(70, 90, 140))};text-decoration:none;"
        f"font-size:15px'>{n}</a></li>"
        for n in DOCS["nav"]
    )
    side = (
        f"<aside style='width:230px;flex:none;background:{s.rgb(244, 246, 250)};padding:{s.px(24)} {s.px(20)}'>"
        f"<div style='{s.text(s.rgb(30, 40, 60))};font-size:20px;font-weight:700;margin-bottom:{s.px(20)}'>"
        f"{DOCS['brand']}</div><ul style='list-style:none;margin:0;padding:0'>{nav}</ul></aside>"
    )
    sections = "".join(
        f"<section style='margin:0 0 {s.px(26)}'><h2 style='{s.text(s.rgb(25, 30, 45))};font-size:22px;"
        f"margin:0 0 {s.px(8)}'>{title}</h2><p style='{s.text(s.rgb(60, 64, 75))};font-size:15px;line-height:1.55;"
        f"margin:0 0 {s.px(10)}'>{body}</p><pre style='background:rgb(30,32,40);margin:0;padding:{s.px(12)} "
        f"{s.px(14)};border-radius:6px'><code style='{s.text(s.rgb(150, 220, 160))};font-size:14px;"
        f"font-family:DejaVu Sans Mono'>{code}</code></pre></section>"
        for title, body, code in items
    )
    main = (
        f"<main style='flex:1;padding:{s.px(28)} {s.px(40)}'><h1 style='{s.text(s.rgb(15, 20, 30))};font-size:32px;"
        f"margin:0 0 {s.px(22)}'>{DOCS['title']}</h1>{sections}<div style='{s.text(s.rgb(120, 125, 135))};"
        f"font-size:13px;border-top:1px solid #ddd;padding-top:{s.px(12)}'>{DOCS['footer']}</div></main>"
    )
    return _doc(f"<div style='display:flex;align-items:stretch'>{side}{main}</div>" * repeat)


def docs_texts() -> list[str]:
    d = DOCS
    return [d["brand"], *d["nav"], d["title"], *(t for item in d["items"] for t in item), d["footer"]]


# ---- dark dashboard -----------------------------------------------------------------------------------------------
DASH = {
    "brand": "Harbor Ops",
    "tabs": ["Overview", "Vessels", "Berths", "Alerts"],
    "title": "Port activity this week",
    "items": [
        (label, value, delta)
        for label, value, delta in [
            ("Ships docked", "128", "+12% on last week"),
            ("Average wait", "3.4 h", "-0.6 h on last week"),
            ("Cargo moved", "41,200 t", "+8% on last week"),
            ("Open alerts", "7", "2 critical, 5 minor"),
            ("Crane uptime", "97.1%", "+0.4 points"),
            ("Pilots on duty", "16", "4 on standby"),
        ]
    ],
    "rows": [
        ("Copper Star", "Berth 4", "Unloading"),
        ("Velvet Tide", "Berth 9", "Waiting"),
        ("Orbit", "Berth 2", "Done"),
    ],
    "footer": "Data refreshed every five minutes from the harbor master's feed.",
    "item_background": "rgb(31,41,55)",
}


def dashboard(s: Style = EXACT, items: list | None = None, *, repeat: int = 1) -> str:
    items = DASH["items"] if items is None else items
    tabs = "".join(
        f"<span style='{s.text(s.rgb(200, 210, 225))};font-size:15px;padding:{s.px(6)} {s.px(12)}'>{t}</span>"
        for t in DASH["tabs"]
    )
    top = (
        f"<div style='display:flex;justify-content:space-between;align-items:center;padding:{s.px(16)} {s.px(32)};"
        f"background:{s.rgb(17, 24, 39)}'><b style='{s.text(s.rgb(96, 165, 250))};font-size:22px'>{DASH['brand']}</b>"
        f"<div>{tabs}</div></div>"
    )
    tiles = "".join(
        f"<div style='background:rgb(31,41,55);border-radius:10px;padding:{s.px(18)}'>"
        f"<div style='{s.text(s.rgb(156, 163, 175))};font-size:14px'>{label}</div>"
        f"<div style='{s.text(s.rgb(243, 244, 246))};font-size:30px;font-weight:700;margin:{s.px(6)} 0'>{value}</div>"
        f"<div style='{s.text(s.rgb(52, 211, 153))};font-size:13px'>{delta}</div></div>"
        for label, value, delta in items
    )
    rows = "".join(
        "<tr>" + "".join(f"<td style='{s.text(s.rgb(209, 213, 219))};padding:{s.px(8)} 0'>{c}</td>" for c in row)
        for row in DASH["rows"]
    )
    body = (
        f"{top}<div style='padding:{s.px(28)} {s.px(32)}'><h1 style='{s.text(s.rgb(249, 250, 251))};font-size:28px;"
        f"margin:0 0 {s.px(20)}'>{DASH['title']}</h1><div style='display:grid;grid-template-columns:repeat(3,1fr);"
        f"gap:{s.px(18)}'>{tiles}</div><table style='width:100%;margin-top:{s.px(28)};font-size:15px;"
        f"border-collapse:collapse'>{rows}</table><div style='{s.text(s.rgb(107, 114, 128))};font-size:13px;"
        f"margin-top:{s.px(24)}'>{DASH['footer']}</div></div>"
    )
    return _doc(body * repeat, body_style=f"margin:0;font-family:DejaVu Sans;background:{s.rgb(11, 15, 25)}")


def dashboard_texts() -> list[str]:
    d = DASH
    return [
        d["brand"],
        *d["tabs"],
        d["title"],
        *(t for item in d["items"] for t in item),
        *sum(d["rows"], ()),
        d["footer"],
    ]


# ---- pricing page -------------------------------------------------------------------------------------------------
PRICING = {
    "brand": "Timber Mail",
    "hero": "Simple plans for every team",
    "plans": [("Starter", "$0", "For one person"), ("Team", "$12", "Per user, monthly"), ("Scale", "$29", "Per user")],
    "items": [
        ("Custom domains", "1", "10"),
        ("Storage per user", "5 GB", "50 GB"),
        ("Shared inboxes", "No", "Yes"),
        ("Audit log", "7 days", "1 year"),
        ("Single sign-on", "No", "Yes"),
        ("Support", "Email", "Phone and email"),
        ("Uptime guarantee", "None", "99.9%"),
        ("Data export", "Monthly", "Any time"),
    ],
    "faq": [(f"Can I {sentence(120 + k, 4)[:-1].lower()}?", sentence(130 + k, 14)) for k in range(3)],
    "footer": "Timber Mail, Walnut House, Harbor Street. Prices exclude tax.",
    "item_background": "#fff",
}


def pricing(s: Style = EXACT, items: list | None = None, *, repeat: int = 1) -> str:
    items = PRICING["items"] if items is None else items
    plans = "".join(
        f"<div style='flex:1;border:2px solid {s.rgb(200, 170, 120)};border-radius:12px;padding:{s.px(20)};"
        f"text-align:center'><h3 style='{s.text(s.rgb(90, 60, 30))};font-size:20px;margin:0'>{name}</h3>"
        f"<div style='{s.text(s.rgb(40, 30, 20))};font-size:40px;font-weight:700;margin:{s.px(8)} 0'>{price}</div>"
        f"<p style='{s.text(s.rgb(120, 100, 80))};font-size:14px;margin:0'>{note}</p></div>"
        for name, price, note in PRICING["plans"]
    )
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td style='{s.text(s.rgb(50, 50, 50))};padding:{s.px(9)} {s.px(12)};border-bottom:1px solid #e5e0d8;"
            f"font-size:15px'>{c}</td>"
            for c in row
        )
        + "</tr>"
        for row in items
    )
    faq = "".join(
        f"<li style='margin:0 0 {s.px(14)}'><b style='{s.text(s.rgb(60, 45, 30))};font-size:16px'>{q}</b>"
        f"<p style='{s.text(s.rgb(100, 95, 90))};font-size:14px;margin:{s.px(4)} 0 0'>{a}</p></li>"
        for q, a in PRICING["faq"]
    )
    body = (
        f"<header style='padding:{s.px(18)} {s.px(48)};background:{s.rgb(252, 248, 240)}'><b style='"
        f"{s.text(s.rgb(120, 70, 20))};font-size:22px'>{PRICING['brand']}</b></header>"
        f"<div style='padding:{s.px(32)} {s.px(48)}'><h1 style='{s.text(s.rgb(30, 25, 20))};font-size:34px;"
        f"text-align:center;margin:0 0 {s.px(24)}'>{PRICING['hero']}</h1><div style='display:flex;gap:{s.px(20)}'>"
        f"{plans}</div><table style='width:100%;border-collapse:collapse;margin:{s.px(30)} 0'>{rows}</table>"
        f"<ul style='list-style:none;padding:0;margin:0'>{faq}</ul></div><footer style='padding:{s.px(16)} "
        f"{s.px(48)};{s.text(s.rgb(130, 120, 110))};font-size:13px;border-top:1px solid #eee'>{PRICING['footer']}</footer>"
    )
    return _doc(body * repeat)


def pricing_texts() -> list[str]:
    p = PRICING
    flat = [t for row in p["plans"] + p["items"] + p["faq"] for t in row]
    return [p["brand"], p["hero"], *flat, p["footer"]]


SHAPES = {
    "docs": (docs, DOCS, docs_texts),
    "dashboard": (dashboard, DASH, dashboard_texts),
    "pricing": (pricing, PRICING, pricing_texts),
}
