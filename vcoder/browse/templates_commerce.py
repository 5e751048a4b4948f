"""The shop's and the admin's task templates (see :mod:`vcoder.browse.generate`): prices, categories, the cart and
orders; customer groups and stock.
"""

from __future__ import annotations

from vcoder.browse.tasks import TaskEval
from vcoder.browse.template_kit import Make, edit_plan, html_eval, money, string_eval


# -- shop
def _price(rng, st):
    p = rng.choice(st["products"])
    plan = [
        {"do": "search", "field": "Search products", "text": p["name"].split()[-1]},
        {"do": "click", "text": p["name"]},
        {"do": "exit", "message": money(p["price"])},
    ]
    return (
        "What is the price of {{product}}?",
        {"product": p["name"]},
        "/",
        string_eval(must_include=[money(p["price"])]),
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
    ev = html_eval(
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
    ev = html_eval(
        "__SHOP__/#/orders",
        "document.querySelector('#orders tr:last-child td:last-child').outerText",
        exact_match=f"{p['name']} x1",
    )
    return "Buy one {{product}}", {"product": p["name"]}, "/", ev, plan


# -- admin
def _customer_group(rng, st):
    c = rng.choice(st["customers"])
    plan = [{"do": "click", "text": "Customers"}, {"do": "exit", "message": c["group"]}]
    return "Which customer group is {{name}} in?", {"name": c["name"]}, "/", string_eval(exact_match=c["group"]), plan


def _change_group(rng, st):
    c = rng.choice(st["customers"])
    group = rng.choice([g for g in st["groups"] if g != c["group"]])
    plan = edit_plan("Customers", c["name"], {"do": "select", "field": "Group", "option": group}, "Save Customer")
    ev = html_eval(
        "__ADMIN__/#/customers",
        "document.querySelector('#customers').outerText",
        must_include=[f"{c['name']}\t{c['email']}\t{group}"],
    )
    return "Move customer {{name}} to the {{group}} group", {"name": c["name"], "group": group}, "/", ev, plan


def _stock(rng, st):
    p = rng.choice(st["products"])
    n = rng.choice([x for x in (0, 5, 10, 25, 50, 100) if x != p["stock"]])
    plan = edit_plan("Products", p["name"], {"do": "type", "field": "Stock", "text": str(n)}, "Save Product")
    ev = html_eval(
        "last",
        "document.querySelector('#products').outerText",
        must_include=[f"{p['name']}\t{money(p['price'])}\t{n}\tEdit"],  # the whole stock cell: 5 is not 50
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


#: the shop's templates, in the order tasks take them
SHOP: tuple[Make, ...] = (_price, _category, _add_to_cart, _buy)
#: the admin's templates
ADMIN: tuple[Make, ...] = (_customer_group, _group_list, _change_group, _stock)
