"""Generated tasks: per site, templates instantiated from the site's seeded state, each with WebArena evaluators and
a scripted plan (:mod:`vcoder.browse.solver`).

Templates cover the three evaluator types on every site: questions answered from pages (``string_match``:
``exact_match``, ``must_include``, ``fuzzy_match``), places to reach (``url_match``) and changes to make
(``program_html`` on the final page or a route of the site). The intents follow WebArena's templates in spirit
("What is the price of ...", "Add ... to my cart", "Upvote the post ...").

Example:
    >>> tasks = generate_tasks("shop", seed=0, n=6)
    >>> sorted({t.eval.eval_types[0] for t in tasks}) == ["program_html", "string_match", "url_match"]
    True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from vcoder.browse.sites import SITES, build_state, check_site
from vcoder.browse.tasks import TaskEval, WebTask

Make = Callable[[random.Random, dict[str, Any]], tuple[str, dict[str, Any], str, TaskEval, list[dict[str, Any]]]]


#: the texts typed by the reply and new-issue templates (more than a split needs: splits keep answers apart)
_REPLIES = [
    "Great post!", "Thanks for sharing.", "I disagree.", "Very helpful.", "Well said.", "Interesting idea.",
    "Any sources?", "Same here.", "Nice photos!", "Count me in.", "Good point.", "Not convinced.",
]  # fmt: skip
_NEW_ISSUES = [
    "Update the changelog", "Add type hints", "Crash on start", "Document the API", "Pin the dependencies",
    "Add a logo", "Fix the build badge", "Support Python 3.13", "Add examples", "Speed up the tests",
    "Rename the main module", "Add a config file",
]  # fmt: skip


def _money(cents: int) -> str:
    return f"${cents / 100:.2f}"


def _html(url: str, locator: str, **required: Any) -> TaskEval:
    return TaskEval(("program_html",), program_html=({"url": url, "locator": locator, "required_contents": required},))


def _string(**answers: Any) -> TaskEval:
    return TaskEval(("string_match",), reference_answers=answers)


# -- shop
def _price(rng, st):
    p = rng.choice(st["products"])
    plan = [
        {"do": "search", "field": "Search products", "text": p["name"].split()[-1]},
        {"do": "click", "text": p["name"]},
        {"do": "exit", "message": _money(p["price"])},
    ]
    return (
        "What is the price of {{product}}?",
        {"product": p["name"]},
        "/",
        _string(must_include=[_money(p["price"])]),
        plan,
    )


def _category(rng, st):
    c = rng.choice(st["categories"])
    plan = [{"do": "click", "text": c}, {"do": "exit", "message": ""}]
    return (
        "Show me the products in the {{category}} category",
        {"category": c},
        "/",
        TaskEval(("url_match",), reference_url=f"__SHOP__/#/category/{c}"),
        plan,
    )


def _add_to_cart(rng, st):
    p, qty = rng.choice(st["products"]), rng.randint(2, 3)
    plan = [
        {"do": "click", "text": p["category"]},
        {"do": "click", "text": p["name"]},
        {"do": "type", "field": "Qty", "text": str(qty)},
        {"do": "click", "text": "Add to Cart"},
        {"do": "exit", "message": ""},
    ]
    # the product and its quantity in one row (a cell boundary after the quantity: 2 is not 23)
    ev = _html(
        "__SHOP__/#/cart", "document.querySelector('#cart').outerText", must_include=[f"{p['name']}\tQty: {qty}\t"]
    )
    return "Add {{qty}} of {{product}} to my cart", {"qty": qty, "product": p["name"]}, "/", ev, plan


def _buy(rng, st):
    p = rng.choice(st["products"])
    plan = [
        {"do": "search", "field": "Search products", "text": p["name"]},
        {"do": "click", "text": p["name"]},
        {"do": "click", "text": "Add to Cart"},
        {"do": "click", "text": "Place Order"},
        {"do": "exit", "message": ""},
    ]
    # the latest order is exactly one of the product (x1, not x12 or with other lines)
    ev = _html(
        "__SHOP__/#/orders",
        "document.querySelector('#orders tr:last-child td:last-child').outerText",
        exact_match=f"{p['name']} x1",
    )
    return "Buy one {{product}}", {"product": p["name"]}, "/", ev, plan


# -- admin
def _edit_plan(section: str, name: str, change: dict[str, Any], save: str) -> list[dict[str, Any]]:
    """The admin's edit flow: open ``section``, press "Edit <name>", make ``change`` in the form, press ``save``."""
    return [
        {"do": "click", "text": section},
        {"do": "click", "text": f"Edit {name}"},
        change,
        {"do": "click", "text": save},
        {"do": "exit", "message": ""},
    ]


