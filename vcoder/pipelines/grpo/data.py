"""Training rows for the pipelines: {prompt, image, html, id} from the configured dataset, plus SFT targets.

The loaders in ``vcoder.data`` do the reading, sampling and holdout; this module picks one from the script
arguments, checks the columns the trainers need, and adds the assistant target for SFT.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

NEEDED_COLUMNS = ("prompt", "image", "html")


def check_columns(dataset, needed: tuple[str, ...] = NEEDED_COLUMNS, *, where: str = "dataset") -> None:
    """Refuse a dataset that lacks a column the pipeline reads.

    Args:
        dataset: a ``datasets.Dataset`` (or anything with ``column_names``).
        needed: the columns that must be present.
        where: how to name the dataset in the message.

    Raises:
        ValueError: naming the missing and the present columns.
    """
    found = list(dataset.column_names)
    missing = [name for name in needed if name not in found]
    if missing:
        raise ValueError(
            f"{where} lacks column(s) {missing}; it has {found}. vcoder needs {list(needed)}: 'html' (the reference "
            "page, WebSight calls it 'text'), 'image' (its screenshot) and 'prompt' (built from the screenshot by "
            "vcoder.data.prompts.make_conversation); use a vcoder.data loader or rename the columns"
        )


def sft_target(html: str, style: str = "any") -> str:
    """The assistant reply SFT teaches for a reference page, in the format the rewards expect.

    Args:
        html: the reference HTML.
        style: ``format_style`` of the run: ``fenced`` wraps the page in an html code fence, ``think`` prefixes an
            empty think block, ``bare``/``any`` return the page as is.

    Returns:
        The reply text.
    """
    html = html.strip()
    if style == "fenced":
        return f"```html\n{html}\n```"
    if style == "think":
        return f"<think>\n</think>\n{html}"
    return html


def synthetic_rows(
    n: int,
    *,
    seed: int = 0,
    difficulty: int = 0,
    width: int = 320,
    height: int = 240,
    max_pixels: int | None = None,
    system_prompt: str | None = None,
    user_prompt: str | None = None,
    exclude: set[str] | frozenset[str] = frozenset(),
    progress: bool = False,
    pool=None,
    split: str | None = None,
) -> list[dict[str, Any]]:
    """Generate ``n`` distinct synthetic pages and screenshot them with the rendering engine.

    Pages whose HTML digest is in ``exclude`` (or repeats) are skipped, so a holdout built with ``exclude`` set to
    the training digests can never overlap training.

    Args:
        n: number of rows.
        seed: base seed; page ``i`` comes from generator seed ``seed * 1_000_003 + i`` (then further seeds).
        difficulty: generator difficulty 0-3.
        width: viewport width of the screenshots.
        height: viewport height.
        max_pixels: resize screenshots to at most this many pixels (keeping aspect), None keeps them.
        system_prompt: system turn (None: the default prompt).
        user_prompt: user instruction (None: the default prompt).
        exclude: HTML digests (``vcoder.data.synthetic.page_digest``) to leave out.
        progress: show a progress bar while rendering.
        pool: a ``BrowserPool`` to render with (default: a private one, closed afterwards).
        split: None, or only pages whose content is in this split (``train``, ``validation``, ``test``), one page per
            content (:func:`vcoder.data.synthetic.split_pages`; ``exclude`` is then not needed).

    Returns:
        Rows ``{"prompt", "image" (PIL RGB), "html", "id"}``.
    """
    from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT, make_conversation
    from vcoder.data.synthetic import generate_page, page_digest, split_pages
    from vcoder.images import resize_to_max_pixels
    from vcoder.rendering import pool_or_private

    pages, seen = [], set(exclude)
    candidate = seed * 1_000_003
    if split is not None:
        pages = split_pages(n, seed=seed, split=split, difficulty=difficulty)
        if any(page_digest(p.html) in seen for p in pages):
            raise ValueError(f"a {split} page is in exclude; pass exclude or split, not both")
    while len(pages) < n:
        page = generate_page(candidate, difficulty=difficulty)
        candidate += 1
        digest = page_digest(page.html)
        if digest in seen:
            continue
        seen.add(digest)
        pages.append(page)
        if candidate - seed * 1_000_003 > 50 * n + 1000:
            raise ValueError(f"could not find {n} distinct difficulty-{difficulty} pages; ask for fewer")
    with pool_or_private(pool, max_pages=2) as renderer:
        htmls = [p.html for p in pages]
        shots = renderer.render_many(htmls, width=width, height=height, full_page=True, progress=progress)
        # a loaded machine occasionally fails a screenshot ("Unable to capture screenshot"): retry those once
        retry = [i for i, r in enumerate(shots) if not r.ok]
        if retry:
            again = renderer.render_many([htmls[i] for i in retry], width=width, height=height, full_page=True)
            for i, rendered in zip(retry, again):
                shots[i] = rendered
    failed = [(p.id, r.error) for p, r in zip(pages, shots) if not r.ok]
    if failed:
        raise RuntimeError(f"{len(failed)} synthetic pages failed to render, e.g. {failed[:3]}; check Chromium")
    prompt = make_conversation(
        system_prompt=DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt,
        user_prompt=user_prompt or DEFAULT_USER_PROMPT,
    )
    return [
        {"prompt": prompt, "image": resize_to_max_pixels(r.pil(), max_pixels), "html": p.html, "id": p.id}
        for p, r in zip(pages, shots)
    ]


def _loader_rows(script_args, split: str, max_samples: int | None) -> list[dict]:
    """One split of vcoder.data's hub/local loaders as a list of rows."""
    from vcoder.data import design2code, local, prompts, websight

    common = dict(
        max_samples=max_samples,
        max_pixels=script_args.max_pixels,
        system_prompt=prompts.DEFAULT_SYSTEM_PROMPT
        if script_args.system_prompt is None
        else script_args.system_prompt,
        user_prompt=script_args.user_prompt or prompts.DEFAULT_USER_PROMPT,
    )
    if script_args.dataset == "design2code":
        # a benchmark: scored whole, never split
        if split == "holdout":
            return []
        return list(design2code.load_design2code(script_args.dataset_source or design2code.HUB_ID, **common))
    filters = {
        "min_html_chars": script_args.min_html_chars or 0,
        "max_html_chars": script_args.max_html_chars,
        "min_width": script_args.min_image_side,
        "min_height": script_args.min_image_side,
        "max_width": script_args.max_image_side,
        "max_height": script_args.max_image_side,
    }
    common.update(split=split, holdout=script_args.holdout, seed=script_args.dataset_seed, **filters)
    if script_args.dataset == "websight":
        return list(
            websight.load_websight(
                script_args.dataset_version,
                streaming=script_args.dataset_streaming,
                source=script_args.dataset_source,
                **common,
            )
        )
    return list(local.load_local(script_args.dataset, **common))


