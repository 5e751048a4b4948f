"""site_kinds: 21 kinds of site tasks with plain-language requests, person-like cases, reference solutions that pass
them in a real Chromium through the real grader, broken variants that fail them, and disjoint splits."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from vcoder.data.site_kinds import (
    BROKEN,
    EVAL_KINDS,
    KINDS,
    SPLITS,
    TRAIN_ONLY,
    content_key,
    kind_task,
    kind_tasks,
    make_site,
    split_of,
)
from vcoder.gui.policy import parse_cases

# every target a case uses: Playwright's get_by_role / get_by_label / get_by_text selectors, or the whole page
_PERSON_LIKE = re.compile(r"^(body|internal:(role|label|text)=.*)$")


def _targets(cases):
    for case in cases:
        for step in case.get("steps", []):
            if "target" in step:
                yield step["target"]
        for exp in case["expect"]:
            yield exp["target"]


def test_at_least_twenty_kinds_with_plain_requests_and_person_like_cases():
    assert len(KINDS) >= 20
    for kind in KINDS:
        for seed in range(4):
            site = make_site(kind, seed)
            request = re.sub(r"#[0-9a-f]{6}\b", "", site["instruction"])  # the accent colour
            assert not re.search(r"\bids?\b|#[a-z]", request), (kind, request)
            cases = parse_cases(site["test_cases"])
            assert len(cases) >= 3 and all(c.scriptable for c in cases), kind
            bad = [t for t in _targets(site["test_cases"]) if not _PERSON_LIKE.match(t.split(" >> ")[0])]
            assert not bad, (kind, bad)
            assert site["html"].count("<script>") == 1 and site["js"] in site["html"]


def test_broken_variants_change_the_page_and_nothing_else():
    for kind in KINDS:
        good = make_site(kind, 2)
        for broken in BROKEN:
            bad = make_site(kind, 2, broken=broken)
            assert bad["html"] != good["html"], (kind, broken)
            assert (bad["instruction"], bad["test_cases"]) == (good["instruction"], good["test_cases"])
        assert "<script>" not in make_site(kind, 2, broken="handler_missing")["html"]
        assert "<!-- " in make_site(kind, 2, broken="broken_markup")["markup"]


def test_accent_style_changes_only_the_style():
    for kind in ("counter", "cart", "chart"):
        full, accent = make_site(kind, 5), make_site(kind, 5, style="accent")
        same = ("instruction", "test_cases", "markup", "js", "title")
        assert {k: full[k] for k in same} == {k: accent[k] for k in same}
        assert len(accent["css"]) < len(full["css"]) and accent["css"] in accent["html"]
        colour = full["instruction"].split("Use ")[-1].split(" as the accent")[0]
        assert accent["css"].startswith(f"h1,button{{color:{colour}}}")


def test_deterministic_and_seeded():
    assert make_site("chart", 4) == make_site("chart", 4)
    assert kind_tasks(5, seed=3, split="validation") == kind_tasks(5, seed=3, split="validation")
    assert len({make_site("search", s)["instruction"] for s in range(10)}) > 5


def test_splits_are_disjoint_and_each_task_is_in_its_split():
    drawn = {split: kind_tasks(2 * len(KINDS), split=split) for split in SPLITS}
    seen = {}
    for split, rows in drawn.items():
        kinds = KINDS if split == "train" else EVAL_KINDS
        assert len(rows) == 2 * len(KINDS) and {r["kind"] for r in rows} == set(kinds)
        assert len({r["instruction"] for r in rows}) == len(rows)  # no repeats within a split
        for row in rows:
            assert row["split"] == split == split_of(row["kind"], row["seed"])
            assert seen.setdefault(row["content_key"], split) == split  # a content is never in two splits
            assert kind_task(row["kind"], row["seed"]) == row
    assert {r["kind"] for r in drawn["train"]} >= set(TRAIN_ONLY)


def test_train_only_kinds_have_one_content_and_no_held_out_tasks():
    for kind in TRAIN_ONLY:
        assert len({content_key(kind, s) for s in range(200)}) <= 3, kind
        assert {split_of(kind, s) for s in range(50)} == {"train"}
        with pytest.raises(ValueError, match=f"site kinds \\['{kind}'\\] have no test tasks"):
            kind_tasks(1, split="test", kinds=(kind,))


def test_the_old_split_name_still_works_with_a_warning(caplog):
    with caplog.at_level("WARNING"):
        rows = kind_tasks(2, split="heldout", kinds=("tabs",))
    assert [r["split"] for r in rows] == ["test", "test"] and rows == kind_tasks(2, split="test", kinds=("tabs",))
    assert "'heldout' is now called 'test'" in caplog.text


def test_rows_are_step_grpo_task_rows():
    row = kind_tasks(1, split="train", kinds=("todo",))[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"] and row["instruction"] in row["prompt"][1][
        "content"
    ]
    assert json.loads(row["test_cases"]) == make_site("todo", row["seed"])["test_cases"]
    assert make_site("todo", row["seed"])["html"] not in json.dumps(row)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown site kind 'carousel'"):
        make_site("carousel")
    with pytest.raises(ValueError, match="unknown broken variant"):
        make_site("tabs", broken="validation_missing")
    with pytest.raises(ValueError, match="unknown style 'dark'"):
        make_site("tabs", style="dark")
    with pytest.raises(ValueError, match="unknown split 'holdout'"):
        kind_tasks(1, split="holdout")
    with pytest.raises(ValueError, match="unknown site kinds"):
        kind_tasks(1, kinds=("tabs", "carousel"))
    with pytest.raises(ValueError, match="kinds is empty"):
        kind_tasks(1, kinds=())
    with pytest.raises(ValueError, match="n must be >= 0"):
        kind_tasks(-1)
    assert kind_tasks(0) == []
    with pytest.raises(TypeError, match="decided by content, not wording"):
        split_of("tabs", make_site("tabs", 1)["instruction"])  # the old form of split_of


async def _grade_all(pool, tmp_path, variants):
    from vcoder.gui.scripted import ScriptedPolicy
    from vcoder.sites.grading import SiteGrader
    from vcoder.sites.records import EpisodeOptions, SiteTask

    # the generated sites answer at once: an unmet expectation need not be re-checked for the grader's 5 s
    grader = SiteGrader(pool=pool, scripted=ScriptedPolicy(expect_timeout_ms=1000))
    options = EpisodeOptions(render_width=800, render_height=600, screenshot_weight=0)

    async def grade(kind, broken):
        site = make_site(kind, 1, broken=broken)
        folder = tmp_path / f"{kind}-{broken}"
        folder.mkdir()
        (folder / "index.html").write_text(site["html"])
        return await grader.grade({"index.html": site["html"]}, folder, SiteTask.from_dict(site), options)

    return await asyncio.gather(*(grade(kind, broken) for kind, broken in variants))


@pytest.mark.browser
@pytest.mark.slow
def test_references_pass_and_broken_variants_fail_in_chromium(pool, tmp_path):
    # one reference per kind and one broken variant per kind (the variants take turns across kinds)
    variants = [(kind, None) for kind in KINDS] + [(k, BROKEN[i % len(BROKEN)]) for i, k in enumerate(KINDS)]
    grades = asyncio.run(_grade_all(pool, tmp_path, variants))
    failed = {
        f"{kind}/{broken}": [
            (c.task, c.verdict.value, c.error, c.details) for c in g.cases if c.verdict.value != "YES"
        ]
        for (kind, broken), g in zip(variants, grades)
        if broken is None and g.gui != 1.0
    }
    assert not failed, failed
    passed = [f"{kind}/{broken}" for (kind, broken), g in zip(variants, grades) if broken and g.gui >= 1.0]
    assert not passed, f"broken variants that pass every case: {passed}"
    assert all(g.gui is not None and g.error is None for g in grades)


@pytest.mark.browser
@pytest.mark.slow
def test_static_expected_texts_score_no_more_than_the_page_without_them(pool):
    # the reference with its script removed, and the same page with every expected text, element and value written
    # out statically: the texts must earn nothing (the grader credits only what the case's steps produced)
    from vcoder.gui.imitation import static_imitation, strip_scripts
    from vcoder.gui.runner import arun_cases
    from vcoder.gui.scripted import ScriptedPolicy

    sites = [make_site(kind, 1) for kind in KINDS]
    pages = [(strip_scripts(s["html"]), static_imitation(s["html"], s["test_cases"]), s["test_cases"]) for s in sites]

    async def scores():
        runs = [
            arun_cases(h, c, policy=ScriptedPolicy(), pool=pool) for bare, stuffed, c in pages for h in (bare, stuffed)
        ]
        return [score for _, score in await asyncio.gather(*runs)]

    got = asyncio.run(scores())
    above = {k: (got[2 * i], got[2 * i + 1]) for i, k in enumerate(KINDS) if got[2 * i + 1] > got[2 * i]}
    assert not above, f"kinds whose static texts score above the page without them (bare, stuffed): {above}"
