"""Every template of ``vcoder.browse.generate`` checks its whole intent: on the real hermetic site, through the real
episode and evaluators, the task's own plan scores 1 and a plausible wrong plan (the wrong project, product,
customer, post, value or answer) scores 0."""

from __future__ import annotations

import pytest

from tests.browse.conftest import run_episode
from vcoder.browse.generate import TEMPLATES, generate_tasks
from vcoder.browse.sites import build_state
from vcoder.browse.solver import ScriptedSolver
from vcoder.browse.template_kit import edit_plan as _edit_plan
from vcoder.browse.template_kit import money as _money

SEED = 0


def _exit(message: str = "") -> dict:
    return {"do": "exit", "message": message}


def _click(text: str) -> dict:
    return {"do": "click", "text": text}


def _other(items, *, but):
    """The first item that is not ``but`` (compared whole)."""
    return next(x for x in items if x != but)


def _by(items, key, value):
    return next(x for x in items if x[key] == value)


# -- shop
def _price(t, st):
    p = _by(st["products"], "name", t.instantiation_dict["product"])
    o = next(x for x in st["products"] if _money(p["price"]) not in _money(x["price"]))
    go = [{"do": "search", "field": "Search products", "text": o["name"].split()[-1]}, _click(o["name"])]
    return {"another product's price": [*go, _exit(_money(o["price"]))]}


def _category(t, st):
    return {"another category": [_click(_other(st["categories"], but=t.instantiation_dict["category"])), _exit()]}


def _cart_plan(p, qty):
    return [_click(p["category"]), _click(p["name"]), {"do": "type", "field": "Qty", "text": str(qty)}]


def _add_to_cart(t, st):
    p, qty = _by(st["products"], "name", t.instantiation_dict["product"]), t.instantiation_dict["qty"]
    o = _other(st["products"], but=p)
    return {
        "the wrong quantity": [*_cart_plan(p, 5 - qty), _click("Add to Cart"), _exit()],
        "another product": [*_cart_plan(o, qty), _click("Add to Cart"), _exit()],
        "another quantity of it and the quantity of another": [
            *_cart_plan(p, 1),
            _click("Add to Cart"),
            _click("Shop"),
            *_cart_plan(o, qty),
            _click("Add to Cart"),
            _exit(),
        ],
    }


def _buy(t, st):
    o = _other(st["products"], but=_by(st["products"], "name", t.instantiation_dict["product"]))
    plan = [{"do": "search", "field": "Search products", "text": o["name"]}, _click(o["name"]), _click("Add to Cart")]
    return {"another product": [*plan, _click("Place Order"), _exit()]}


# -- admin
def _customer_group(t, st):
    c = _by(st["customers"], "name", t.instantiation_dict["name"])
    o = next(x for x in st["customers"] if x["group"] != c["group"])
    return {"another customer's group": [_click("Customers"), _exit(o["group"])]}


def _group_list(t, st):
    g = _other(sorted({c["group"] for c in st["customers"]}), but=t.instantiation_dict["group"])
    return {"another group": [_click("Customers"), _click(g), _exit()]}


def _change_group(t, st):
    c, group = _by(st["customers"], "name", t.instantiation_dict["name"]), t.instantiation_dict["group"]
    o = _other(st["customers"], but=c)
    wrong_group = next(g for g in st["groups"] if g not in (group, c["group"]))
    return {
        "another group": _edit_plan(
            "Customers", c["name"], {"do": "select", "field": "Group", "option": wrong_group}, "Save Customer"
        ),
        "another customer": _edit_plan(
            "Customers", o["name"], {"do": "select", "field": "Group", "option": group}, "Save Customer"
        ),
    }


def _stock(t, st):
    p, n = _by(st["products"], "name", t.instantiation_dict["product"]), t.instantiation_dict["n"]
    o = _other(st["products"], but=p)
    return {
        "a value with the right digits": _edit_plan(
            "Products", p["name"], {"do": "type", "field": "Stock", "text": f"{n}0" if n else "1"}, "Save Product"
        ),
        "another product": _edit_plan(
            "Products", o["name"], {"do": "type", "field": "Stock", "text": str(n)}, "Save Product"
        ),
    }


