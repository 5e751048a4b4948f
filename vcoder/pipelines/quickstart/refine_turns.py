"""Does seeing the render help? The quickstart's model refines its page for k turns in the refinement environment.

Turn 0 is the one-shot answer (what the quickstart scores). After each turn the page goes through
:class:`vcoder.envs.refine.RefineCore` (the one refinement core: the hermetic render and the rewards' scores), and the
model gets a user turn holding the render's screenshot, the scores and a request for the corrected page, then answers
again (greedy, the quickstart's 48 tokens). Every turn's answer is scored with the quickstart's metric (Design2Code's
block metrics against the reference, ``overall`` their mean), one row per turn. Screenshot feedback is a user turn,
not a tool response: Qwen2.5-VL's chat template has no tools, and images in tool messages are dropped by some
templates.

Example::

    result = run_refine_turns("outputs/quickstart", turns=3)
    [row["overall"] for row in result["turns"]]        # turn 0 .. 3
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

__all__ = ["refine_answers", "refine_settings", "run_refine_turns", "score_turns"]

logger = logging.getLogger(__name__)

#: what the model is told with each render (after the environment's own one-line-per-reward report)
FEEDBACK = (
    "Above: your page as the browser renders it. Compare it with the first screenshot and write the corrected HTML."
)


def refine_settings(turns: int, reward_funcs: list[str], *, width: int, height: int):
    """The refinement setting of the experiment: the quickstart's GRPO rewards at its render size."""
    from vcoder.envs.refine import RefineSettings

    return RefineSettings(
        rewards=tuple(reward_funcs),
        max_turns=max(1, turns),
        image_side=max(width, height),
        reward_params=(("render_width", width), ("render_height", height), ("render_timeout_ms", 10000)),
    )


def refine_answers(
    model, processor, rows, settings, *, turns: int, max_new_tokens: int = 48, progress: bool = False
) -> list[list[str]]:
    """The model's answer at each turn 0..``turns`` for each row ``{"prompt", "image", "html"}``.

    Returns:
        ``answers[k][i]``: row i's answer at turn k.
    """
    from trl.data_utils import prepare_multimodal_messages

    from vcoder.envs import driver
    from vcoder.envs.refine import RefineCore
    from vcoder.pipelines.grpo.heldout import generate_replies

    rows = list(rows)
    messages = [prepare_multimodal_messages(row["prompt"], images=[row["image"]]) for row in rows]
    images = [[row["image"]] for row in rows]
    cores = [RefineCore(settings) for _ in rows]
    for core, row in zip(cores, rows):
        core.reset(image=row["image"], html=row["html"])
    answers: list[list[str]] = []
    for turn in range(turns + 1):
        replies = generate_replies(model, processor, messages, images, max_new_tokens=max_new_tokens)
        answers.append(replies)
        logger.info("turn %d: %d answers", turn, len(replies))
        if turn == turns:
            break

        async def render_all(replies=replies):
            return await asyncio.gather(*(core.render(text) for core, text in zip(cores, replies)))

        steps = driver.run(render_all())
        for conversation, shown, reply, step in zip(messages, images, replies, steps):
            conversation.append({"role": "assistant", "content": [{"type": "text", "text": reply}]})
            content = [{"type": "text", "text": f"{step.text()}\n{FEEDBACK}"}]
            if step.image is not None:
                content.insert(0, {"type": "image"})
                shown.append(step.image)
            conversation.append({"role": "user", "content": content})
    return answers


def score_turns(rows, answers: list[list[str]], *, width: int, height: int, pool=None) -> list[dict[str, Any]]:
    """One row per turn: the quickstart's metric (Design2Code block metrics, ``overall``) of that turn's answers,
    and ``changed``: the share of pages whose answer differs from the turn before."""
    from vcoder.pipelines.grpo.heldout import mean_metrics, score_predictions

    rows = list(rows)
    ids = [str(row.get("id", i)) for i, row in enumerate(rows)]
    table = []
    for turn, replies in enumerate(answers):
        scores = score_predictions([r["html"] for r in rows], replies, width=width, height=height, pool=pool, ids=ids)
        before = answers[turn - 1] if turn else replies
        changed = sum(a != b for a, b in zip(replies, before)) / max(1, len(replies))
        table.append({"turn": turn, **mean_metrics(scores), "changed": changed})
    return table


def run_refine_turns(
    quickstart_dir: str, *, turns: int = 3, model: str = "grpo", progress: bool = False, threads: int | None = None
) -> dict[str, Any]:
    """Score a finished quickstart's model on its own scored pages after 0..``turns`` refinement turns.

    Args:
        quickstart_dir: a finished ``vcoder quickstart --out DIR`` folder (its summary.json and models).
        turns: refinement turns after the one-shot answer (K).
        model: which of the run's models: ``grpo`` or ``sft``.
        progress: show progress bars while the pages are rebuilt.
        threads: torch CPU threads (None: the quickstart's choice of idle cores).

    Returns:
        ``{"seed", "split", "split_digest", "model", "n", "quickstart_overall", "turns": [row per turn]}``.
    """
    import os

    import torch

    from vcoder.models.loading import load_policy
    from vcoder.pipelines.quickstart.config import DATA, GRPO_RECIPE
    from vcoder.pipelines.quickstart.reuse import load_summary, scored_pages
    from vcoder.pipelines.quickstart.stages import auto_threads
    from vcoder.rendering import BrowserPool

    if turns < 0:
        raise ValueError(f"turns={turns}: give 0 or more refinement turns")
    summary = load_summary(quickstart_dir)
    model_dir = os.path.join(quickstart_dir, model)
    if not os.path.exists(os.path.join(model_dir, "config.json")):
        raise FileNotFoundError(f"{model_dir} holds no model: give a finished quickstart and model grpo or sft")
    torch.set_num_threads(threads or auto_threads())
    width, height = DATA["width"], DATA["height"]
    settings = refine_settings(turns, GRPO_RECIPE["reward_funcs"], width=width, height=height)
    policy, processor = load_policy(model_dir)
    with BrowserPool(max_pages=2) as pool:
        rows = scored_pages(summary, pool=pool, progress=progress)
        answers = refine_answers(policy, processor, rows, settings, turns=turns, progress=progress)
        table = score_turns(rows, answers, width=width, height=height, pool=pool)
    return {
        "seed": summary["seed"],
        "split": summary["split"],
        "split_digest": summary["split_digest"],
        "model": model,
        "n": len(rows),
        "quickstart_overall": summary.get("holdout", {}).get(model, {}).get("overall"),
        "turns": table,
    }
