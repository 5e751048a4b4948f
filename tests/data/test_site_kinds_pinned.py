"""The generated site-kind tasks are pinned: every kind's tasks of seeds 0-4 (request, cases, files, broken
variants) and the split digests the loops record. A results file names its split's digest, so a change here
invalidates recorded results: change a pin only for a deliberate change of the tasks, and say which results it
moves. A new kind adds its pin.

Regenerate the pins (after such a change) with ``python -m tests.data.test_site_kinds_pinned``."""

from __future__ import annotations

import hashlib
import json

import pytest

from vcoder.data import site_kinds
from vcoder.data.site_kinds import pages
from vcoder.data.splits import split_digest


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


SEEDS = range(5)


def site_kind_digest(kind: str) -> str:
    """A request-form kind's tasks: every broken variant in both styles, and the task row (split, content key)."""
    sites = [
        [site_kinds.make_site(kind, seed, broken=broken, style=style), site_kinds.kind_task(kind, seed)]
        for seed in SEEDS
        for broken in (None, *site_kinds.BROKEN)
        for style in site_kinds.STYLES
    ]
    return _hash(sites)


def page_kind_digest(kind: str) -> str:
    """An id-named page kind: every broken variant, its Step-GRPO task and its curriculum task and split."""
    from vcoder.pipelines.curriculum.tasks import offline_task, task_split

    out = []
    for seed in SEEDS:
        variants = [pages.make_page(kind, seed, broken=broken) for broken in (None, *pages.broken_variants(kind))]
        out.append([variants, pages.site_task(kind, seed), offline_task(kind, seed), task_split(kind, seed)])
    return _hash(out)


def loop_digests() -> dict[str, str]:
    """The split digests the loops record: the agent quickstart's scored splits and training tasks (seeds 0-2), and
    ``vcoder data trajectories --tasks SPLIT`` with its defaults (42 tasks from seed 0, every kind of the split)."""
    from vcoder.pipelines.agent_quickstart import DATA, HELDOUT_SEED, KINDS

    out = {}
    for split in ("test", "validation"):
        rows = site_kinds.kind_tasks(DATA["n_heldout"], HELDOUT_SEED, split=split, kinds=KINDS)
        out[f"agent_quickstart/{split}"] = split_digest(r["content_key"] for r in rows)
    for seed in (0, 1, 2):
        rows = site_kinds.kind_tasks(DATA["n_train"], seed, split="train", kinds=KINDS)
        out[f"agent_quickstart/train/{seed}"] = split_digest(r["content_key"] for r in rows)
    for split in ("train", "validation", "test"):
        out[f"trajectories/{split}"] = split_digest(
            r["content_key"] for r in site_kinds.kind_tasks(42, 0, split=split)
        )
    return out


SITE_KINDS = {
    "counter": "7829fc5859068481",
    "todo": "3a905d5a8eee63f2",
    "signup": "115d472b122bc16a",
    "rating": "8d14486e2565ffbc",
    "stepper": "5d9889ae2757609e",
    "theme": "191f3853147bacef",
    "converter": "1a585e279ca44197",
    "message": "2454f5591990054c",
    "tabs": "2333e3a10e0b15d6",
    "modal": "17b585651a2e908b",
    "accordion": "fc59738f854fa206",
    "navigation": "002ad827ed82b3cb",
    "pagination": "baeab3fda1eea4b6",
    "chart": "6e715f784c496a7e",
    "timer": "0967c4125ac2645f",
    "search": "0f149b9a3ea6c3b5",
    "filters": "1fb5207e589e2ec4",
    "cart": "1cecb8c38396711e",
    "table": "3756d0df464c99a1",
    "poll": "0c80b167009e775e",
    "quiz": "de76aad001736e0c",
}
PAGE_KINDS = {
    "counter": "6faedca0b0814f01",
    "todo": "0a657306464b82ff",
    "form": "23d77d30bf655eb9",
    "tabs": "b285759487c9c147",
    "modal": "ff9a2ab58138f12e",
    "accordion": "8f97e388ff5a9307",
}
LOOPS = {
    "agent_quickstart/test": "a3763017efd6927a",
    "agent_quickstart/validation": "616f0414a2c15779",
    "agent_quickstart/train/0": "8ad71516f7c37d1e",
    "agent_quickstart/train/1": "cd58386317e5a341",
    "agent_quickstart/train/2": "c00e3a65ac44e953",
    "trajectories/train": "5cd17463bfebbee4",
    "trajectories/validation": "4aa757bbaedb30ec",
    "trajectories/test": "8d6446ad12cdff6e",
}


@pytest.mark.parametrize("kind", site_kinds.KINDS)
def test_site_kind_is_pinned(kind):
    assert site_kind_digest(kind) == SITE_KINDS.get(kind), f"site kind {kind!r} generates other tasks"


@pytest.mark.parametrize("kind", pages.KINDS)
def test_page_kind_is_pinned(kind):
    assert page_kind_digest(kind) == PAGE_KINDS.get(kind), f"page kind {kind!r} generates other pages"


def test_loop_split_digests_are_pinned():
    assert loop_digests() == LOOPS
    assert LOOPS["agent_quickstart/test"].startswith("a3763017")  # recorded in docs/results.md


def test_every_kind_is_pinned():
    assert set(SITE_KINDS) == set(site_kinds.KINDS) and set(PAGE_KINDS) == set(pages.KINDS)


if __name__ == "__main__":
    print("SITE_KINDS =", json.dumps({k: site_kind_digest(k) for k in site_kinds.KINDS}, indent=4))
    print("PAGE_KINDS =", json.dumps({k: page_kind_digest(k) for k in pages.KINDS}, indent=4))
    print("LOOPS =", json.dumps(loop_digests(), indent=4))
