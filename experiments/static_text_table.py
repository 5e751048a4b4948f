"""Static text and the functional checks (issue 34): does a page earn credit for texts its actions never produced?

For every site kind (and, with ``--interactive``, every id-named page kind) and seed, three pages are graded by
the scripted policy through the hermetic pool, each case on a fresh load:

- ``honest``: the reference solution;
- ``no script``: the same page with its scripts removed (:func:`vcoder.gui.imitation.strip_scripts`);
- ``no script + texts``: that page plus a static block of everything the cases expect
  (:func:`vcoder.gui.imitation.static_imitation`).

It prints one markdown row per kind with the mean case score (WebGen-Bench accuracy) of each page over the seeds.
The "before" table comes from running it against the old grader and cases: a temporary worktree of this branch
with main's ``vcoder/gui/scripted.py``, ``vcoder/data/site_kinds/`` and ``vcoder/data/interactive*.py`` (now
``vcoder/data/site_kinds/pages.py``) checked out. ``--small`` (one kind of each form, one seed) is what the test
suite runs (``tests/test_experiments.py``).

    PYTHONPATH=$PWD python experiments/static_text_table.py --seeds 2 --interactive
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from functools import partial


async def _scores(pool, pages: list[tuple[str, list]], expect_timeout_ms: int) -> list[float]:
    from vcoder.gui import ScriptedPolicy, arun_cases

    policy = ScriptedPolicy(expect_timeout_ms=expect_timeout_ms)
    runs = [arun_cases(html, cases, policy=policy, pool=pool, deadline_ms=30_000) for html, cases in pages]
    return [score for _, score in await asyncio.gather(*runs)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds per kind (0..N-1)")
    parser.add_argument("--interactive", action="store_true", help="add the 6 id-named page kinds")
    parser.add_argument("--small", action="store_true", help="one seed of the counter in both forms (a smoke run)")
    parser.add_argument("--expect-timeout-ms", type=int, default=400, help="the scripted policy's final-check budget")
    parser.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = parser.parse_args(argv)

    from vcoder.data.site_kinds import KINDS, make_site
    from vcoder.data.site_kinds.pages import KINDS as PAGE_KINDS
    from vcoder.data.site_kinds.pages import make_page
    from vcoder.gui.imitation import static_imitation, strip_scripts
    from vcoder.rendering import BrowserPool

    if args.small:
        args.seeds, kinds, page_kinds = 1, ("counter",), ("counter",)
    else:
        kinds, page_kinds = KINDS, (PAGE_KINDS if args.interactive else ())
    sites = [(k, partial(make_site, k)) for k in kinds]
    sites += [(f"interactive/{k}", partial(make_page, k)) for k in page_kinds]
    rows = []
    pool = BrowserPool(max_pages=4)
    try:
        for name, build in sites:
            pages = []
            for seed in range(args.seeds):
                site = build(seed)
                html, cases = site["html"], site["test_cases"]
                pages += [(html, cases), (strip_scripts(html), cases), (static_imitation(html, cases), cases)]
            scores = asyncio.run(_scores(pool.async_pool, pages, args.expect_timeout_ms))
            mean = [sum(scores[i::3]) / args.seeds for i in range(3)]
            rows.append({"kind": name, "honest": mean[0], "no_script": mean[1], "no_script_texts": mean[2]})
            print(f"{name}: {mean}", file=sys.stderr, flush=True)
    finally:
        pool.close()
    print("| kind | honest | no script | no script + expected texts |\n|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['kind']} | {r['honest']:.2f} | {r['no_script']:.2f} | {r['no_script_texts']:.2f} |")
    above = [r["kind"] for r in rows if r["no_script_texts"] > r["no_script"] + 1e-9]
    print(f"\nkinds where the texts score above the page without them: {len(above)} of {len(rows)} {above}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
