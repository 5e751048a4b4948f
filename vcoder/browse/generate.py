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
from collections.abc import Sequence
from typing import Any

from vcoder.browse.sites import SITES, build_state, check_site
from vcoder.browse.tasks import WebTask
from vcoder.browse.template_kit import Make
from vcoder.browse.templates_commerce import ADMIN, SHOP
from vcoder.browse.templates_social import FORUM, REPO

__all__ = ["TEMPLATES", "Make", "generate_all", "generate_tasks"]

#: each site's templates (one module per pair of sites); a task's ``intent_template_id`` is the site's place here
#: x 100 + the template's
TEMPLATES: dict[str, tuple[Make, ...]] = {"shop": SHOP, "admin": ADMIN, "forum": FORUM, "repo": REPO}


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
