"""Site kinds that show one part of a page at a time: tabs, modal dialog, accordion, one-page navigation. Builders
follow :mod:`vcoder.data.site_kinds.base`."""

from __future__ import annotations

from vcoder.data.site_kinds.base import (
    Built,
    Ctx,
    by_label,
    by_role,
    by_text,
    click,
    count,
    make_case,
    press,
    shows,
    type_into,
    visible,
)

_TOPICS = (
    ("Overview", "Fast delivery in two days."),
    ("Pricing", "Plans start at nine dollars."),
    ("Security", "Two-factor sign-in is on."),
    ("Returns", "Returns are free for a month."),
    ("Support", "Chat with us around the clock."),
    ("Privacy", "Your data stays on our servers."),
    ("Billing", "Invoices are emailed monthly."),
    ("Shipping", "Orders leave from three warehouses."),
)
#: words no topic name contains: a decoy label for the wrong_label variant
_DECOYS = ("More", "Details", "Info")
PLACES = ("Oslo", "Lima", "Cairo", "Hanoi", "Quito", "Dakar", "Perth", "Turin", "Bergen", "Kyoto", "Porto", "Tunis")


def _topics(ctx: Ctx, n: int = 3) -> tuple[list[str], list[str], list[str]]:
    """``n`` topics: their names as asked for, as shown (one decoy in wrong_label), and their texts."""
    picked = ctx.rng.sample(_TOPICS, n)
    names = [name for name, _ in picked]
    shown = list(names)
    shown[1] = ctx.label(names[1], ctx.rng.choice(_DECOYS))
    return names, shown, [text for _, text in picked]


def tabs(ctx: Ctx) -> Built:
    names, shown, texts = _topics(ctx)
    buttons = "".join(
        f'<button role="tab" id="t{i}" aria-selected="{str(i == 0).lower()}" aria-controls="p{i}">{n}</button>'
        for i, n in enumerate(shown)
    )
    panels = "".join(
        f'<div role="tabpanel" id="p{i}" aria-labelledby="t{i}"{"" if i == 0 else " hidden"}><p>{t}</p></div>'
        for i, t in enumerate(texts)
    )
    js = (
        "const tabs = [...document.querySelectorAll('[role=tab]')];\n"
        "tabs.forEach((t, k) => t.onclick = () => tabs.forEach((u, i) => {\n"
        "  u.setAttribute('aria-selected', String(i === k)); $('#p' + i).hidden = i !== k;\n}));"
    )
    tab = lambda i: click(by_role("tab", names[i]))  # noqa: E731
    cases = [
        make_case(
            f"Open the '{names[1]}' tab",
            f"It shows '{texts[1]}'",
            [tab(1)],
            [shows(texts[1]), count(by_role("tab", names[1], selected=True), 1)],
        ),
        make_case(
            f"Open the '{names[2]}' tab",
            f"It shows '{texts[2]}' and no longer '{texts[0]}'",
            [tab(2)],
            [shows(texts[2]), visible(by_text(texts[0]), False)],
        ),
        make_case(
            f"Open '{names[2]}', then '{names[0]}'",
            f"It shows '{texts[0]}' again",
            [tab(2), tab(0)],
            [shows(texts[0]), visible(by_text(texts[2]), False)],
        ),
    ]
    request = (
        f"with three tabs, '{names[0]}', '{names[1]}' and '{names[2]}' (accessible tabs: a tab list whose "
        f"selected tab is marked selected). Their panels say '{texts[0]}', '{texts[1]}' and '{texts[2]}'; only "
        "the selected tab's panel is shown, the first one at the start."
    )
    return Built(f'<div role="tablist">{buttons}</div>{panels}', js, cases, request)


