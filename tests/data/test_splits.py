"""Held-out means unseen: one overlap check per loop, each on the loop's own split, judged by the split's content key
AND by checks that do not trust it (see :mod:`vcoder.data.splits`). Each check is also run on the old split (a hash
of the wording, or seed ranges) to show that it fails there."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from vcoder.data import site_kinds
from vcoder.data.splits import SPLITS, check_split, content_split, split_digest
from vcoder.data.synthetic import content_key, generate_page, page_split, split_pages

# ---------------------------------------------------------------------------------------------------------------
# independent views of a site task: none reads the content key


def _request(instruction: str) -> str:
    """The request without its title and accent colour (no case checks either)."""
    text = re.sub(r"^A page titled '[^']*' ", "", instruction)
    return re.sub(r" Use #[0-9a-f]{6} as the accent colour\.$", "", text)


def _cases(test_cases: str) -> str:
    """The cases' steps and expectations, byte for byte (their free-text descriptions dropped)."""
    return json.dumps([[c.get("steps", []), c["expect"]] for c in json.loads(test_cases)], sort_keys=True)


def _page(row: dict) -> str:
    """The reference site without its title: what a policy replaying a training site would send."""
    site = site_kinds.make_site(row["kind"], row["seed"])
    return site["markup"].replace(f"<h1>{site['title']}</h1>", "") + site["js"]


def site_overlap(train: list[dict], held: list[dict]) -> dict[str, list[str]]:
    """Held-out task ids sharing content with a training task, per view: the content key, the request without title
    and colour, the byte-identical cases, the reference page."""
    views = {
        "content_key": lambda r: r.get("content_key") or site_kinds.content_key(r["kind"], r["seed"]),
        "request": lambda r: _request(r["instruction"]),
        "cases": lambda r: _cases(r["test_cases"]),
        "page": _page,
    }
    out = {}
    for name, view in views.items():
        seen = {view(r) for r in train}
        out[name] = [r["id"] for r in held if view(r) in seen]
    return out


def test_agent_quickstart_split_shares_no_content():
    """Loop: the agent quickstart (site kinds). Content: what a page must reproduce to pass a task's cases -- the
    values the builder drew that the cases check (the counter's label, start and step; the message box's label,
    button and limit; the shop, town and third page of a navigation site), never the title, colour or font, and
    never a case's own input. No test or validation task may share it with a training task of seeds 0-2, nor share
    its request (title and colour removed), its cases or its reference page."""
    from vcoder.pipelines.agent_quickstart import DATA, HELDOUT_SEED, KINDS

    held = {
        split: site_kinds.kind_tasks(DATA["n_heldout"], HELDOUT_SEED, split=split, kinds=KINDS)
        for split in ("test", "validation")
    }
    for split, rows in held.items():
        assert len({r["content_key"] for r in rows}) == len(rows) == DATA["n_heldout"], split  # all distinct
    for seed in (0, 1, 2):
        train = site_kinds.kind_tasks(DATA["n_train"], seed, split="train", kinds=KINDS)
        for split, rows in held.items():
            shared = site_overlap(train, rows)
            assert shared == {name: [] for name in shared}, (seed, split, shared)
    assert site_overlap(held["validation"], held["test"]) == {
        n: [] for n in ("content_key", "request", "cases", "page")
    }