def build_datasets(script_args, *, progress: bool = False):
    """Build the training set and the holdout set the script arguments describe.

    Args:
        script_args: ``VCoderScriptArguments``.
        progress: show progress bars (rendering synthetic screenshots).

    Returns:
        ``(train, holdout)`` as ``datasets.Dataset`` (holdout is None when ``holdout`` is 0).
    """
    if script_args.dataset == "trajectories":
        raise ValueError("dataset=trajectories is agent SFT's data (`vcoder train sft`); GRPO trains on pages")
    if script_args.dataset == "synthetic":
        options = dict(
            difficulty=script_args.synthetic_difficulty,
            width=script_args.synthetic_width,
            height=script_args.synthetic_height,
            max_pixels=script_args.max_pixels,
            system_prompt=script_args.system_prompt,
            user_prompt=script_args.user_prompt,
            progress=progress,
        )
        n_holdout = round(script_args.holdout * script_args.synthetic_samples)
        if script_args.holdout_max_samples is not None:
            n_holdout = min(n_holdout, script_args.holdout_max_samples)
        n_train = script_args.synthetic_samples - n_holdout
        if script_args.max_samples is not None:
            n_train = min(n_train, script_args.max_samples)
        train = synthetic_rows(n_train, seed=script_args.dataset_seed, **options)
        holdout = []
        if n_holdout:
            from vcoder.data.synthetic import page_digest

            # a disjoint seed range, and digests of training pages excluded: no page is in both sets
            exclude = {page_digest(row["html"]) for row in train}
            holdout = synthetic_rows(n_holdout, seed=script_args.dataset_seed + 7919, exclude=exclude, **options)
    else:
        train = _loader_rows(script_args, "train", script_args.max_samples)
        holdout = _loader_rows(script_args, "holdout", script_args.holdout_max_samples) if script_args.holdout else []
    if not train:
        raise ValueError(f"dataset={script_args.dataset!r} gave no training rows; loosen the filters or max_samples")
    from vcoder.data import to_dataset

    train_ds, holdout_ds = to_dataset(train), to_dataset(holdout)
    check_columns(train_ds, where=f"dataset {script_args.dataset!r}")
    logger.info("dataset %s: %d training rows, %d held out", script_args.dataset, len(train), len(holdout))
    return train_ds, holdout_ds


def with_sft_targets(dataset, style: str = "any"):
    """Add the SFT ``completion`` column (an assistant turn holding the reference page) to a row dataset."""
    check_columns(dataset, where="SFT dataset")

    def add(row):
        return {
            "completion": [
                {"role": "assistant", "content": [{"type": "text", "text": sft_target(row["html"], style)}]}
            ]
        }

    return dataset.map(add)
