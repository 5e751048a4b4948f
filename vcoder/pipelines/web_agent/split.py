"""The web agent's task splits: train, validation and test, apart by content (:mod:`vcoder.browse.splits`).

Test tasks run on ``heldout_instances`` site instances of the test range, validation tasks on as many of the
validation range, training tasks (and every task a phase adds to the pool) on ``train_instances`` of the training
range; a split refuses a task sharing an entity, a reference answer, a reference URL or an intent with an earlier one
(drawn in the order test, validation, train). The phases' held-out success is measured on ``heldout_split``
(``test`` for reported figures; ``validation`` for pilots and the choices they make).

Example:
    >>> from vcoder.pipelines.web_agent.config import WebAgentConfig
    >>> config = WebAgentConfig(sites=("shop",), train_per_site=4, validation_per_site=2, heldout_per_site=2)
    >>> splits = web_splits(config)
    >>> [len(splits[s]) for s in ("train", "validation", "test")]
    [4, 2, 2]
"""

from __future__ import annotations

from functools import lru_cache

from vcoder.browse import WebTask
from vcoder.browse.splits import DRAW_ORDER, content_keys, draw_tasks, instances

#: the first task id of each split (ids stay unique across the three)
ID_BASE = {"train": 0, "validation": 100_000, "test": 200_000}


def _renumber(tasks: list[WebTask], base: int) -> list[WebTask]:
    return [WebTask.from_dict({**t.to_dict(), "task_id": base + i}) for i, t in enumerate(tasks)]


@lru_cache(maxsize=16)
def _splits(sites: tuple[str, ...], seed: int, per_site: tuple[int, int, int], counts: tuple[int, int, int]):
    sizes = dict(zip(("train", "validation", "test"), zip(per_site, counts)))
    banned: set[tuple] = set()
    out: dict[str, list[WebTask]] = {}
    for split in DRAW_ORDER:
        n, count = sizes[split]
        seeds = instances(split, seed=seed, count=count)
        tasks = [t for site in sites for t in draw_tasks(site, seeds, n=n, seed=f"{split}:{seed}", banned=banned)]
        banned |= {k for t in tasks for k in content_keys(t)}
        out[split] = _renumber(tasks, ID_BASE[split])
    return out


def web_splits(config) -> dict[str, list[WebTask]]:
    """``{"train", "validation", "test"}``: the recipe's tasks per split (seeded by ``config.seed``)."""
    per_site = (config.train_per_site, config.validation_per_site, config.heldout_per_site)
    counts = (config.train_instances, config.heldout_instances, config.heldout_instances)
    return {k: list(v) for k, v in _splits(tuple(config.sites), config.seed, per_site, counts).items()}


def split_tasks(config) -> tuple[list[WebTask], list[WebTask]]:
    """``(train, heldout)``: the training tasks and the split the phases measure (``config.heldout_split``)."""
    splits = web_splits(config)
    return splits["train"], splits[config.heldout_split]


def evaluation_keys(config) -> set[tuple]:
    """The content keys of the validation and test splits: what no training-pool task may hold."""
    splits = web_splits(config)
    return {k for split in ("validation", "test") for t in splits[split] for k in content_keys(t)}


def new_train_tasks(config, phase: int, site: str, n: int, seen: set[str]) -> list[WebTask]:
    """Up to ``n`` fresh tasks of ``site`` on the training instances for ``phase``'s pool growth, apart from the
    evaluation splits by content and repeating no intent of ``seen`` (updated)."""
    seeds = instances("train", seed=config.seed, count=config.train_instances)
    draw = f"phase{phase}:{config.seed}"
    return draw_tasks(site, seeds, n=n, seed=draw, banned=evaluation_keys(config), seen=seen)
