"""Score a model on held-out rows: generate HTML from each screenshot, render it, Design2Code block metrics.

The same prompt the model trained on is used, decoding is greedy (one deterministic answer per page), and the
reference is re-rendered from its HTML (as Design2Code does) in the same browser pool and at the same viewport as
the prediction: the run's reward render size. Scoring is ``vcoder eval design2code``'s (``vcoder.eval.scoring``);
CLIP is left out (it needs weights that are not available offline), so ``overall`` here is the mean of
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
    from trl.data_utils import prepare_multimodal_messages

    rows = list(rows)
    messages = [prepare_multimodal_messages(row["prompt"], images=[row["image"]]) for row in rows]
    images = [[row["image"]] for row in rows]
    return generate_replies(
        model, processor, messages, images, max_new_tokens=max_new_tokens, batch_size=batch_size, progress=progress
    )


def generate_replies(
    model,
    processor,
    messages: list[list[dict[str, Any]]],
    images: list[list[Any]],
    *,
    max_new_tokens: int = 256,
    batch_size: int = 8,
    progress: bool = False,
) -> list[str]:
    """Greedy replies to conversations whose image parts are ``{"type": "image"}`` placeholders.

    Args:
        model: an image-text-to-text model.
        processor: its processor.
        messages: one conversation per item (multimodal content lists, several turns allowed).
        images: each conversation's images, in the order of its image parts.
        max_new_tokens: generation budget per reply.
        batch_size: conversations per ``generate`` call.
        progress: show a progress bar.

    Returns:
        The decoded replies, one per conversation.
    """
    import torch
    from tqdm.auto import tqdm

    outputs: list[str] = []
    was_training = model.training
    model.eval()
    tokenizer = getattr(processor, "tokenizer", processor)
    try:
        for start in tqdm(range(0, len(messages), batch_size), desc="generate", disable=not progress, unit="batch"):
            batch = messages[start : start + batch_size]
            texts = [processor.apply_chat_template(m, add_generation_prompt=True, tokenize=False) for m in batch]
            inputs = processor(
                text=texts, images=images[start : start + batch_size], return_tensors="pt", padding=True
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
    references: list[str], predictions: list[str], *, width: int, height: int, pool=None, ids: list[str] | None = None
) -> list[dict[str, Any]]:
    """Design2Code rows of raw model outputs against reference HTML, scored as ``vcoder eval design2code`` scores.

    One definition of Design2Code scoring: each pair goes through ``vcoder.eval.scoring.score_rendered`` (same
    blocks, same failure rules: an unrenderable prediction scores 0, an output without HTML is scored as a page
    holding its text, a reference that fails to render is reported, not blamed on the model). CLIP is left out
    (it needs weights that are not available offline), so ``overall`` is the mean of the four block metrics.

    Args:
        references: reference HTML pages.
        predictions: raw completions.
        width: viewport width for both renders (the run's reward render size: what training optimised).
        height: viewport height.
        pool: a ``BrowserPool`` to reuse (default: a private one, closed afterwards).
        ids: sample ids for the rows (default: positions).

    Returns:
        One row per page: ``vcoder.eval`` row fields plus ``valid`` (1.0 when the output rendered to a page with
        at least one element).
    """
    from vcoder.eval.scoring import prediction_html, score_rendered
    from vcoder.rendering import pool_or_private

    ids = [str(i) for i in range(len(references))] if ids is None else [str(i) for i in ids]
    pages = [prediction_html(text) for text in predictions]
    with pool_or_private(pool, max_pages=2) as renderer:
        rendered = renderer.render_many(
            list(references) + [html for html, _ in pages], width=width, height=height, full_page=True
        )
    refs, preds = rendered[: len(references)], rendered[len(references) :]
    rows = []
    for sample_id, (_, note), ref, pred in zip(ids, pages, refs, preds):
        row = score_rendered(sample_id, ref, pred, note=note)
        row["valid"] = 1.0 if pred.ok and pred.layout is not None and pred.layout.elements else 0.0
        rows.append(row)
    return rows


def mean_metrics(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """Mean of each metric over the scored rows (rows whose reference failed to render are left out, as in
    ``vcoder eval design2code``); None for a metric no row has."""
    from vcoder.eval.results import is_done

    scored = [r for r in rows if is_done(r)]
    out: dict[str, float | None] = {}
    for name in METRICS:
        values = [r[name] for r in scored if r.get(name) is not None]
        out[name] = sum(values) / len(values) if values else None
    out["n"] = len(scored)
    return out


def evaluate_model(
    model,
    processor,
    rows,
    *,
    width: int,
    height: int,
    max_new_tokens: int = 256,
    progress: bool = False,
    pool=None,
) -> dict[str, Any]:
    """Generate on held-out rows and score them.

    Args:
        model: the model to evaluate.
        processor: its processor.
        rows: rows with ``prompt``, ``image``, ``html`` (and ``id``).
        width: render viewport width (the run's ``render_width``).
        height: render viewport height (the run's ``render_height``).
        max_new_tokens: generation budget per page.
        progress: show progress bars.
        pool: a ``BrowserPool`` to reuse.

    Returns:
        ``{"mean": {metric: value, "n"}, "pages": [{"id", "completion", row fields...}]}``.
    """
    rows = list(rows)
    completions = generate_html(model, processor, rows, max_new_tokens=max_new_tokens, progress=progress)
    ids = [str(row.get("id", i)) for i, row in enumerate(rows)]
    scores = score_predictions([r["html"] for r in rows], completions, width=width, height=height, pool=pool, ids=ids)
    pages = [{"completion": text, **score} for text, score in zip(completions, scores)]
    return {"mean": mean_metrics(scores), "pages": pages}


def write_eval(metrics: dict[str, Any], out_dir: str, name: str = "holdout") -> str:
    """Write ``<out_dir>/<name>_eval.json`` and return its path."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}_eval.json")
    with open(path, "w") as handle:
        json.dump(metrics, handle, indent=1)
    return path


def score_holdout(trainer, holdout, script_args, output_dir: str) -> dict[str, Any]:
    """Score a trained GRPO or SFT model on its holdout rows and write ``<output_dir>/holdout_eval.json``: the
    ``score_holdout`` that :func:`vcoder.pipelines.recipes.run_pipeline` is handed.

    Args:
        trainer: the trainer after training (its ``model`` and ``processing_class``).
        holdout: rows with ``prompt``, ``image``, ``html``.
        script_args: ``VCoderScriptArguments`` (``render_width``, ``render_height``).
        output_dir: where the scores go.

    Returns:
        The mean metrics (``evaluate_model(...)["mean"]``).
    """
    metrics = evaluate_model(
        trainer.model,
        trainer.processing_class,
        holdout,
        width=script_args.render_width,
        height=script_args.render_height,
    )
    write_eval(metrics, output_dir)
    return metrics["mean"]
