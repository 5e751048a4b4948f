"""Overlap between the splits of each loop, measured without trusting the split's own content key.

For every loop this prints, as JSON, how many evaluation tasks (test, and validation where the loop has one) share
content with a training task, judged three independent ways where they apply: the same request once the title and
the accent colour are taken out, byte-identical test cases (steps and expectations; the free-text descriptions
dropped), the same reference page (markup without its title, and script); and the distinct functional variants
per site kind over many seeds. Runs on the code it is imported with, so the same script measures a branch before
and after a change:

    PYTHONPATH=. python experiments/archive/split_overlap.py [--seeds 3000]
"""

from __future__ import annotations

import argparse
import json
import re


def _request(instruction: str) -> str:
    text = re.sub(r"^A page titled '[^']*' ", "", instruction)
    return re.sub(r" Use #[0-9a-f]{6} as the accent colour\.$", "", text)


def _cases(cases) -> str:
    cases = json.loads(cases) if isinstance(cases, str) else cases
    return json.dumps([[c.get("steps", []), c["expect"]] for c in cases], sort_keys=True)


def _page(kind: str, seed: int) -> str:
    from vcoder.data.site_kinds import make_site

    site = make_site(kind, seed)
    return site["markup"].replace(f"<h1>{site['title']}</h1>", "") + site["js"]


def _split_name(names) -> str:
    return "test" if "test" in names else "heldout"


def site_kinds_overlap(seeds: int) -> dict:
    """The agent quickstart's own split (its kinds, sizes and seeds) and the variants per kind."""
    from vcoder.data import site_kinds
    from vcoder.pipelines import agent_quickstart as aq

    test_name = _split_name(site_kinds.SPLITS)
    n_test = aq.DATA.get("n_test", aq.DATA.get("n_heldout"))
    seed_test = getattr(aq, "TEST_SEED", getattr(aq, "HELDOUT_SEED", 0))
    evals = {"test": site_kinds.kind_tasks(n_test, seed_test, split=test_name, kinds=aq.KINDS)}
    if "validation" in site_kinds.SPLITS:
        evals["validation"] = site_kinds.kind_tasks(n_test, seed_test, split="validation", kinds=aq.KINDS)
    out = {"kinds": list(aq.KINDS), "per_seed": {}}
    for seed in (0, 1, 2):
        train = site_kinds.kind_tasks(aq.DATA["n_train"], seed, split="train", kinds=aq.KINDS)
        seen = {
            "request": {_request(r["instruction"]) for r in train},
            "cases": {_cases(r["test_cases"]) for r in train},
            "page": {_page(r["kind"], r["seed"]) for r in train},
        }
        row = {}
        for name, rows in evals.items():
            shared = {
                "request": [r["id"] for r in rows if _request(r["instruction"]) in seen["request"]],
                "cases": [r["id"] for r in rows if _cases(r["test_cases"]) in seen["cases"]],
                "page": [r["id"] for r in rows if _page(r["kind"], r["seed"]) in seen["page"]],
            }
            anyway = {i for ids in shared.values() for i in ids}
            row[name] = {"n": len(rows), "sharing_any": len(anyway), **{k: len(v) for k, v in shared.items()}}
            row[name]["distinct_cases"] = len({_cases(r["test_cases"]) for r in rows})
        out["per_seed"][seed] = row
    out["variants_per_kind"] = _variants(seeds)
    return out


def _variants(seeds: int) -> dict:
    """Distinct functional variants per kind over ``seeds`` seeds: requests without title/colour, cases, pages."""
    from vcoder.data.site_kinds import KINDS, make_site

    out = {}
    for kind in KINDS:
        reqs, cases, pages = set(), set(), set()
        for s in range(seeds):
            site = make_site(kind, s)
            reqs.add(_request(site["instruction"]))
            cases.add(_cases(site["test_cases"]))
            pages.add(site["markup"].replace(f"<h1>{site['title']}</h1>", "") + site["js"])
        out[kind] = {"requests": len(reqs), "cases": len(cases), "pages": len(pages)}
    return out


def synthetic_overlap() -> dict:
    """The one-shot quickstart's pages (seeds 0-2) and the curricula's held-out pages against training pages."""
    from vcoder.data.synthetic import generate_page
    from vcoder.pipelines import quickstart as qs

    def html_of(rows):
        return [r["html"] for r in rows]

    out = {}
    try:
        from vcoder.data.synthetic import split_pages as pick
    except ImportError:  # the code before the content split
        pick = None
    for seed in (0, 1, 2):
        if pick is not None:  # the content split
            train = [p.html for p in pick(qs.DATA["n_train"], seed=seed, split="train")]
            test = [p.html for p in pick(qs.DATA["n_holdout"], seed=seed + 7919, split="test")]
        else:  # the old draw: seed ranges, the holdout de-duplicated against the training pages
            train = _old_pages(qs.DATA["n_train"], seed, set())
            test = _old_pages(qs.DATA["n_holdout"], seed + 7919, set(train))
        heads = {_visible(h) for h in train}
        out[seed] = {
            "n_train": len(train),
            "n_test": len(test),
            "identical_html": len(set(test) & set(train)),
            "same_heading_blocks_columns": sum(_visible(h) in heads for h in test),
        }
    # the curricula: their held-out pages against the quickstart SFT's training pages (their start) and their pools
    from vcoder.pipelines.curriculum import heldout, tasks

    held = heldout.heldout_tasks(["screenshot-0"], 24, seed=900_000)  # the test split where there is one
    held_html = {generate_page(t["seed"], difficulty=0).html for t in held}
    pool = tasks.initial_pool(["screenshot-0"], 8, seed=0)
    pool += [t for p in range(3) for t in tasks.new_offline_tasks(["screenshot-0"] * 4, phase=p, base_seed=0)]
    pool_html = {generate_page(t["seed"], difficulty=0).html for t in pool}
    sft_train = set(
        [p.html for p in pick(qs.DATA["n_train"], seed=0, split="train")] if pick else _old_pages(320, 0, set())
    )
    out["curriculum"] = {
        "n_heldout": len(held),
        "heldout_in_pool": len(held_html & pool_html),
        "heldout_in_quickstart_sft_training": len(held_html & sft_train),
        "heldout_same_heading_blocks_columns_as_sft_training": sum(
            _visible(h) in {_visible(t) for t in sft_train} for h in held_html
        ),
    }
    return out


def _visible(html: str) -> str:
    """What a screenshot shows most: the heading, the block labels and the column count."""
    heading = re.search(r"<h1>(.*?)</h1>", html).group(1)
    blocks = re.findall(r'class="box"[^>]*>([^<]*)<', html)
    cols = re.search(r"repeat\((\d+)", html).group(1)
    return f"{heading}|{','.join(blocks)}|{cols}"


def _old_pages(n: int, seed: int, exclude: set) -> list[str]:
    from vcoder.data.synthetic import generate_page

    pages, seen, c = [], set(exclude), seed * 1_000_003
    while len(pages) < n:
        html = generate_page(c, difficulty=0).html
        c += 1
        if html not in seen:
            seen.add(html)
            pages.append(html)
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3000, help="seeds per kind for the variant counts")
    args = parser.parse_args(argv)
    print(json.dumps({"site_kinds": site_kinds_overlap(args.seeds), "synthetic": synthetic_overlap()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