def test_the_site_check_fails_on_the_old_wording_split():
    """The old split hashed the kind and the whole request (title and colour included): the check above finds its
    held-out tasks among the training tasks, even with today's more varied builders (on the old builders: 15 of 32,
    14 with byte-identical cases; ``experiments/archive/split_overlap.py``)."""
    from vcoder.pipelines.agent_quickstart import KINDS

    def old_split(row: dict) -> str:
        bucket = int(hashlib.sha256(f"{row['kind']}\n{row['instruction']}".encode()).hexdigest()[:8], 16) % 100
        return "train" if bucket < 80 else "validation" if bucket < 90 else "test"

    def old_draw(n: int, seed: int, split: str) -> list[dict]:
        rows = {k: [] for k in KINDS}
        for kind in KINDS:
            s = seed
            while len(rows[kind]) < n // len(KINDS):
                row = site_kinds.kind_task(kind, s)
                if old_split(row) == split and row["instruction"] not in {r["instruction"] for r in rows[kind]}:
                    rows[kind].append(row)
                s += 1
        return [r for kind in KINDS for r in rows[kind]]

    shared = site_overlap(old_draw(128, 0, "train"), old_draw(32, 0, "test"))
    assert all(shared.values()), shared  # every view finds a held-out task that is a training task


def test_site_content_key_is_shared_by_every_task_with_the_same_request_cases_or_page():
    """Over many seeds of every kind, two tasks with the same request (no title/colour), cases or reference page
    always have the same content key, so the split (a function of the key) keeps them together."""
    for kind in site_kinds.KINDS:
        first: dict[tuple[str, str], str] = {}
        for seed in range(200):
            row = site_kinds.kind_task(kind, seed)
            for name, view in (("request", _request(row["instruction"])), ("cases", _cases(row["test_cases"]))):
                assert first.setdefault((name, view), row["content_key"]) == row["content_key"], (kind, seed, name)
            assert first.setdefault(("page", _page(row)), row["content_key"]) == row["content_key"], (kind, seed)


def test_every_held_out_kind_has_enough_contents_in_each_split():
    """The quickstart's kinds hold at least 8 distinct contents in test and validation (it scores 8 per kind) and
    32 in train; every other held-out kind at least 2 per split."""
    from vcoder.pipelines.agent_quickstart import KINDS

    for kind in site_kinds.EVAL_KINDS:
        need = 8 if kind in KINDS else 2
        for split in ("test", "validation"):
            assert len(site_kinds.kind_tasks(need, split=split, kinds=(kind,))) == need
    assert len(site_kinds.kind_tasks(32 * len(KINDS), split="train", kinds=KINDS)) == 32 * len(KINDS)


# ---------------------------------------------------------------------------------------------------------------
# the one-shot quickstart and the curricula: synthetic pages


def _visible(html: str) -> str:
    """What a difficulty-0 screenshot shows, read from the HTML itself: heading, block labels, column count."""
    heading = re.search(r"<h1>(.*?)</h1>", html).group(1)
    blocks = re.findall(r'class="box"[^>]*>([^<]*)<', html)
    columns = re.search(r"repeat[(](\d+)", html).group(1)
    return f"{heading}|{','.join(blocks)}|{columns}"


def page_overlap(train_html: list[str], held_html: list[str]) -> dict[str, int]:
    """Held-out pages sharing content with a training page, without the content key: byte-identical HTML, and the
    text and layout read from the HTML."""
    return {
        "html": len(set(held_html) & set(train_html)),
        "visible": len({_visible(h) for h in held_html} & {_visible(h) for h in train_html}),
    }


def test_one_shot_quickstart_split_shares_no_content():
    """Loop: the one-shot quickstart (difficulty-0 synthetic pages). Content: the heading, the blocks' labels in order
    and the column count -- what a policy that memorised a page could copy onto another screenshot (background and
    box height are style). No test or validation page of seeds 0-2 may share it with a training page, nor be the
    same HTML."""
    from vcoder.pipelines.quickstart import DATA

    for seed in (0, 1, 2):
        train = split_pages(DATA["n_train"], seed=seed, split="train")
        assert {page_split(p) for p in train} == {"train"}
        for split in ("test", "validation"):
            held = split_pages(DATA["n_holdout"], seed=seed + 7919, split=split)
            assert len({content_key(p) for p in held}) == len(held) == DATA["n_holdout"]
            assert not {content_key(p) for p in held} & {content_key(p) for p in train}, (seed, split)
            assert page_overlap([p.html for p in train], [p.html for p in held]) == {"html": 0, "visible": 0}


