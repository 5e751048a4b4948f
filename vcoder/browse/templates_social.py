"""The forum's and the repository browser's task templates (see :mod:`vcoder.browse.generate`): top posts, votes and
replies; licences, issues, stars and READMEs.
"""

from __future__ import annotations

from vcoder.browse.tasks import TaskEval
from vcoder.browse.template_kit import Make, html_eval, string_eval

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
        string_eval(fuzzy_match=[best["title"]]),
        plan,
    )


def _upvote(rng, st):
    p = rng.choice(st["posts"])
    plan = [
        {"do": "click", "text": f"f/{p['forum']}"},
        {"do": "click", "text": f"Upvote {p['title']}"},
        {"do": "exit", "message": ""},
    ]
    ev = html_eval(
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
    ev = html_eval(
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
        string_eval(fuzzy_match=[p["files"]["LICENSE"]]),
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
        string_eval(must_include=[str(n)]),
        plan,
    )


def _star(rng, st):
    p = rng.choice(st["projects"])
    plan = [
        {"do": "click", "text": f"{p['owner']} / {p['name']}"},
        {"do": "click", "text": "Star"},
        {"do": "exit", "message": ""},
    ]
    ev = html_eval(
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
    ev = html_eval(
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


#: the forum's templates, in the order tasks take them
FORUM: tuple[Make, ...] = (_top_post, _open_forum, _upvote, _comment)
#: the repository browser's templates
REPO: tuple[Make, ...] = (_license, _open_issues, _readme, _star, _new_issue)
