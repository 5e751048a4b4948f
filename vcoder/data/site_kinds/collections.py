"""Site kinds over a collection: search, category filters, shopping cart. Builders follow
:mod:`vcoder.data.site_kinds.base`."""

from __future__ import annotations

import json

from vcoder.data.site_kinds.base import (
    Built,
    Ctx,
    by_label,
    by_role,
    by_text,
    click,
    count,
    in_,
    make_case,
    shows,
    type_into,
    visible,
)
from vcoder.data.site_kinds.controls import exact

_BOOKS = (
    "Moby Dick",
    "Emma",
    "Dracula",
    "Ulysses",
    "Beloved",
    "Rebecca",
    "Middlemarch",
    "Frankenstein",
    "Persuasion",
    "Walden",
    "Candide",
    "Dubliners",
    "Siddhartha",
    "Ivanhoe",
)
_FOODS = {
    "Fruit": ("Apples", "Bananas", "Cherries", "Plums", "Mangoes"),
    "Vegetables": ("Carrots", "Leeks", "Spinach", "Onions", "Potatoes"),
    "Dairy": ("Butter", "Yogurt", "Cheddar", "Cream", "Milk"),
}
_DECOY = {"Fruit": "Orchard", "Vegetables": "Greens", "Dairy": "Milky things"}
PRODUCTS = (
    ("Notebook", 450),
    ("Pencil set", 325),
    ("Desk lamp", 1999),
    ("Mug", 799),
    ("Backpack", 3450),
    ("Stapler", 1275),
    ("Scissors", 550),
    ("Calendar", 1100),
    ("Water bottle", 1450),
    ("Sticky notes", 275),
    ("Headphones", 4999),
    ("Umbrella", 1625),
    ("Wall clock", 2250),
    ("Tote bag", 925),
)


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


def search(ctx: Ctx) -> Built:
    rng = ctx.rng
    books = rng.sample(_BOOKS, 8)
    letters = rng.choice(("e", "an", "er", "o", "ar", "ie"))
    hits = [b for b in books if letters in b.lower()]
    while not 0 < len(hits) < len(books):
        letters = rng.choice("abcdeilmnorstuvw")
        hits = [b for b in books if letters in b.lower()]
    field = ctx.label("Search", "Find")
    body = f'<label for="q">{field}</label><input id="q" type="search"><ul id="list"></ul><p id="n"></p>'
    js = (
        f"const books = {json.dumps(books)};\nconst show = () => {{\n  const q = $('#q').value.trim().toLowerCase();\n"
        "  const hits = books.filter(b => b.toLowerCase().includes(q));\n"
        "  $('#list').innerHTML = hits.map(b => `<li>${b}</li>`).join('');\n"
        "  $('#n').textContent = hits.length ? `Results: ${hits.length}` : 'No results';\n};\n"
        "$('#q').oninput = show;\nshow();"
    )
    box = by_label("Search")
    miss = next(b for b in books if b not in hits)
    cases = [
        make_case(
            f"Type '{letters}' in the search field",
            f"{len(hits)} books are listed",
            [type_into(box, letters)],
            [
                count(by_role("listitem"), len(hits)),
                exact(f"Results: {len(hits)}"),
                visible(by_text(miss, exact=True), False),
            ],
        ),
        make_case(
            "Type 'zzz' in the search field",
            "Nothing is listed and it says 'No results'",
            [type_into(box, "zzz")],
            [count(by_role("listitem"), 0), shows("No results")],
        ),
        make_case(
            f"Type '{letters}', then clear the field",
            "All 8 books are listed again",
            [type_into(box, letters), type_into(box, "")],
            [count(by_role("listitem"), 8), exact("Results: 8")],
        ),
    ]
    request = (
        f"listing these books, each a list item: {', '.join(books)}. A search field labelled 'Search' filters the "
        "list as the user types (case-insensitive, any part of the title); below the list show 'Results: N', or "
        "'No results' when nothing matches."
    )
    return Built(body, js, cases, request)


