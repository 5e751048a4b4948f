"""vcoder's hermetic multi-page sites, in the spirit of WebArena's (Zhou et al., 2024): a shop, an admin, a forum
and a repository browser, generated from seeded data as static files.

Each site is ONE document whose routes live in the fragment (``index.html#/product/3``), so every move stays inside
the document the GUI agent's guard watches (leaving it ends an episode) and ``go back`` is the tab's own history.
Its state (cart, orders, votes, comments, stars, issues, edited records) is kept in ``localStorage`` under
``vcoder:<site>``, so a task is checked on the final page (``program_html``). Every episode opens the site at a
fresh origin of the rendering pool, so its storage starts empty: the state is reset per episode by construction.

WebArena names its sites by placeholders in URLs (``__SHOPPING__``); here ``SITES`` maps vcoder's placeholders
(``__SHOP__``, ``__ADMIN__``, ``__FORUM__``, ``__REPO__``) to the site names.

Example:
    >>> files = site_files("shop", seed=0)
    >>> sorted(files)
    ['index.html', 'runtime.js', 'shop.js']
    >>> build_state("forum", seed=3) == build_state("forum", seed=3)
    True
"""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any

from vcoder.suggest import did_you_mean

#: site name -> its URL placeholder in task configs (WebArena writes ``__SHOPPING__``, ``__GITLAB__``, ...)
SITES = {"shop": "__SHOP__", "admin": "__ADMIN__", "forum": "__FORUM__", "repo": "__REPO__"}
ENTRY = "index.html"