def _customer_group(rng, st):
    c = rng.choice(st["customers"])
    plan = [{"do": "click", "text": "Customers"}, {"do": "exit", "message": c["group"]}]
    return "Which customer group is {{name}} in?", {"name": c["name"]}, "/", _string(exact_match=c["group"]), plan


def _change_group(rng, st):
    c = rng.choice(st["customers"])
    group = rng.choice([g for g in st["groups"] if g != c["group"]])
    plan = _edit_plan("Customers", c["name"], {"do": "select", "field": "Group", "option": group}, "Save Customer")
    ev = _html(
        "__ADMIN__/#/customers",
        "document.querySelector('#customers').outerText",
        must_include=[f"{c['name']}\t{c['email']}\t{group}"],
    )
    return "Move customer {{name}} to the {{group}} group", {"name": c["name"], "group": group}, "/", ev, plan


def _stock(rng, st):
    p = rng.choice(st["products"])
    n = rng.choice([x for x in (0, 5, 10, 25, 50, 100) if x != p["stock"]])
    plan = _edit_plan("Products", p["name"], {"do": "type", "field": "Stock", "text": str(n)}, "Save Product")
    ev = _html(
        "last",
        "document.querySelector('#products').outerText",
        must_include=[f"{p['name']}\t{_money(p['price'])}\t{n}\tEdit"],  # the whole stock cell: 5 is not 50
    )
    return "Set the stock of {{product}} to {{n}}", {"product": p["name"], "n": n}, "/", ev, plan


def _group_list(rng, st):
    g = rng.choice(sorted({c["group"] for c in st["customers"]}))
    plan = [{"do": "click", "text": "Customers"}, {"do": "click", "text": g}, {"do": "exit", "message": ""}]
    return (
        "Show the customers of the {{group}} group",
        {"group": g},
        "/",
        TaskEval(("url_match",), reference_url=f"__ADMIN__/#/customers?group={g}"),
        plan,
    )


# -- forum
def _top_post(rng, st):
    f = rng.choice(st["forums"])
    posts = [p for p in st["posts"] if p["forum"] == f]
    best = max(posts, key=lambda p: (p["score"], -p["id"]))
    plan = [{"do": "click", "text": f"f/{f}"}, {"do": "exit", "message": best["title"]}]
    return (
        "Which post in f/{{forum}} has the highest score?",
        {"forum": f},
        "/",
        _string(fuzzy_match=[best["title"]]),
        plan,
    )


def _upvote(rng, st):
    p = rng.choice(st["posts"])
    plan = [
        {"do": "click", "text": f"f/{p['forum']}"},
        {"do": "click", "text": f"Upvote {p['title']}"},
        {"do": "exit", "message": ""},
    ]
    ev = _html(
        f"__FORUM__/#/post/{p['id']}", "document.querySelector('.score').outerText", exact_match=str(p["score"] + 1)
    )
    return 'Upvote the post titled "{{title}}"', {"title": p["title"]}, "/", ev, plan


def _comment(rng, st):
    p = rng.choice(st["posts"])
    text = rng.choice(_REPLIES)
    plan = [
        {"do": "click", "text": f"f/{p['forum']}"},
        {"do": "click", "text": p["title"]},
        {"do": "type", "field": "Comment", "text": text},
        {"do": "click", "text": "Post Comment"},
        {"do": "exit", "message": ""},
    ]
    ev = _html(
        f"__FORUM__/#/post/{p['id']}", "document.querySelector('#comments').outerText", must_include=[f"me: {text}"]
    )
    return 'Reply "{{text}}" to the post "{{title}}"', {"text": text, "title": p["title"]}, "/", ev, plan


def _open_forum(rng, st):
    f = rng.choice(st["forums"])
    plan = [{"do": "click", "text": f"f/{f}"}, {"do": "exit", "message": ""}]
    return (
        "Open the f/{{forum}} forum",
        {"forum": f},
        "/",
        TaskEval(("url_match",), reference_url=f"__FORUM__/#/f/{f}"),
        plan,
    )


# -- repo
def _license(rng, st):
    p = rng.choice(st["projects"])
    plan = [
        {"do": "click", "text": f"{p['owner']} / {p['name']}"},
        {"do": "click", "text": "LICENSE"},
        {"do": "exit", "message": p["files"]["LICENSE"]},
    ]
    return (
        "What license does {{project}} use?",
        {"project": p["name"]},
        "/",
        _string(fuzzy_match=[p["files"]["LICENSE"]]),
        plan,
    )


