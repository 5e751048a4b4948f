"""Train / validation / test splits of generated web tasks, decided by what a policy could memorise.

A task's *content* is what a policy could carry from one task to another without reading the page:

- its **site instance** (``site``, ``site_seed``: the generated data the pages show);
- the **entities named in its intent**: the string values it was instantiated with (a product, a customer, a group, a
  category, a forum, a post title, a project, a text to type; numbers are not entities), keyed by site;
- its **reference answer**: the strings a ``string_match`` expects or a ``program_html`` check requires, as one key
  per task (``("Red Lamp", "Qty: 3")`` is one answer), keyed by site and compared case-insensitively;
- its **reference URLs / locators**: the ``url_match`` URL (it names the entity: ``#/category/Home``), and each
  ``program_html`` check's (URL, locator), keyed with the site instance (``#/post/3`` is another post elsewhere);
- its **intent** (case-insensitive).

Splits are drawn in the order test, validation, train, each on its own range of site instances
(:data:`INSTANCE_BASE`), and a later split refuses any task with a content key an earlier split holds; so no two
splits share a site instance, an entity named in an intent, a reference answer, a reference URL or an intent, and
within a split no intent repeats. :func:`overlap` lists the pairs of tasks of two splits that share a key.

Example:
    >>> from vcoder.browse.generate import generate_tasks
    >>> a, b = generate_tasks("shop", seed=0, n=2), generate_tasks("shop", seed=1, n=2, site_seed=2_000_000)
    >>> sorted({k[0] for k in content_keys(a[0])})
    ['answer', 'entity', 'instance', 'intent']
    >>> overlap(a, b) == []
    True
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Sequence
from typing import Any

from vcoder.browse.generate import TEMPLATES, generate_tasks
from vcoder.browse.tasks import WebTask

SPLITS = ("train", "validation", "test")
#: the first site seed of each split's instances; run seed S, instance j of a split: base + 100 * S + j
INSTANCE_BASE = {"train": 0, "validation": 1_000_000, "test": 2_000_000}
#: the order splits are drawn in: an earlier split's content is refused by the later ones
DRAW_ORDER = ("test", "validation", "train")


def instances(split: str, *, seed: int, count: int) -> list[int]:
    """The site seeds of ``split``'s ``count`` instances for run seed ``seed`` (disjoint across splits)."""
    if split not in SPLITS:
        raise ValueError(f"split={split!r} must be one of {', '.join(SPLITS)}")
    if not 1 <= count <= 100:
        raise ValueError(f"count={count!r}: a split has 1 to 100 site instances per run seed")
    if not 0 <= seed < 10_000:  # 100 instances a seed below the next split's range
        raise ValueError(f"seed={seed!r}: the web agent's run seeds lie in [0, 9999]")
    return [INSTANCE_BASE[split] + 100 * seed + j for j in range(count)]


def split_of_instance(site_seed: int) -> str:
    """The split whose instances include ``site_seed``."""
    return max((b, s) for s, b in INSTANCE_BASE.items() if site_seed >= b)[1]


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).lower()


def _answer_strings(task: WebTask) -> list[str]:
    ev = task.eval
    if ev is None:
        return []
    out: list[str] = []
    for block in [ev.reference_answers or {}, *(c["required_contents"] for c in ev.program_html)]:
        for value in block.values():
            out += [value] if isinstance(value, str) else list(value)
    return out


def content_keys(task: WebTask) -> frozenset[tuple]:
    """The task's content keys (see the module docstring): ``("instance", site, site_seed)``,
    ``("entity", site, value)``, ``("answer", site, strings)``, ``("url", site, url)``,
    ``("locator", site, site_seed, url, locator)`` and ``("intent", text)``."""
    site = task.site
    keys: set[tuple] = {("instance", site, task.site_seed), ("intent", _norm(task.intent))}
    keys |= {("entity", site, _norm(v)) for v in task.instantiation_dict.values() if isinstance(v, str)}
    answers = _answer_strings(task)
    if answers:
        keys.add(("answer", site, tuple(sorted(_norm(a) for a in answers))))
    if task.eval is not None:
        if task.eval.reference_url:
            keys |= {("url", site, _norm(u)) for u in task.eval.reference_url.split(" |OR| ")}
        for check in task.eval.program_html:
            keys.add(("locator", site, task.site_seed, _norm(check["url"]), _norm(check["locator"])))
    return frozenset(keys)


def overlap(first: Iterable[WebTask], second: Iterable[WebTask]) -> list[tuple[WebTask, WebTask, list[tuple]]]:
    """The pairs ``(a, b, shared keys)`` of a task of ``first`` and one of ``second`` that share content."""
    owners: dict[tuple, list[WebTask]] = {}
    for a in first:
        for key in content_keys(a):
            owners.setdefault(key, []).append(a)
    pairs: dict[tuple, tuple[WebTask, WebTask, list[tuple]]] = {}
    for b in second:
        for key in sorted(content_keys(b), key=repr):
            for a in owners.get(key, ()):
                pairs.setdefault((id(a), id(b)), (a, b, []))[2].append(key)
    return list(pairs.values())


def overlap_summary(first: Sequence[WebTask], second: Sequence[WebTask]) -> dict[str, int]:
    """How many pairs of ``first`` x ``second`` share content, in all and per kind of key."""
    pairs = overlap(first, second)
    out = {"pairs": len(pairs)}
    for kind in ("instance", "entity", "answer", "url", "locator", "intent"):
        out[kind] = sum(any(k[0] == kind for k in shared) for _, _, shared in pairs)
    return out


def draw_tasks(
    site: str, site_seeds: Sequence[int], *, n: int, seed: str, banned: set[tuple], seen: set[str] | None = None
) -> list[WebTask]:
    """Up to ``n`` tasks on ``site``'s instances ``site_seeds``, templates and instances taken in turn, none holding a
    content key of ``banned`` or repeating an intent of ``seen`` (``seen`` gets the drawn intents).

    Args:
        seed: the draw's seed (a string naming the split, the run seed, the phase).
        banned: content keys held by another split (the caller adds the drawn tasks' keys where it needs to).

    Returns:
        The tasks (renumber their ids); fewer than ``n`` when the instances run out of allowed ones.
    """
    seen = set() if seen is None else seen
    rng = random.Random(f"draw:{site}:{seed}")
    per_instance = [
        generate_tasks(site, seed=rng.randrange(2**31), n=40 * len(TEMPLATES[site]), site_seed=s) for s in site_seeds
    ]
    # per template, the k-th candidate of every instance before the (k+1)-th of any
    queues: dict[int, list[WebTask]] = {}
    for row in zip(*per_instance):
        for t in row:
            queues.setdefault(t.intent_template_id, []).append(t)
    out: list[WebTask] = []
    while len(out) < n and any(queues.values()):
        for queue in queues.values():
            while queue and len(out) < n:
                t = queue.pop(0)
                if _norm(t.intent) not in seen and not content_keys(t) & banned:
                    seen.add(_norm(t.intent))
                    out.append(t)
                    break
    return out


def split_digest(tasks: Iterable[WebTask]) -> str:
    """A short hash of a split's content keys (sorted): equal digests, equal content."""
    keys = sorted({repr(k) for t in tasks for k in content_keys(t)})
    return hashlib.sha256(json.dumps(keys).encode()).hexdigest()[:16]