def modal(ctx: Ctx) -> Built:
    rng = ctx.rng
    label = rng.choice(("Subscribe", "Join the list", "Get updates"))
    who = rng.choice(PLACES[:6]) + " " + rng.choice(("Smith", "Garcia", "Chen"))
    shown = ctx.label(label, "Open")
    body = (
        f'<button id="open">{shown}</button><p id="res" role="status"></p>'
        '<div id="dlg" role="dialog" aria-modal="true" aria-labelledby="dt" hidden class="dialog">'
        f'<h2 id="dt">{label}</h2><label for="who">Your name</label><input id="who">'
        '<button id="ok">Confirm</button> <button id="no">Cancel</button></div>'
    )
    js = (
        "const close = msg => { $('#dlg').hidden = true; $('#res').textContent = msg; };\n"
        "$('#open').onclick = () => { $('#dlg').hidden = false; $('#who').focus(); };\n"
        "$('#ok').onclick = () => close(`Thanks, ${$('#who').value.trim() || 'friend'}!`);\n"
        "$('#no').onclick = () => close('Cancelled');\n"
        "$('#dlg').onkeydown = e => { if (e.key === 'Escape') close('Cancelled'); };"
    )
    opened = [click(by_role("button", label))]
    dialog = by_role("dialog")
    cases = [
        make_case(f"Click '{label}'", "A dialog opens", opened, [visible(dialog), visible(by_label("Your name"))]),
        make_case(
            f"Open the dialog, enter '{who}' and confirm",
            f"It closes and says 'Thanks, {who}!'",
            opened + [type_into(by_label("Your name"), who), click(by_role("button", "Confirm"))],
            [shows(f"Thanks, {who}!"), count(dialog, 0)],
        ),
        make_case(
            "Open the dialog and click Cancel",
            "It closes and says 'Cancelled'",
            opened + [click(by_role("button", "Cancel"))],
            [count(dialog, 0), shows("Cancelled")],
        ),
        make_case(
            "Open the dialog and press Escape",
            "It closes and says 'Cancelled'",
            opened + [press(by_label("Your name"), "Escape")],
            [count(dialog, 0), shows("Cancelled")],
        ),
    ]
    request = (
        f"with a '{label}' button that opens a dialog (an accessible dialog, hidden at first) holding a field "
        "labelled 'Your name' and 'Confirm' and 'Cancel' buttons. Confirm closes it and shows 'Thanks, NAME!'; "
        "Cancel or the Escape key closes it and shows 'Cancelled'."
    )
    css = ".dialog{border:2px solid #0003;border-radius:8px;padding:16px;margin-top:12px}"
    return Built(body, js, cases, request, css, key=(label,))  # the name typed is the case's input


def accordion(ctx: Ctx) -> Built:
    names, shown, texts = _topics(ctx)
    body = "".join(
        f'<h3><button id="h{i}" aria-expanded="false" aria-controls="p{i}">{n}</button></h3>'
        f'<div id="p{i}" hidden><p>{t}</p></div>'
        for i, (n, t) in enumerate(zip(shown, texts))
    )
    js = (
        "const heads = [...document.querySelectorAll('[aria-expanded]')];\n"
        "heads.forEach((h, k) => h.onclick = () => {\n  const open = $('#p' + k).hidden;\n"
        "  heads.forEach((u, i) => { const o = i === k && open; $('#p' + i).hidden = !o;"
        " u.setAttribute('aria-expanded', String(o)); });\n});"
    )
    head = lambda i: click(by_role("button", names[i]))  # noqa: E731
    cases = [
        make_case(
            f"Expand '{names[1]}'",
            f"It shows '{texts[1]}'",
            [head(1)],
            [shows(texts[1]), count(by_role("button", names[1], expanded=True), 1)],
        ),
        make_case(
            f"Expand '{names[0]}', then '{names[2]}'",
            "Only the last one is open",
            [head(0), head(2)],
            [shows(texts[2]), visible(by_text(texts[0]), False)],
        ),
        make_case(
            f"Click '{names[1]}' twice",
            "It is closed again",
            [head(1), head(1)],
            [visible(by_text(texts[1]), False), count(by_role("button", names[1], expanded=False), 1)],
        ),
    ]
    request = (
        f"with an accordion of three sections, '{names[0]}', '{names[1]}' and '{names[2]}', saying '{texts[0]}', "
        f"'{texts[1]}' and '{texts[2]}'. Each header is a button that says whether its section is expanded "
        "(aria-expanded); all sections start closed, opening one closes the others, and clicking an open one "
        "closes it."
    )
    return Built(body, js, cases, request)