def _open_issues(rng, st):
    p = rng.choice(st["projects"])
    n = sum(i["state"] == "opened" for i in p["issues"])
    plan = [
        {"do": "click", "text": f"{p['owner']} / {p['name']}"},
        {"do": "click", "text": "Issues"},
        {"do": "exit", "message": str(n)},
    ]
    return (
        "How many open issues does {{project}} have?",
        {"project": p["name"]},
        "/",
        _string(must_include=[str(n)]),
        plan,
    )


def _star(rng, st):
    p = rng.choice(st["projects"])
    plan = [
        {"do": "click", "text": f"{p['owner']} / {p['name']}"},
        {"do": "click", "text": "Star"},
        {"do": "exit", "message": ""},
    ]
    ev = _html(
        f"__REPO__/#/p/{p['name']}",
        "document.querySelector('#stars').outerText",
        exact_match=f"{p['stars'] + 1} stars",
    )
    return "Star the project {{project}}", {"project": p["name"]}, "/", ev, plan


def _new_issue(rng, st):
    p = rng.choice(st["projects"])
    title = rng.choice(_NEW_ISSUES)
    plan = [
        {"do": "click", "text": f"{p['owner']} / {p['name']}"},
        {"do": "click", "text": "New issue"},
        {"do": "type", "field": "Title", "text": title},
        {"do": "click", "text": "Create issue"},
        {"do": "exit", "message": ""},
    ]
    # the issue list of THAT project (an issue opened elsewhere does not count)
    ev = _html(
        f"__REPO__/#/p/{p['name']}/issues",
        "document.querySelector('#issues').outerText",
        must_include=[f"{title} (opened)"],
    )
    return 'Open an issue titled "{{title}}" in {{project}}', {"title": title, "project": p["name"]}, "/", ev, plan


def _readme(rng, st):
    p = rng.choice(st["projects"])
    plan = [
        {"do": "click", "text": f"{p['owner']} / {p['name']}"},
        {"do": "click", "text": "README.md"},
        {"do": "exit", "message": ""},
    ]
    return (
        "Open the README of {{project}}",
        {"project": p["name"]},
        "/",
        TaskEval(("url_match",), reference_url=f"__REPO__/#/p/{p['name']}/blob/README.md"),
        plan,
    )


TEMPLATES: dict[str, tuple[Make, ...]] = {
    "shop": (_price, _category, _add_to_cart, _buy),
    "admin": (_customer_group, _group_list, _change_group, _stock),
    "forum": (_top_post, _open_forum, _upvote, _comment),
    "repo": (_license, _open_issues, _readme, _star, _new_issue),
}


def _fill(template: str, values: dict[str, Any]) -> str:
    for k, v in values.items():
        template = template.replace("{{" + k + "}}", str(v))
    return template


def generate_tasks(site: str, *, seed: int, n: int, site_seed: int = 0, first_id: int = 0) -> list[WebTask]:
    """``n`` tasks on site ``site`` (instance ``site_seed``), templates taken in turn, instances drawn with ``seed``.

    Returns:
        Tasks in WebArena's template with their evaluators and ``solution`` plans; ids ``first_id``, ... (a
        template's instances may repeat when ``n`` is large).
    """
    rng = random.Random(f"{check_site(site)}:{seed}")
    state = build_state(site, seed=site_seed)
    tasks = []
    for k in range(n):
        index = k % len(TEMPLATES[site])
        template, values, route, ev, plan = TEMPLATES[site][index](rng, state)
        tasks.append(
            WebTask(
                sites=(site,),
                task_id=first_id + k,
                start_url=f"{SITES[site]}/#{route}",
                intent=_fill(template, values),
                eval=ev,
                intent_template=template,
                instantiation_dict=values,
                intent_template_id=list(TEMPLATES).index(site) * 100 + index,
                site_seed=site_seed,
                solution=tuple(plan),
                require_reset=any(t != "string_match" for t in ev.eval_types),
            )
        )
    return tasks


def generate_all(
    sites: Sequence[str] = tuple(TEMPLATES), *, seed: int, per_site: int, site_seed: int = 0
) -> list[WebTask]:
    """``per_site`` tasks on each of ``sites``, with ids unique across them."""
    out: list[WebTask] = []
    for site in sites:
        out += generate_tasks(site, seed=seed, n=per_site, site_seed=site_seed, first_id=len(out))
    return out
