"""Score a model on held-out rows: generate HTML from each screenshot, render it, Design2Code block metrics.

The same prompt the model trained on is used, decoding is greedy (one deterministic answer per page), and the
reference is re-rendered from its HTML (as Design2Code does) in the same browser pool and viewport as the
prediction. CLIP is left out (it needs weights that are not available offline), so ``overall`` here is the mean of
Block-Match, Text, Position and Colour, and ``valid`` is the share of outputs that rendered to a non-empty page.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

logger = logging.getLogger(__name__)

METRICS = ("block_match", "text", "position", "color", "overall", "valid")


def generate_html(
    model, processor, rows, *, max_new_tokens: int = 256, batch_size: int = 8, progress: bool = False
) -> list[str]:
    """Greedy completions for rows ``{"prompt", "image"}`` (TRL's conversational VLM format).

    Args:
        model: an image-text-to-text model.
        processor: its processor.
        rows: a dataset or list of rows with ``prompt`` and ``image``.
        max_new_tokens: generation budget per page.
        batch_size: pages per ``generate`` call.
        progress: show a progress bar.

    Returns:
        The decoded completions, one per row.
    """
    import torch
    from tqdm.auto import tqdm
    from trl.data_utils import prepare_multimodal_messages

    rows = list(rows)
    outputs: list[str] = []
    was_training = model.training
    model.eval()
    tokenizer = getattr(processor, "tokenizer", processor)
    try:
        for start in tqdm(range(0, len(rows), batch_size), desc="generate", disable=not progress, unit="batch"):
            batch = rows[start : start + batch_size]
            messages = [prepare_multimodal_messages(row["prompt"], images=[row["image"]]) for row in batch]
            texts = [processor.apply_chat_template(m, add_generation_prompt=True, tokenize=False) for m in messages]
            inputs = processor(
                text=texts, images=[[row["image"]] for row in batch], return_tensors="pt", padding=True
            ).to(model.device)
            with torch.no_grad():
                ids = model.generate(
                    **inputs,
                    max_new_tokens=max_new_tokens,
                    do_sample=False,
                    pad_token_id=tokenizer.pad_token_id,
                    eos_token_id=tokenizer.eos_token_id,
                )
            new = ids[:, inputs["input_ids"].shape[1] :]
            outputs += tokenizer.batch_decode(new, skip_special_tokens=True)
    finally:
        model.train(was_training)
    return outputs


def score_predictions(
    references: list[str], predictions: list[str], *, width: int = 320, height: int = 240, pool=None
) -> list[dict[str, Any]]:
    """Design2Code block metrics of raw model outputs against reference HTML, one dict per page.

    Args:
        references: reference HTML pages.
        predictions: raw completions (fences and chatter are stripped with ``extract_html``).
        width: viewport width for both renders.
        height: viewport height.
        pool: a ``BrowserPool`` to reuse (default: a private one, closed afterwards).

    Returns:
        Per page ``{"block_match", "text", "position", "color", "overall", "valid"}``; a prediction without HTML or
        that fails to render scores 0 everywhere (Design2Code counts a missing page as 0).
    """
    from vcoder.metrics import block_scores, extract_html
    from vcoder.rendering import BrowserPool

    htmls = [extract_html(text) or "" for text in predictions]
    own = pool is None
    pool = pool or BrowserPool(max_pages=2)
    try:
        rendered = pool.render_many(list(references) + htmls, width=width, height=height, full_page=True)
    finally:
        if own:
            pool.close()
    refs, preds = rendered[: len(references)], rendered[len(references) :]
    results = []
    for html, ref, pred in zip(htmls, refs, preds):
        zero = dict.fromkeys(METRICS, 0.0)
        if not ref.ok:
            raise RuntimeError(f"a reference page failed to render ({ref.error}); the holdout cannot be scored")
        if not html or not pred.ok:
            results.append(zero)
            continue
        s = block_scores(ref.layout, pred.layout, ref_image=ref.image, pred_image=pred.image)
        row = {"block_match": s.block_match, "text": s.text, "position": s.position, "color": s.color}
        row = {k: float(v) for k, v in row.items()}
        row["overall"] = sum(row.values()) / 4
        row["valid"] = 1.0 if pred.layout is not None and pred.layout.elements else 0.0
        results.append(row)
    return results


def mean_metrics(results: list[dict[str, Any]]) -> dict[str, float]:
    """Mean of each metric over pages (0.0 for an empty list)."""
    return {k: (sum(r[k] for r in results) / len(results) if results else 0.0) for k in METRICS}


def evaluate_model(
    model, processor, rows, *, script_args=None, max_new_tokens: int = 256, progress: bool = False, pool=None
) -> dict[str, Any]:
    """Generate on held-out rows and score them.

    Args:
        model: the model to evaluate.
        processor: its processor.
        rows: rows with ``prompt``, ``image``, ``html`` (and ``id``).
        script_args: ``VCoderScriptArguments`` (viewport of the synthetic pages), optional.
        max_new_tokens: generation budget per page.
        progress: show progress bars.
        pool: a ``BrowserPool`` to reuse.

    Returns:
        ``{"mean": {metric: value}, "pages": [{"id", "completion", metrics...}]}``.
    """
    rows = list(rows)
    width = getattr(script_args, "synthetic_width", 320) if script_args is not None else 320
    height = getattr(script_args, "synthetic_height", 240) if script_args is not None else 240
    completions = generate_html(model, processor, rows, max_new_tokens=max_new_tokens, progress=progress)
    scores = score_predictions([r["html"] for r in rows], completions, width=width, height=height, pool=pool)
    pages = [
        {"id": row.get("id", str(i)), "completion": text, **score}
        for i, (row, text, score) in enumerate(zip(rows, completions, scores))
    ]
    return {"mean": mean_metrics(scores), "pages": pages}


def write_eval(metrics: dict[str, Any], out_dir: str, name: str = "holdout") -> str:
    """Write ``<out_dir>/<name>_eval.json`` and return its path."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}_eval.json")
    with open(path, "w") as handle:
        json.dump(metrics, handle, indent=1)
    return path