_SHOPS = (
    "Corner Bakery",
    "Blue Door Cafe",
    "Hill Bikes",
    "Green Leaf Florist",
    "Harbour Books",
    "Red Kite Tailors",
    "Old Mill Pottery",
    "Sunrise Yoga",
)
#: the third page: (its slug, its link, its heading, its field's label)
_THIRD_PAGES = (
    ("contact", "Contact", "Contact us", "Your email"),
    ("visit", "Visit", "Find us", "Your postcode"),
    ("news", "Newsletter", "Join our newsletter", "Your email"),
    ("feedback", "Feedback", "Tell us what you think", "Your comment"),
)


def navigation(ctx: Ctx) -> Built:
    rng = ctx.rng
    # 8 shops x 12 towns x 4 third pages: 384 variants (it had 48)
    shop = rng.choice(_SHOPS)
    town = rng.choice(PLACES)
    slug, link, title, field = rng.choice(_THIRD_PAGES)
    about = ctx.label("About", "Our story")
    pages = (
        ("home", "Home", f"Welcome to {shop}"),
        ("about", about, "About us"),
        (slug, link, title),
    )
    links = "".join(f'<a href="#{slug}">{link}</a> ' for slug, link, _ in pages)
    body = (
        f"<nav>{links}</nav>"
        f'<section id="home"><h2>Welcome to {shop}</h2><p>Open every day.</p></section>'
        f'<section id="about" hidden><h2>About us</h2><p>Family run in {town} since 1990.</p></section>'
        f'<section id="{slug}" hidden><h2>{title}</h2><label for="em">{field}</label><input id="em"></section>'
    )
    js = (
        "const route = () => {\n  const at = (location.hash || '#home').slice(1);\n"
        f"  ['home', 'about', '{slug}'].forEach(s => {{ $('#' + s).hidden = s !== at; }});\n"
        "  document.querySelectorAll('nav a').forEach(a => a.toggleAttribute('aria-current', a.hash === '#' + at));\n};\n"
        "addEventListener('hashchange', route);\nroute();"
    )
    go = lambda name: click(by_role("link", name, exact=True))  # noqa: E731
    heading = lambda name: by_role("heading", name)  # noqa: E731
    cases = [
        make_case(
            "Click the 'About' link",
            f"The About page shows that it is family run in {town}",
            [go("About")],
            [visible(heading("About us")), shows(f"Family run in {town}"), count(heading("Welcome to"), 0)],
        ),
        make_case(
            f"Click the '{link}' link",
            f"The {link} page shows a field labelled '{field}'",
            [go(link)],
            [visible(heading(title)), visible(by_label(field))],
        ),
        make_case(
            f"Click '{link}', then 'Home'",
            f"The home page shows 'Welcome to {shop}' again",
            [go(link), go("Home")],
            [visible(heading(f"Welcome to {shop}")), count(heading(title), 0)],
        ),
    ]
    request = (
        f"for '{shop}' with three pages on one page (no page reload): a navigation bar with the links 'Home', "
        f"'About' and '{link}' shows one page at a time. Home has the heading 'Welcome to {shop}' and is shown "
        f"first; About has the heading 'About us' and the text 'Family run in {town} since 1990.'; {link} has the "
        f"heading '{title}' and a field labelled '{field}'."
    )
    return Built(body, js, cases, request, css="nav a{margin-right:12px}", key=(shop, town, link, title, field))
