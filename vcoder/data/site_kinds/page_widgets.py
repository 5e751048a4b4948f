"""Id-named page kinds that show and hide content: tabs, a modal dialog, an accordion.

Builders follow :mod:`vcoder.data.site_kinds.base`; the page shell is :func:`vcoder.data.site_kinds.pages.make_page`.
"""

from __future__ import annotations

import random

from vcoder.data.site_kinds.base import WORDS, Built, Ctx, click, make_case, press, type_into

TOPICS = (
    ("Overview", "Profile", "Billing", "Security", "Shipping", "Returns", "Pricing", "Support"),
    (
        "Fast delivery in two days.",
        "Plans start at nine dollars.",
        "Two-factor sign-in is on.",
        "Returns are free for a month.",
        "Chat with us around the clock.",
        "Your data stays private.",
        "Invoices are emailed monthly.",
        "Orders ship from three warehouses.",
    ),
)


def pick_topics(rng: random.Random, n: int = 3) -> tuple[list[str], list[str]]:
    """``n`` distinct topics: their names (tab or section titles) and their texts (panel contents)."""
    idx = rng.sample(range(len(TOPICS[0])), n)
    return [TOPICS[0][i] for i in idx], [TOPICS[1][i] for i in idx]


def tabs(ctx: Ctx) -> Built:
    rng = ctx.rng
    names, texts = pick_topics(rng)
    tabs = "".join(
        f'<button role="tab" id="tab-{i}" aria-selected="{str(i == 1).lower()}" aria-controls="panel-{i}">{n}</button>'
        for i, n in enumerate(names, 1)
    )
    panels = "".join(
        f'<section role="tabpanel" id="panel-{i}"{"" if i == 1 else " hidden"}><p>{t}</p></section>'
        for i, t in enumerate(texts, 1)
    )
    body = f'<div role="tablist">{tabs}</div>{panels}'
    js = (
        "function show(k) {\n  for (let i = 1; i <= 3; i++) {\n"
        "    $('#tab-' + i).setAttribute('aria-selected', String(i === k)); $('#panel-' + i).hidden = i !== k;\n  }\n}\n"
        "for (let i = 1; i <= 3; i++) wire('#tab-' + i, 'click', () => show(i));"
    )
    cases = [
        make_case(
            f"Open the '{names[1]}' tab",
            f"Its panel shows '{texts[1]}'",
            [click(f'role=tab[name="{names[1]}"]')],
            [{"target": "#panel-2", "text": texts[1]}, {"target": "#tab-2[aria-selected=true]", "count": 1}],
        ),
        make_case(
            f"Open the '{names[2]}' tab",
            "Its panel shows and the first panel hides",
            [click("#tab-3")],
            [{"target": "#panel-3", "visible": True}, {"target": "#panel-1", "visible": False}],
        ),
        make_case(
            f"Open '{names[2]}', then '{names[1]}'",
            f"The '{names[1]}' panel shows",
            [click("#tab-3"), click("#tab-2")],
            [{"target": "#panel-2", "visible": True}, {"target": "#tab-2[aria-selected=true]", "count": 1}],
        ),
    ]
    instruction = (
        f"three tabs '{names[0]}', '{names[1]}', '{names[2]}' (role tab, ids tab-1..tab-3, aria-selected on the "
        f"active one) switching panels (ids panel-1..panel-3) that say '{texts[0]}', '{texts[1]}', '{texts[2]}'; "
        "only the active panel is visible"
    )
    return Built(body, js, cases, instruction)


