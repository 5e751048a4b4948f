"""A finished quickstart's pages again: its training pages and its scored pages, rebuilt from its summary.

The quickstart's pages are generated from its seed (training pages from the ``train`` split, scored pages from seed +
7919 in the scored split), so a later experiment on the same run (more refinement turns, another GRPO stage from the
same SFT model) regenerates them instead of storing them, and checks them against the digests ``summary.json``
recorded, so it scores exactly the pages the quickstart scored.

Example::

    summary = load_summary("outputs/quickstart")
    with BrowserPool(max_pages=2) as pool:
        test_rows = scored_pages(summary, pool=pool)            # the pages behind summary["holdout"]
"""

from __future__ import annotations

import json
import os
from typing import Any

from vcoder.pipelines.quickstart.config import DATA, FAST
from vcoder.pipelines.quickstart.stages import rows_digest

#: the seed offset of the scored pages (run_quickstart draws them from seed + this)
__all__ = ["load_summary", "scored_pages", "stand_in_run", "training_pages"]

SCORED_SEED_OFFSET = 7919


def load_summary(quickstart_dir: str) -> dict[str, Any]:
    """``quickstart_dir/summary.json``, with a message naming the folder when the run has not finished.

    Raises:
        FileNotFoundError: when the folder holds no summary (the run is missing or still going).
    """
    path = os.path.join(quickstart_dir, "summary.json")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} does not exist: point at a finished `vcoder quickstart --out DIR` folder")
    with open(path) as handle:
        summary = json.load(handle)
    summary.setdefault("dir", quickstart_dir)
    return summary


def _shot(progress: bool) -> dict[str, Any]:
    return dict(difficulty=DATA["difficulty"], width=DATA["width"], height=DATA["height"], progress=progress)


def training_pages(summary: dict[str, Any], *, pool, progress: bool = False) -> list[dict[str, Any]]:
    """The run's training pages (checked against ``train_digest``)."""
    from vcoder.pipelines.grpo.data import synthetic_rows

    rows = synthetic_rows(summary["n_train"], seed=summary["seed"], pool=pool, split="train", **_shot(progress))
    if summary.get("train_digest") and rows_digest(rows) != summary["train_digest"]:
        raise ValueError(
            f"the training pages rebuilt for seed {summary['seed']} differ from the run's; was it run by "
            "another version of the page generator?"
        )
    return rows


def scored_pages(
    summary: dict[str, Any], *, split: str | None = None, n: int | None = None, pool, progress: bool = False
) -> list[dict[str, Any]]:
    """The pages the run scores in ``split`` (default: the split it reported), ``n`` of them (default: as many as
    the run scored, or the quickstart's count for a split it did not score); checked against ``split_digest``
    when they are the run's own."""
    from vcoder.pipelines.grpo.data import synthetic_rows

    split = split or summary["split"]
    default_n = (FAST if summary.get("fast") else DATA)["n_holdout"]
    own = split == summary.get("split")
    n = n or (summary["n_holdout"] if own else default_n)
    seed = summary["seed"] + SCORED_SEED_OFFSET
    rows = synthetic_rows(n, seed=seed, pool=pool, split=split, **_shot(progress))
    if own and n == summary["n_holdout"] and rows_digest(rows) != summary["split_digest"]:
        raise ValueError(
            f"the {split} pages rebuilt for seed {summary['seed']} differ from the run's (digest "
            f"{summary['split_digest']}); was it run by another version of the page generator?"
        )
    return rows


def stand_in_run(folder: str, *, n_train: int = 8, pages: int = 2, split: str = "validation") -> str:
    """A finished quickstart in miniature, for small modes and tests: one tiny untrained VLM as both its ``sft`` and
    ``grpo`` models, and a summary naming ``n_train`` training pages and ``pages`` scored pages in ``split`` (the
    digests are real, so the checks above apply to it).

    Returns:
        ``folder``.
    """
    from vcoder.models.tiny import build_tiny_vlm
    from vcoder.pipelines.grpo.data import synthetic_rows

    os.makedirs(folder, exist_ok=True)
    build_tiny_vlm(os.path.join(folder, "sft"))
    os.symlink("sft", os.path.join(folder, "grpo"))
    scored = synthetic_rows(pages, seed=SCORED_SEED_OFFSET, split=split, **_shot(False))
    train = synthetic_rows(n_train, seed=0, split="train", **_shot(False))
    summary = {"seed": 0, "fast": True, "stand_in": True, "n_train": n_train, "train_digest": rows_digest(train)}
    summary.update(split=split, n_holdout=pages, split_digest=rows_digest(scored), holdout={})
    with open(os.path.join(folder, "summary.json"), "w") as handle:
        json.dump(summary, handle, indent=1)
    return folder
