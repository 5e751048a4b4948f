"""One phase's ``algorithm: webrl`` update of the web agent's curriculum (called by :func:`.run.run_phase`).

Order, as WebRL's: the phase's transitions (:func:`.webrl.phase_transitions`) plus the replayed successes the
start policy's confidence keeps (WebRL's window, as RL data with their recorded returns) -> the reference's
log-probabilities and the critic's features, computed with the start policy before it changes -> candidate new tasks
opened once for their first observation (features from the same reference) -> :class:`.webrl.WebAgentWebRLTrainer`
(critic first, then the actor) -> the critic's predicted success of each candidate, kept in ``[band_low, band_high]``
(WebRL's difficulty filter) -> ``critic.pt`` saved beside the phase's model.
"""

from __future__ import annotations

import asyncio
import logging
import math
from pathlib import Path
from typing import Any

from vcoder.browse import WebTask, arun_episode
from vcoder.pipelines.curriculum.replay import replay_filter
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.pool import new_instances, with_new_tasks
from vcoder.pipelines.web_agent.webrl import (
    Collator,
    WebAgentWebRLTrainer,
    WebRLCritic,
    encode,
    phase_transitions,
    prompt_features,
    trajectory_items,
)

logger = logging.getLogger(__name__)


class _Exit:
    """Reads the start page and stops: the probe that gives a candidate task its first observation."""

    name = "probe"

    async def act(self, messages: list[dict[str, str]]) -> str:
        return 'exit(message="")'


def candidate_tasks(config: WebAgentConfig, phase: int, pool: list[WebTask], heldout: list[WebTask]) -> list[WebTask]:
    """Up to ``3 * new_tasks_per_phase`` new task instances, the sites taken in turn, none repeating an intent of the
    pool or the held-out set (:func:`.pool.new_instances`, as :func:`.run.grow_pool` draws them)."""
    per_site = new_instances(config, phase, pool, heldout)
    interleaved = [t for group in zip(*per_site, strict=False) for t in group]
    if not interleaved:  # zip stops at the shortest site: fall back to all of them in site order
        interleaved = [t for group in per_site for t in group]
    return interleaved[: 3 * config.new_tasks_per_phase]


async def _first_prompts(tasks, browser, config):
    out = []
    for task in tasks:
        episode = await arun_episode(task, _Exit(), pool=browser, step_budget=1)
        chats = episode.step_messages()
        out.append(chats[0][:-1] if chats else None)
    return out


def _sft_config(config: WebAgentConfig, folder: Path, phase: int):
    from trl import SFTConfig

    return SFTConfig(
        output_dir=str(folder / "trainer"),
        per_device_train_batch_size=config.batch_size,
        gradient_accumulation_steps=1,
        num_train_epochs=config.epochs,
        learning_rate=config.learning_rate,
        weight_decay=0.0,
        lr_scheduler_type="constant",
        max_grad_norm=1.0,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        remove_unused_columns=False,
        dataset_kwargs={"skip_prepare_dataset": True},
        max_length=None,
        bf16=config.dtype == "bfloat16",
        use_cpu=config.device == "cpu",
        seed=config.seed * 100 + phase,
        disable_tqdm=True,
    )


def webrl_update(
    config: WebAgentConfig,
    folder: Path,
    phase: int,
    model,
    tokenizer,
    rollouts,
    buffer: list[dict[str, Any]],
    *,
    pool: list[WebTask],
    heldout: list[WebTask],
    browser,
    previous_critic: Path | None,
    candidates: list[WebTask] | None = None,
) -> dict[str, Any]:
    """The phase's update in place on ``model`` (the start policy: the reference); see the module docstring.

    ``candidates``: the new tasks the critic filters (the task writer's, as in WebRL); None or empty: new generated
    instances (:func:`candidate_tasks`).

    Returns:
        ``{"train", "critic", "replay", "fresh", "next_pool", "candidates"}``: the actor's stats, the critic's fit,
        the replay counts, the phase's new buffer items (its successful trajectories), the next pool, the candidates'
        predicted success.
    """
    import torch
    from datasets import Dataset

    from vcoder.models.train_loop import run_training
    from vcoder.pipelines.web_agent.lm import completion_logprobs

    opts = {"max_prompt_tokens": config.max_prompt_tokens, "system": config.system_prompt}
    items = phase_transitions(rollouts, phase=phase)
    fresh = [it for e in rollouts if e.evaluation.success for it in trajectory_items(e, phase=phase)]
    replay = {"kept": 0, "dropped_easy": 0, "dropped_unlikely": 0, "used_as_rl": 0}
    if buffer:
        confidence = completion_logprobs(model, tokenizer, [(b["task"], b["completion"]) for b in buffer], **opts)
        kept, counts = replay_filter([math.exp(c) for c in confidence], low=config.replay_low, high=config.replay_high)
        usable = [buffer[i] for i in kept if "mc_return" in buffer[i]]  # a filtered_bc buffer has no returns
        replay = {**counts, "used_as_rl": len(usable)}
        items += usable
    rows = encode(items, model, tokenizer, **opts)
    candidates = candidates or candidate_tasks(config, phase, pool, heldout)
    prompts = asyncio.run(_first_prompts(candidates, browser, config))
    probed = [(t, p) for t, p in zip(candidates, prompts) if p is not None]
    candidate_features = prompt_features(model, tokenizer, [p for _, p in probed], **opts)

    hidden = model.config.get_text_config().hidden_size
    critic = WebRLCritic.load(previous_critic) if previous_critic and previous_critic.is_file() else None
    if critic is None or critic.hidden != hidden:
        torch.manual_seed(config.seed * 100 + phase)
        critic = WebRLCritic(hidden)
    train: dict[str, Any] = {"steps": 0, "samples": len(rows), "loss_first": None, "loss_last": None}
    fit: dict[str, Any] = {"steps": 0}
    if rows:
        trainer = WebAgentWebRLTrainer(
            model=model,
            args=_sft_config(config, folder, phase),
            train_dataset=Dataset.from_list(rows),
            processing_class=tokenizer,
            data_collator=Collator(tokenizer.pad_token_id),
            critic=critic,
            critic_learning_rate=config.critic_learning_rate,
            critic_epochs=config.critic_epochs,
        )
        run_training(trainer)  # the one run loop; the phase's model is saved by the caller
        losses = trainer.webrl_stats.get("actor_loss", [])
        train = {
            "steps": len(losses),
            "samples": len(rows),
            "loss_first": losses[0] if losses else None,
            "loss_last": losses[-1] if losses else None,
            "beta_mean": _mean(trainer.webrl_stats.get("beta")),
            "positive_share": _mean(trainer.webrl_stats.get("positive")),
        }
        fit = trainer.critic_fit
    model.eval()
    critic.cpu().eval()
    critic.save(folder / "critic.pt")
    values = critic.values(candidate_features).tolist() if probed else []
    in_band = [t for (t, _), v in zip(probed, values) if config.band_low <= v <= config.band_high]
    accepted = in_band[: config.new_tasks_per_phase]
    next_pool = with_new_tasks(pool, accepted)
    return {
        "train": train,
        "critic": {**fit, "transitions": len(rows), "positive_targets": sum(r["target"] for r in rows)},
        "replay": replay,
        "fresh": fresh,
        "next_pool": next_pool,
        "candidates": {
            "probed": len(probed),
            "in_band": len(in_band),
            "accepted": len(accepted),
            "predicted_success": [round(v, 4) for v in values],
        },
    }


def _mean(xs) -> float | None:
    return sum(xs) / len(xs) if xs else None