# -- forum
def _top_post(t, st):
    forum = t.instantiation_dict["forum"]
    titles = [p["title"] for p in st["posts"] if p["forum"] == forum]
    best = t.eval.reference_answers["fuzzy_match"][0]
    return {
        "another post": [_click(f"f/{forum}"), _exit(_other(titles, but=best))],
        "every post of the forum": [_click(f"f/{forum}"), _exit(", ".join(titles))],
    }


def _open_forum(t, st):
    return {"another forum": [_click(f"f/{_other(st['forums'], but=t.instantiation_dict['forum'])}"), _exit()]}


def _upvote(t, st):
    o = _other(st["posts"], but=_by(st["posts"], "title", t.instantiation_dict["title"]))
    return {"another post": [_click(f"f/{o['forum']}"), _click(f"Upvote {o['title']}"), _exit()]}


def _comment(t, st):
    o = _other(st["posts"], but=_by(st["posts"], "title", t.instantiation_dict["title"]))
    text = t.instantiation_dict["text"]
    plan = [_click(f"f/{o['forum']}"), _click(o["title"]), {"do": "type", "field": "Comment", "text": text}]
    return {"another post": [*plan, _click("Post Comment"), _exit()]}


# -- repo
def _project(st, name):
    return _by(st["projects"], "name", name)


def _open(p):
    return _click(f"{p['owner']} / {p['name']}")


def _license(t, st):
    p = _project(st, t.instantiation_dict["project"])
    licences = ["MIT License", "Apache License 2.0", "BSD 3-Clause License"]
    go = [_open(p), _click("LICENSE")]
    return {
        "another licence": [*go, _exit(_other(licences, but=p["files"]["LICENSE"]))],
        "every licence": [*go, _exit("MIT License, Apache License 2.0 or BSD 3-Clause License")],
    }


def _open_issues(t, st):
    p = _project(st, t.instantiation_dict["project"])
    n = sum(i["state"] == "opened" for i in p["issues"])
    go = [_open(p), _click("Issues")]
    return {"one more": [*go, _exit(str(n + 1))], "a number holding the digit": [*go, _exit(f"1{n}")]}


def _readme(t, st):
    o = _other(st["projects"], but=_project(st, t.instantiation_dict["project"]))
    return {"another project's README": [_open(o), _click("README.md"), _exit()]}


def _star(t, st):
    o = _other(st["projects"], but=_project(st, t.instantiation_dict["project"]))
    return {"another project": [_open(o), _click("Star"), _exit()]}


def _new_issue(t, st):
    o = _other(st["projects"], but=_project(st, t.instantiation_dict["project"]))
    title = t.instantiation_dict["title"]
    plan = [_open(o), _click("New issue"), {"do": "type", "field": "Title", "text": title}]
    return {"the issue in another project": [*plan, _click("Create issue"), _exit()]}


WRONG = {
    f.__name__: f
    for f in (
        _price,
        _category,
        _add_to_cart,
        _buy,
        _customer_group,
        _group_list,
        _change_group,
        _stock,
        _top_post,
        _open_forum,
        _upvote,
        _comment,
        _license,
        _open_issues,
        _readme,
        _star,
        _new_issue,
    )
}
ALL = [(site, make.__name__) for site, makers in TEMPLATES.items() for make in makers]


def test_every_template_has_a_wrong_plan():
    assert sorted(name for _, name in ALL) == sorted(WRONG)


@pytest.mark.browser
@pytest.mark.timeout(600)
@pytest.mark.parametrize("site, template", ALL)
def test_the_right_plan_scores_one_and_wrong_plans_zero(pool, site, template):
    index = [m.__name__ for m in TEMPLATES[site]].index(template)
    task = generate_tasks(site, seed=SEED, n=len(TEMPLATES[site]))[index]
    right = run_episode(task, ScriptedSolver(task.solution), pool=pool)
    assert right.evaluation.score == 1.0, (task.intent, right.evaluation, [s.action for s in right.steps])
    for what, plan in WRONG[template](task, build_state(site, seed=task.site_seed)).items():
        wrong = run_episode(task, ScriptedSolver(plan), pool=pool)
        acted = [s.action for s in wrong.steps]
        assert not any(a.startswith("exit(") and "N/A: no element" in a for a in acted), (what, acted)  # it ran
        assert wrong.evaluation.score == 0.0, (task.intent, what, wrong.evaluation, acted)
