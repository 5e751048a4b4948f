"""Which of a screenshot's facts the one-shot quickstart's models get right, on the pages its run scored: the heading
(text the model must read), the column count, the background, the boxes' height, and the boxes' colours (their
number, all in order, the first). One row per model (untrained, SFT, GRPO) per run, from the run's own greedy pages
(``DIR/eval/<model>_eval.json``) against the generator's facts of each reference page, beside the run's ``overall``.

    PYTHONPATH=$PWD python experiments/quickstart_features.py outputs/quickstart-0 outputs/quickstart-1 \\
        outputs/quickstart-2 --out outputs/features.json
    PYTHONPATH=$PWD python experiments/quickstart_features.py --prices 24    # what the GRPO reward pays per fact
    PYTHONPATH=$PWD python experiments/quickstart_features.py --small        # a stand-in run: 4 reference pages

The quickstart's metric scores matched text blocks (Design2Code), not the background or the boxes' height; this table
shows what the models write for those too. ``--prices N``: on N generated pages, the GRPO recipe's rewards for each
reference page minus those for the page with one fact changed (``vcoder.data.altered_pages``): what the reward pays
for getting each fact right, per reward and in total (of 6). Prints one JSON document: ``runs`` (per run and model),
``table`` (the mean over runs per model) and, with ``--prices``, ``prices``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from vcoder.data import altered_pages, feature_accuracy, generate_page
from vcoder.usage import OneLineParser

MODELS = ("untrained", "sft", "grpo")


def run_features(run: str) -> dict:
    """One finished quickstart folder: per model, the share of scored pages stating each fact as the reference."""
    summary_path = os.path.join(run, "summary.json")
    if not os.path.exists(summary_path):
        raise FileNotFoundError(f"{summary_path} does not exist: give a finished `vcoder quickstart --out DIR`")
    with open(summary_path, encoding="utf-8") as handle:
        summary = json.load(handle)
    models = {}
    for name in MODELS:
        path = os.path.join(run, "eval", f"{name}_eval.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as handle:
            pages = json.load(handle)["pages"]
        pairs = [(p["completion"] or "", generate_page(int(p["id"].split("-")[1])).meta) for p in pages]
        overall = [p["overall"] for p in pages if p.get("overall") is not None]
        models[name] = {**feature_accuracy(pairs), "overall": sum(overall) / len(overall) if overall else None}
    return {"run": run, "seed": summary.get("seed"), "split": summary.get("split"), "models": models}


def mean_table(runs: list[dict]) -> list[dict]:
    table = []
    for name in MODELS:
        rows = [r["models"][name] for r in runs if name in r["models"]]
        if rows:
            keys = [k for k in rows[0] if k != "n"]
            mean = {
                k: round(sum(r[k] for r in rows) / len(rows), 4) for k in keys if all(r[k] is not None for r in rows)
            }
            table.append({"model": name, "runs": len(rows), **mean})
    return table


def reward_prices(n_pages: int) -> dict:
    """Per fact: the GRPO recipe's rewards of each reference page minus those of the page with that fact changed,
    averaged over ``n_pages`` generated pages (the reference renders from its HTML, at the quickstart's size)."""
    from vcoder.pipelines.quickstart import DATA, GRPO_RECIPE
    from vcoder.rewards import build_rewards, score_completions

    names, weights = GRPO_RECIPE["reward_funcs"], GRPO_RECIPE["reward_weights"]
    funcs = build_rewards(names, render_width=DATA["width"], render_height=DATA["height"])
    lost: dict[str, list[dict]] = {}
    for seed in range(n_pages):
        page = generate_page(seed)
        altered = altered_pages(page)
        htmls = [page.html, *altered.values()]
        rows = [{"prompt": None, "html": page.html}] * len(htmls)  # the reference renders from its HTML
        scores = {name: score_completions(func, rows, htmls) for name, func in zip(names, funcs)}
        for i, fact in enumerate(altered, start=1):
            lost.setdefault(fact, []).append(
                {name: (scores[name][0] or 0.0) - (scores[name][i] or 0.0) for name in names}
            )
    prices = {}
    for fact, rows in lost.items():
        mean = {name: round(sum(r[name] for r in rows) / len(rows), 4) for name in names}
        total = round(sum(w * mean[name] for name, w in zip(names, weights)), 4)
        prices[fact] = {"pages": len(rows), "total": total, **mean}
    return dict(sorted(prices.items(), key=lambda item: -item[1]["total"]))


def stand_in(folder: str) -> str:
    """A run folder with 4 reference pages: ``sft`` wrote each reference, ``grpo`` each with another heading."""
    pages = [generate_page(seed) for seed in range(4)]
    os.makedirs(os.path.join(folder, "eval"), exist_ok=True)
    with open(os.path.join(folder, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump({"seed": 0, "split": "validation"}, handle)
    for name, edit in (("sft", lambda html, meta: html), ("grpo", _other_heading)):
        rows = [{"id": p.id, "completion": edit(p.html, p.meta), "overall": None} for p in pages]
        with open(os.path.join(folder, "eval", f"{name}_eval.json"), "w", encoding="utf-8") as handle:
            json.dump({"pages": rows}, handle)
    return folder


def _other_heading(html: str, meta: dict) -> str:
    other = "Sale" if meta["heading"] != "Sale" else "News"
    return html.replace(f"<h1>{meta['heading']}</h1>", f"<h1>{other}</h1>")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="finished `vcoder quickstart --out DIR` folders")
    parser.add_argument("--out", help="also write the JSON document here")
    parser.add_argument("--prices", type=int, default=0, metavar="N", help="what the reward pays per fact, on N pages")
    parser.add_argument(
        "--small", action="store_true", help="a stand-in run of 4 reference pages, prices on 2 (a check of the path)"
    )
    args = parser.parse_args(argv)
    if not args.runs and not args.small and not args.prices:
        parser.error("give one or more quickstart folders, --prices N or --small")
    if args.prices < 0:
        parser.error(f"--prices {args.prices}: give a number of pages >= 1")
    with tempfile.TemporaryDirectory() as scratch:
        runs = [stand_in(os.path.join(scratch, "run"))] if args.small else list(args.runs)
        try:
            results = [run_features(run) for run in runs]
        except (FileNotFoundError, KeyError, ValueError) as exc:
            print(f"quickstart_features.py: error: {exc}", file=sys.stderr)
            return 2
    report = {"runs": results, "table": mean_table(results)}
    n_prices = 2 if args.small else args.prices
    if n_prices:
        report["prices"] = reward_prices(n_prices)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