_ADJ = ["Red", "Compact", "Classic", "Smart", "Organic", "Bamboo", "Steel", "Wireless", "Vintage", "Cozy", "Sport"]
_NOUN = ["Lamp", "Kettle", "Backpack", "Mug", "Headphones", "Blanket", "Chair", "Notebook", "Bottle", "Speaker"]
# the pools below are larger than one instance needs, so that splits can hold different entities (issue 35): an
# instance takes 5 categories, 4 groups, 4 forums and 4 projects of them
_CATS = [
    "Home", "Kitchen", "Outdoor", "Electronics", "Office", "Garden", "Toys", "Sports", "Books", "Music", "Travel",
    "Bath", "Pets", "Crafts",
]  # fmt: skip
_GROUPS = [
    "General", "Wholesale", "Retailer", "VIP", "Partner", "Staff", "Student", "Trade", "Gold", "Silver", "Bronze",
    "Startup", "Nonprofit", "Family",
]  # fmt: skip
_FIRST = ["Ada", "Bilal", "Chen", "Dana", "Emil", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kira", "Luis"]
_LAST = ["Moreau", "Okafor", "Silva", "Tanaka", "Weber", "Novak", "Haddad", "Berg"]
_FORUMS = [
    "books", "cooking", "gadgets", "travel", "music", "gardening", "cycling", "movies", "chess", "coffee", "running",
    "science", "history", "photography", "woodwork", "languages",
]  # fmt: skip
_TOPICS = [
    "sourdough", "night trains", "e-readers", "cast iron", "hiking boots", "film cameras", "tea", "maps", "board games",
    "vinyl records", "fountain pens", "houseplants", "sea kayaks", "podcasts", "jigsaw puzzles", "bread machines",
]  # fmt: skip
_FORMS = ["Why I switched to {}", "Best {} of the year?", "A beginner's guide to {}", "Ask me about {}"]
_REPOS = [
    f"{a}-{b}"
    for a in ("kv", "tiny", "pixel", "task", "json", "geo", "log", "auth")
    for b in ("store", "http", "diff", "queue", "lint", "tools")
]
_LICENSES = [
    "MIT License", "Apache License 2.0", "BSD 3-Clause License", "BSD 2-Clause License", "GNU GPL v3", "GNU LGPL v2.1",
    "Mozilla Public License 2.0", "ISC License", "The Unlicense", "Eclipse Public License 2.0", "Boost Software License",
    "zlib License",
]  # fmt: skip
_ISSUES = [
    "Crash on empty input",
    "Add a --verbose flag",
    "Docs: install steps",
    "Slow on large files",
    "Support Windows paths",
    "Typo in README",
    "Memory leak in cache",
    "Flaky test in CI",
    "Broken link in docs",
    "Add a changelog",
    "Unicode names fail",
    "Config file ignored",
]


def _shop(rng: random.Random) -> dict[str, Any]:
    names = rng.sample([f"{a} {n}" for a in _ADJ for n in _NOUN], 12)
    cats = rng.sample(_CATS, 5)
    products = [
        {
            "id": i + 1,
            "name": name,
            "category": rng.choice(cats),
            "price": rng.randrange(500, 20000, 5),
            "rating": rng.randint(1, 5),
            "description": f"A {name.lower()} for everyday use.",
        }
        for i, name in enumerate(names)
    ]
    return {
        "products": products,
        "categories": sorted({p["category"] for p in products}),
        "cart": [],
        "orders": [],
        "next_order": 1001,
    }


def _admin(rng: random.Random) -> dict[str, Any]:
    people = rng.sample([f"{f} {last}" for f in _FIRST for last in _LAST], 8)
    groups = rng.sample(_GROUPS, 4)
    customers = [
        {"id": i + 1, "name": n, "email": n.lower().replace(" ", ".") + "@example.com", "group": rng.choice(groups)}
        for i, n in enumerate(people)
    ]
    items = rng.sample([f"{a} {n}" for a in _ADJ for n in _NOUN], 6)
    products = [
        {
            "id": i + 1,
            "sku": f"SKU-{100 + i}",
            "name": n,
            "price": rng.randrange(500, 20000, 5),
            "stock": rng.randint(0, 60),
        }
        for i, n in enumerate(items)
    ]
    return {"customers": customers, "groups": groups, "products": products}


def _forum(rng: random.Random) -> dict[str, Any]:
    titles = rng.sample([f.format(t) for f in _FORMS for t in _TOPICS], 10)
    forums = rng.sample(_FORUMS, 4)
    people = [f.lower() for f in _FIRST]
    posts = [
        {
            "id": i + 1,
            "forum": forums[i % len(forums)],
            "title": t,
            "author": rng.choice(people),
            "score": rng.randint(0, 60),
            "body": f"Thoughts on {t.lower()}.",
            "comments": [{"author": rng.choice(people), "text": "Agreed."} for _ in range(rng.randint(0, 2))],
        }
        for i, t in enumerate(titles)
    ]
    return {"forums": forums, "posts": posts, "votes": {}, "next_post": len(posts) + 1}


def _repo(rng: random.Random) -> dict[str, Any]:
    projects = []
    for name in rng.sample(_REPOS, 4):
        issues = [
            {
                "iid": k + 1,
                "title": t,
                "label": rng.choice(["bug", "feature", "docs"]),
                "state": rng.choice(["opened", "opened", "closed"]),
            }
            for k, t in enumerate(rng.sample(_ISSUES, rng.randint(2, 7)))
        ]
        files = {
            "README.md": f"# {name}\n\nversion {rng.randint(1, 4)}.{rng.randint(0, 9)}",
            "LICENSE": rng.choice(_LICENSES),
            f"src/{name.replace('-', '_')}.py": f"def main():\n    return {rng.randint(1, 99)}\n",
        }
        projects.append(
            {
                "name": name,
                "owner": rng.choice(_FIRST).lower(),
                "stars": rng.randint(0, 300),
                "starred": False,
                "description": f"A small {name.replace('-', ' ')} library.",
                "files": files,
                "issues": issues,
            }
        )
    return {"projects": projects}


_BUILDERS = {"shop": _shop, "admin": _admin, "forum": _forum, "repo": _repo}


def check_site(name: str) -> str:
    """``name`` if it is a site; a one-line error with a did-you-mean otherwise."""
    if name not in _BUILDERS:
        raise ValueError(f"unknown site {name!r}{did_you_mean(name, _BUILDERS)}; sites: {', '.join(_BUILDERS)}")
    return name


def build_state(name: str, *, seed: int) -> dict[str, Any]:
    """The initial state of site ``name`` built from ``seed`` (pure; equal seeds give equal states)."""
    return _BUILDERS[check_site(name)](random.Random(f"{name}:{seed}"))


def _script(name: str) -> str:
    return resources.files("vcoder.browse.pages").joinpath(name).read_text(encoding="utf-8")


def site_files(name: str, *, seed: int) -> dict[str, str]:
    """The static files of site ``name`` with seed ``seed``: ``index.html`` (the seed state inline),
    ``runtime.js`` and the site's script. Serve them with ``open_page(files=..., entry="index.html")``."""
    state = build_state(name, seed=seed)
    seed_json = json.dumps({"name": name, "state": state}).replace("</", "<\\/")
    html = (
        "<!doctype html><html><head><meta charset='utf-8'><title>site</title><style>"
        "body{font:15px sans-serif;margin:0}header{background:#234;color:#fff;padding:8px 16px}"
        "header a{color:#cdf;margin-left:12px}main{padding:8px 16px}td,th{padding:2px 8px;text-align:left}"
        f"</style><script>window.SITE_SEED = {seed_json};</script>"
        f"<script src='runtime.js'></script><script src='{name}.js'></script></head>"
        "<body><div id='app'></div></body></html>"
    )
    return {ENTRY: html, "runtime.js": _script("runtime.js"), f"{name}.js": _script(f"{name}.js")}