def filters(ctx: Ctx) -> Built:
    rng = ctx.rng
    cats = list(_FOODS)
    foods = [(c, f) for c in cats for f in rng.sample(_FOODS[c], rng.randint(2, 3))]
    rng.shuffle(foods)
    pick = rng.choice(cats)
    other = rng.choice([c for c in cats if c != pick])
    names = {c: ctx.label(c, _DECOY[c]) if c == pick else c for c in cats}
    chips = "".join(f'<button data-c="{c}" aria-pressed="false">{names.get(c, c)}</button> ' for c in ["All", *cats])
    body = f'<div>{chips}</div><ul id="list"></ul>'
    js = (
        f"const foods = {json.dumps(foods)};\nconst show = cat => {{\n"
        "  $('#list').innerHTML = foods.filter(([c]) => cat === 'All' || c === cat).map(([c, f]) => `<li>${f}</li>`)"
        ".join('');\n  document.querySelectorAll('[data-c]').forEach(b => b.setAttribute('aria-pressed',"
        " String(b.dataset.c === cat)));\n};\n"
        "document.querySelectorAll('[data-c]').forEach(b => b.onclick = () => show(b.dataset.c));\nshow('All');"
    )
    n = {c: sum(1 for k, _ in foods if k == c) for c in cats}
    outsider = next(f for c, f in foods if c != pick)
    chip = lambda c: click(by_role("button", c, exact=True))  # noqa: E731
    cases = [
        make_case(
            f"Click '{pick}'",
            f"Only the {n[pick]} {pick.lower()} items are listed",
            [chip(pick)],
            [
                count(by_role("listitem"), n[pick]),
                visible(by_text(outsider, exact=True), False),
                count(by_role("button", pick, exact=True, pressed=True), 1),
            ],
        ),
        make_case(
            f"Click '{other}'",
            f"Only the {n[other]} {other.lower()} items are listed",
            [chip(other)],
            [count(by_role("listitem"), n[other])],
        ),
        make_case(
            f"Click '{pick}', then 'All'",
            "Every item is listed again",
            [chip(pick), chip("All")],
            [count(by_role("listitem"), len(foods)), count(by_role("button", "All", pressed=True), 1)],
        ),
    ]
    listing = "; ".join(f"{c}: {', '.join(f for k, f in foods if k == c)}" for c in cats)
    request = (
        f"listing groceries as list items, in this order: {', '.join(f for _, f in foods)} ({listing}). Filter "
        f"buttons 'All', {', '.join(repr(c) for c in cats)} show only that category (all at the start); the "
        "active filter button is marked pressed (aria-pressed)."
    )
    return Built(body, js, cases, request)


def cart(ctx: Ctx) -> Built:
    rng = ctx.rng
    products = rng.sample(PRODUCTS, 3)
    (a, pa), (b, pb) = products[0], products[1]
    add = ctx.label("Add to cart", "Buy")
    rows = "".join(
        f'<li>{p} &mdash; {money(c)} <button data-p="{i}">{add}</button></li>' for i, (p, c) in enumerate(products)
    )
    body = (
        f'<h2>Products</h2><ul>{rows}</ul><h2>Your cart</h2><ul id="cart"></ul>'
        '<p id="items"></p><p id="total"></p><button id="clear">Clear cart</button>'
    )
    js = (
        f"const products = {json.dumps(products)}, qty = products.map(() => 0);\n"
        "const money = c => '$' + Math.floor(c / 100) + '.' + String(c % 100).padStart(2, '0');\n"
        "const show = () => {\n  $('#cart').innerHTML = '';\n  products.forEach(([p, c], i) => { if (!qty[i]) return;\n"
        "    const li = document.createElement('li'), rm = document.createElement('button');\n"
        "    li.textContent = `${p} x ${qty[i]} `; rm.textContent = 'Remove'; rm.onclick = () => { qty[i] = 0; show(); };\n"
        "    li.append(rm); $('#cart').append(li); });\n"
        "  $('#items').textContent = 'Items: ' + qty.reduce((s, q) => s + q, 0);\n"
        "  $('#total').textContent = 'Total: ' + money(qty.reduce((s, q, i) => s + q * products[i][1], 0));\n};\n"
        "document.querySelectorAll('[data-p]').forEach(b => b.onclick = () => { qty[+b.dataset.p] += 1; show(); });\n"
        "$('#clear').onclick = () => { qty.fill(0); show(); };\nshow();"
    )
    item = by_role("listitem")
    buy = lambda p: click(in_(item, p, by_role("button", "Add to cart")))  # noqa: E731
    cases = [
        make_case(
            f"Add '{a}' to the cart",
            f"It shows 'Total: {money(pa)}'",
            [buy(a)],
            [exact(f"Total: {money(pa)}"), exact("Items: 1")],
        ),
        make_case(
            f"Add '{a}' twice and '{b}' once",
            f"It shows 'Items: 3' and 'Total: {money(2 * pa + pb)}'",
            [buy(a), buy(a), buy(b)],
            [exact("Items: 3"), exact(f"Total: {money(2 * pa + pb)}")],
        ),
        make_case(
            f"Add '{a}' and '{b}', then remove '{a}' from the cart",
            f"It shows 'Total: {money(pb)}'",
            [buy(a), buy(b), click(in_(item, a, by_role("button", "Remove")))],
            [exact(f"Total: {money(pb)}"), exact("Items: 1")],
        ),
    ]
    listing = ", ".join(f"{p} ({money(c)})" for p, c in products)
    request = (
        f"for a small shop selling {listing}. Each product is a list item with an 'Add to cart' button. A cart "
        "section lists what was added, one list item per product with its quantity and a 'Remove' button, and "
        "shows 'Items: N' and 'Total: $X.XX'; a 'Clear cart' button empties it."
    )
    return Built(body, js, cases, request)