def test_the_page_check_fails_on_the_old_seed_range_split():
    """The old held-out pages were another seed range with byte-identical pages removed: a screenshot's text and
    layout still repeated a training page's."""
    from vcoder.pipelines.quickstart import DATA

    def old(n: int, seed: int, exclude: set[str]) -> list[str]:
        pages, c = [], seed * 1_000_003
        while len(pages) < n:
            html = generate_page(c).html
            c += 1
            if html not in exclude and html not in pages:
                pages.append(html)
        return pages

    train = old(DATA["n_train"], 0, set())
    assert page_overlap(train, old(DATA["n_holdout"], 7919, set(train)))["visible"] >= 5


def test_curriculum_held_out_pages_are_apart_from_pools_and_the_start_models_pages():
    """Loop: the one-shot curricula (grpo and webrl, ``configs/curriculum/tiny_cpu*.yaml``). Content: as the one-shot
    quickstart's pages. The held-out pages (test and validation) share none with any training pool of any phase, nor
    with the quickstart SFT's training pages that the curricula start from."""
    from vcoder.pipelines.curriculum.heldout import heldout_tasks
    from vcoder.pipelines.curriculum.tasks import initial_pool, new_offline_tasks
    from vcoder.pipelines.quickstart import DATA

    kinds = ["screenshot-0"]
    pool = initial_pool(kinds, 64, seed=0)
    for phase in range(20):
        pool += new_offline_tasks(kinds * 8, phase=phase, base_seed=0)
    pool_html = [generate_page(t["seed"]).html for t in pool]
    start_html = [p.html for s in (0, 1, 2) for p in split_pages(DATA["n_train"], seed=s, split="train")]
    for split in ("test", "validation"):
        held = heldout_tasks(kinds, 24, seed=900_000, split=split)
        assert {t["split"] for t in held} == {split} and len({t["content_key"] for t in held}) == 24
        held_html = [generate_page(t["seed"]).html for t in held]
        assert not {t["content_key"] for t in held} & {content_key(generate_page(t["seed"])) for t in pool}
        for train_html in (pool_html, start_html):
            assert page_overlap(train_html, held_html) == {"html": 0, "visible": 0}, split


# ---------------------------------------------------------------------------------------------------------------
# the split itself


def test_split_names_shares_and_digest():
    assert SPLITS == ("train", "validation", "test")
    assert check_split("heldout") == "test"
    with pytest.raises(ValueError, match="unknown split 'holdout'; choose among train, validation, test"):
        check_split("holdout")
    shares = [content_split(str(i), salt="t") for i in range(4000)]
    assert 0.77 < shares.count("train") / 4000 < 0.83 and 0.08 < shares.count("test") / 4000 < 0.12
    assert split_digest(["a", "b"]) == split_digest(["b", "a", "a"]) != split_digest(["a"])


def test_the_agent_quickstart_draws_the_recorded_splits():
    """The shared draw (``vcoder.data.splits.draw_split``) gives the digests the recorded results name: the test
    split's of experiments/results/agent_quickstart/seed*.json and each seed's training tasks'."""
    from vcoder.pipelines.agent_quickstart import DATA
    from vcoder.pipelines.agent_quickstart.run import draw_tasks

    trains = {0: "8ad71516f7c37d1e", 1: "cd58386317e5a341", 2: "c00e3a65ac44e953"}
    for seed, train in trains.items():
        drawn = draw_tasks(DATA["n_train"], DATA["n_heldout"], seed=seed, split="test")
        assert drawn.record() == {"split": "test", "split_digest": "a3763017efd6927a", "train_digest": train}
        validation = draw_tasks(DATA["n_train"], DATA["n_heldout"], seed=seed, split="validation")
        assert validation.split_digest == "616f0414a2c15779" and validation.train_digest == train
    with pytest.raises(ValueError, match="cannot be scored"):
        draw_tasks(4, 4, seed=0, split="train")
