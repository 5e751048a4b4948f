"""Scoring a site-building policy on held-out tasks: greedy episodes in the real environment, WebGen-Bench accuracy.

Each task is one episode of :func:`vcoder.sites.episode.run_site_episode` (render in Chromium, the task's scripted
cases, the environment's feedback as the next user turn), run for every task at once with generation batched turn
by turn (:func:`vcoder.pipelines.step_grpo.rollout.run_rollout`, the rollout Step-GRPO trains with) and greedy
decoding. Per task:

- ``accuracy``: WebGen-Bench's ``(YES + 0.5 PARTIAL) / cases`` of the final site (the last well-formed turn's site;
  0 when no turn was well-formed), averaged over tasks (every task here has the same number of cases);
- ``first_turn_accuracy``: the same after the first turn (0 when it was malformed: the site is empty);
- ``last_turn_accuracy``: after the last turn (equal to ``accuracy``; kept apart so the gain from feedback reads
  as last minus first);
- ``well_formed``: share of all the replies (every turn of every episode) that were applied, not rejected.

Each task's entry also keeps its episode's ``messages`` (the conversation as the model saw it).
"""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

logger = logging.getLogger(__name__)


class GreedyTurns:
    """One turn for many trajectories at once with a plain causal LM (the ``generate(requests)`` contract of
    :class:`vcoder.pipelines.step_grpo.generation.TransformersTurns`, without a trainer); greedy, or sampled at
    ``temperature`` > 0 (seed torch for a repeatable sample)."""

    reports_logprobs = False

    def __init__(self, model: Any, tokenizer: Any, *, temperature: float = 0.0):
        self.model = model
        self.tokenizer = tokenizer
        self.temperature = temperature
        config = model.generation_config
        eos = config.eos_token_id if isinstance(config.eos_token_id, list) else [config.eos_token_id]
        self.eos = {tokenizer.eos_token_id, *[e for e in eos if e is not None]}

    def generate(self, requests: list) -> list:
        import torch

        from vcoder.pipelines.step_grpo.generation import cut_reply

        if not requests:
            return []
        pad = self.tokenizer.pad_token_id
        width = max(len(r.ids) for r in requests)
        ids = torch.tensor([[pad] * (width - len(r.ids)) + r.ids for r in requests])
        mask = torch.tensor([[0] * (width - len(r.ids)) + [1] * len(r.ids) for r in requests])
        config = copy.deepcopy(self.model.generation_config)
        sample = {"do_sample": True, "temperature": self.temperature, "top_p": 1.0, "top_k": 0}
        greedy = {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        config.update(
            **(sample if self.temperature > 0 else greedy), max_new_tokens=max(r.max_new_tokens for r in requests)
        )
        config.update(eos_token_id=sorted(self.eos), pad_token_id=pad)
        with torch.no_grad():
            out = self.model.generate(input_ids=ids, attention_mask=mask, generation_config=config)
        new = out[:, width:].tolist()
        return [cut_reply(seq, None, self.eos, r.max_new_tokens) for seq, r in zip(new, requests, strict=True)]


def episode_scores(result: Any) -> dict[str, Any]:
    """First-turn and final accuracy, and the replies' well-formedness, of one ``EpisodeResult`` (None: no steps)."""
    steps = list(result.steps) if result is not None else []
    good = [s for s in steps if not s.malformed]
    first = steps[0] if steps else None
    return {
        "turns": len(steps),
        "well_formed_turns": len(good),
        "first_turn_accuracy": float(first.gui or 0.0) if first is not None and not first.malformed else 0.0,
        "last_turn_accuracy": float(good[-1].gui or 0.0) if good else 0.0,
        "finished": bool(result is not None and result.finished),
        "rewards": [s.reward for s in steps],
    }


def summarize(per_task: list[dict[str, Any]]) -> dict[str, float]:
    """The held-out figures over tasks (see the module docstring)."""
    n = len(per_task)
    turns = sum(t["turns"] for t in per_task)
    last = sum(t["last_turn_accuracy"] for t in per_task) / n if n else 0.0
    return {
        "accuracy": last,
        "well_formed": sum(t["well_formed_turns"] for t in per_task) / turns if turns else 0.0,
        "first_turn_accuracy": sum(t["first_turn_accuracy"] for t in per_task) / n if n else 0.0,
        "last_turn_accuracy": last,
        "finished": sum(t["finished"] for t in per_task) / n if n else 0.0,
        "mean_turns": turns / n if n else 0.0,
        # episodes that ended early for the infrastructure (a failed generator, a tampered folder), not the model
        "errors": sum(bool(t.get("error")) for t in per_task),
        "tasks": n,
    }


def evaluate_agent(
    model_dir: str,
    tasks: list[dict[str, Any]],
    *,
    grader: Any,
    options: Any,
    max_turn_tokens: int,
    budget: int,
    batch: int = 32,
    temperature: float = 0.0,
    site_scorer: Any = None,
) -> dict[str, Any]:
    """Greedy episodes of the model in ``model_dir`` on ``tasks``; ``{"mean": summarize(...), "tasks": [...]}``.

    Args:
        model_dir: a causal LM and its tokenizer (``from_pretrained``).
        tasks: task rows (``instruction``, ``test_cases``, ``id``).
        grader: the ``SiteGrader`` (its browser pool is shared by every episode).
        options: the episodes' ``EpisodeOptions`` (turns, viewport, weights).
        max_turn_tokens: most tokens one reply may have.
        budget: most tokens of a trajectory after its first request (replies and feedback).
        batch: episodes run (and generated for) at once.
        temperature: 0 for greedy episodes (the held-out scores), else sampled at this temperature.
        site_scorer: an async ``(task, EpisodeResult) -> {first_turn_accuracy, last_turn_accuracy}`` that replaces
            the steps' grades (WebGen-Agent's loop, whose steps carry its own grades:
            :meth:`vcoder.pipelines.agent_quickstart.formats.AgentFormat.site_scorer`); None: the steps' ``gui``.
    """
    from trl.trainer.utils import start_event_loop_in_daemon

    from vcoder.models.loading import load_policy
    from vcoder.pipelines.step_grpo.rollout import run_rollout
    from vcoder.pipelines.step_grpo.tokens import ChatTokens

    model, tokenizer = load_policy(model_dir, kind="causal_lm", eval_mode=True)
    generator, chat = GreedyTurns(model, tokenizer, temperature=temperature), ChatTokens(tokenizer)
    thread, loop, ready = start_event_loop_in_daemon(name="vcoder-agent-eval")
    ready.wait()
    per_task = []
    try:
        for start in range(0, len(tasks), batch):
            rows = tasks[start : start + batch]
            trajectories = run_rollout(
                rows,
                generator=generator,
                chat=chat,
                grader=grader,
                options=options,
                max_turn_tokens=max_turn_tokens,
                budget=budget,
                loop=loop,
            )
            for row, trajectory in zip(rows, trajectories, strict=True):
                scores = episode_scores(trajectory.result)
                if site_scorer is not None and trajectory.result is not None:
                    sites = asyncio.run_coroutine_threadsafe(site_scorer(row, trajectory.result), loop).result()
                    scores.update(sites)
                error = trajectory.error or (trajectory.result.error if trajectory.result is not None else None)
                if error:
                    logger.warning("held-out episode %s ended early: %s", row.get("id", ""), error)
                messages = list(trajectory.result.messages) if trajectory.result is not None else []
                # the episode as the model saw it: whose prompt, markup and feedback turns it was scored in
                per_task.append({"id": row.get("id", ""), "error": error, **scores, "messages": messages})
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
    return {"mean": summarize(per_task), "tasks": per_task}