def modal(ctx: Ctx) -> Built:
    rng = ctx.rng
    label, who = rng.choice(("Subscribe", "Join the list", "Get updates")), rng.choice(WORDS)
    body = (
        f'<button id="open-modal">{label}</button><p id="result" role="status"></p>'
        '<div id="modal" role="dialog" aria-modal="true" aria-labelledby="modal-title" hidden>'
        f'<h2 id="modal-title">{label}</h2><input id="modal-name" placeholder="Your name" aria-label="Your name">'
        '<button id="confirm-modal">Confirm</button> <button id="close-modal">Cancel</button></div>'
    )
    js = (
        "const close = msg => { $('#modal').hidden = true; $('#result').textContent = msg; };\n"
        "wire('#open-modal', 'click', () => { $('#modal').hidden = false; $('#modal-name').focus(); });\n"
        "wire('#confirm-modal', 'click', () => close('Confirmed: ' + ($('#modal-name').value.trim() || 'guest')));\n"
        "wire('#close-modal', 'click', () => close('Cancelled'));\n"
        "wire('#modal', 'keydown', e => { if (e.key === 'Escape') close('Cancelled'); });"
    )
    opened = [click(f'role=button[name="{label}"]')]
    cases = [
        make_case(f"Click '{label}'", "A dialog opens", opened, [{"target": "#modal", "visible": True}]),
        make_case(
            f"Open the dialog, enter '{who}' and confirm",
            f"It closes and the page says 'Confirmed: {who}'",
            opened + [type_into("#modal-name", who), click("#confirm-modal")],
            [{"target": "#result", "text": f"Confirmed: {who}"}],
        ),
        make_case(
            "Open the dialog and click Cancel",
            "It closes and the page says 'Cancelled'",
            opened + [click("#close-modal")],
            [{"target": "#modal", "visible": False}, {"target": "#result", "text": "Cancelled"}],
        ),
        make_case(
            "Open the dialog and press Escape",
            "It closes and the page says 'Cancelled'",
            opened + [press("#modal-name", "Escape")],
            [{"target": "#modal", "visible": False}, {"target": "#result", "text": "Cancelled"}],
        ),
    ]
    instruction = (
        f"a '{label}' button (id open-modal) opening a dialog (id modal, role dialog) with a name input (id "
        "modal-name), Confirm (id confirm-modal) and Cancel (id close-modal) buttons; Confirm closes it and shows "
        "'Confirmed: NAME' (id result), Cancel or Escape closes it and shows 'Cancelled'"
    )
    return Built(body, js, cases, instruction)


def accordion(ctx: Ctx) -> Built:
    rng = ctx.rng
    names, texts = pick_topics(rng)
    body = "".join(
        f'<h3><button id="acc-h-{i}" aria-expanded="false" aria-controls="acc-p-{i}">{n}</button></h3>'
        f'<div id="acc-p-{i}" hidden><p>{t}</p></div>'
        for i, (n, t) in enumerate(zip(names, texts), 1)
    )
    js = (
        "function toggle(k) {\n  for (let i = 1; i <= 3; i++) {\n"
        "    const open = i === k && $('#acc-p-' + i).hidden;\n"
        "    $('#acc-p-' + i).hidden = !open; $('#acc-h-' + i).setAttribute('aria-expanded', String(open));\n  }\n}\n"
        "for (let i = 1; i <= 3; i++) wire('#acc-h-' + i, 'click', () => toggle(i));"
    )
    cases = [
        make_case(
            f"Expand '{names[0]}'",
            f"It shows '{texts[0]}'",
            [click("#acc-h-1")],
            [{"target": "#acc-p-1", "text": texts[0]}, {"target": "#acc-h-1[aria-expanded=true]", "count": 1}],
        ),
        make_case(
            f"Expand '{names[1]}'",
            f"It shows '{texts[1]}'",
            [click(f'role=button[name="{names[1]}"]')],
            [{"target": "#acc-p-2", "visible": True}],
        ),
        make_case(
            f"Expand '{names[0]}', then '{names[1]}'",
            "Only the second section is open",
            [click("#acc-h-1"), click("#acc-h-2")],
            [{"target": "#acc-p-2", "visible": True}, {"target": "#acc-p-1", "visible": False}],
        ),
    ]
    instruction = (
        f"an accordion with sections '{names[0]}', '{names[1]}', '{names[2]}': header buttons (ids acc-h-1..acc-h-3, "
        "aria-expanded) toggle panels (ids acc-p-1..acc-p-3) that are hidden at first; opening one closes the others"
    )
    return Built(body, js, cases, instruction)
