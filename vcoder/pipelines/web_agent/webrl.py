"""WebRL's actor-critic update for the browsing agent: ``algorithm: webrl`` of a ``trainer: web_agent`` recipe.

The maths is :mod:`vcoder.pipelines.curriculum.webrl_objective` (WebRL's ``trainer.py`` and ``process_data.py``),
applied to multi-step browsing episodes as WebRL applies it to WebArena trajectories:

- **Data.** Each episode of the phase is a trajectory of steps ``(s_t, a_t)``: ``s_t`` the step's prompt (task, action
  history, page text), ``a_t`` the action line. Its outcome ``R`` (the task's WebArena evaluators: 1 on success) is
  the reward of every step, ``G_t = sum_k 0.9^(k-t) R`` its Monte Carlo return, ``s_{t+1}`` the next step's prompt
  (the last step's is itself), the critic's class ``G_t > 0``. As WebRL's ``process_data.py``, one successful
  trajectory per task intent is kept (the first) and every failed one; replayed successes from earlier phases
  (kept by the perplexity window) are RL data of the phase with their recorded returns.
- **Critic** (a documented choice): WebRL's double critic, two ``Linear-ReLU-Linear-ReLU-Linear(2)`` heads
  (:class:`~vcoder.pipelines.curriculum.webrl_trainer.WebRLCritic`) over the *reference* policy's last hidden state
  at the prompt's last token. WebRL fine-tunes a whole critic LM; here the base is frozen, so every feature is
  computed once before the update and only the heads learn. It is trained first over the phase's steps
  (``critic_epochs`` passes, WebRL's ``update_critic``), then held fixed while the actor learns (``update_policy``);
  its heads are saved per phase (``critic.pt``) and continue in the next.
- **Advantage** per step, in the loss as WebRL computes it: ``clamp(V(s_{t+1}) - V(s_t) - 0.05 + r_t + G_t, -1, 1)``
  with ``V`` the smaller head's P(class 1), binarised to 1 / -0.6.
- **Actor loss**: WebRL's, with the adaptive beta; the reference is the phase's start policy, i.e. the previous
  phase's (phase 0: the SFT start). Its log-probabilities are computed once before the update (the policy is still
  the reference then), so no second copy of the model is held.
- **TRL.** The actor's update is :class:`WebAgentWebRLTrainer`, TRL's ``SFTTrainer`` with ``compute_loss``
  replaced (TRL's recommended extension point): batching, optimizer, scheduler, clipping and logging stay TRL's.
- **Difficulty predictor.** New task instances (candidates from the generator, intents new to the pool and the
  held-out set) are opened once to read their first observation; a candidate's predicted success is the critic's
  value of it, and WebRL keeps those in ``[band_low, band_high]``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import torch
from transformers import PrinterCallback
from trl import SFTTrainer

from vcoder.pipelines.curriculum.webrl_objective import (
    actor_loss_terms,
    advantages,
    binarise,
    critic_loss,
    critic_targets,
    mc_returns,
    step_rewards,
)
from vcoder.pipelines.curriculum.webrl_trainer import WebRLCritic
from vcoder.pipelines.web_agent.lm import completion_ids, prompt_ids

logger = logging.getLogger(__name__)

FLOAT_COLUMNS = ("ref_logp", "n_tokens", "reward", "mc_return")


def trajectory_items(episode, *, phase: int) -> list[dict[str, Any]]:
    """The episode's steps as WebRL's transitions: ``task`` (the step's prompt messages), ``completion`` (the action),
    ``next_task``, ``reward``, ``mc_return``, ``target``, ``done``, ``step``, ``steps``, ``score``, ``phase``.

    The keys ``task``, ``completion``, ``score``, ``phase`` are those of a replay item, so the buffer reads them."""
    chats = episode.step_messages()
    if not chats:
        return []
    rewards = step_rewards(float(episode.evaluation.success), len(chats))
    returns = mc_returns(rewards)
    targets = critic_targets(returns)
    last = len(chats) - 1
    return [
        {
            "task": chat[:-1],
            "completion": chat[-1]["content"],
            "next_task": chats[min(i + 1, last)][:-1],
            "reward": rewards[i],
            "mc_return": returns[i],
            "target": targets[i],
            "done": i == last,
            "step": i,
            "steps": len(chats),
            "intent": episode.task.intent,
            "score": episode.evaluation.score,
            "phase": phase,
        }
        for i, chat in enumerate(chats)
    ]


def phase_transitions(episodes, *, phase: int) -> list[dict[str, Any]]:
    """WebRL's RL data of a phase: the first successful trajectory of each intent, and every failed one."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for e in episodes:
        if e.evaluation.success:
            if e.task.intent in seen:
                continue
            seen.add(e.task.intent)
        out += trajectory_items(e, phase=phase)
    return out


@torch.no_grad()
def prompt_features(
    model, tokenizer, prompts: Sequence[list[dict[str, str]]], *, max_prompt_tokens: int, system: bool
):
    """The model's last hidden state at each prompt's last token, float32 ``(N, H)`` (one prompt per forward: no
    padding, so positions are exact)."""
    rows = []
    model.eval()
    for messages in prompts:
        ids = torch.tensor([prompt_ids(tokenizer, messages, max_prompt_tokens, system)], device=model.device)
        out = model(input_ids=ids, output_hidden_states=True, use_cache=False)
        rows.append(out.hidden_states[-1][0, -1].float().cpu())
    hidden = model.config.get_text_config().hidden_size
    return torch.stack(rows) if rows else torch.zeros((0, hidden))


def encode(items, model, tokenizer, *, max_prompt_tokens: int, system: bool) -> list[dict[str, Any]]:
    """Training rows for :class:`WebAgentWebRLTrainer`: token ids and labels (the action only), the reference's
    summed log-probability of the action, and the critic's features of ``s`` and ``s'`` (``model`` must be the
    reference: the policy before the update)."""
    from vcoder.pipelines.web_agent.lm import completion_logprobs

    samples = [(it["task"], it["completion"]) for it in items]
    mean_logp = completion_logprobs(model, tokenizer, samples, max_prompt_tokens=max_prompt_tokens, system=system)
    opts = {"max_prompt_tokens": max_prompt_tokens, "system": system}
    features = prompt_features(model, tokenizer, [it["task"] for it in items], **opts)
    next_features = prompt_features(model, tokenizer, [it["next_task"] for it in items], **opts)
    rows = []
    for i, it in enumerate(items):
        prompt, completion = (
            prompt_ids(tokenizer, it["task"], max_prompt_tokens, system),
            completion_ids(tokenizer, it["completion"]),
        )
        rows.append(
            {
                "input_ids": prompt + completion,
                "labels": [-100] * len(prompt) + completion,
                "ref_logp": mean_logp[i] * len(completion),
                "n_tokens": float(len(completion)),
                "reward": float(it["reward"]),
                "mc_return": float(it["mc_return"]),
                "target": int(it["target"]),
                "features": features[i].tolist(),
                "next_features": next_features[i].tolist(),
            }
        )
    return rows


class Collator:
    """Pads ``input_ids`` / ``labels`` (right), builds the attention mask, stacks WebRL's columns."""

    def __init__(self, pad_token_id: int) -> None:
        self.pad = pad_token_id

    def __call__(self, rows: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
        width = max(len(r["input_ids"]) for r in rows)
        ids = torch.full((len(rows), width), self.pad, dtype=torch.long)
        labels = torch.full((len(rows), width), -100, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            n = len(r["input_ids"])
            ids[i, :n], labels[i, :n], mask[i, :n] = torch.tensor(r["input_ids"]), torch.tensor(r["labels"]), 1
        batch = {"input_ids": ids, "labels": labels, "attention_mask": mask}
        for key in FLOAT_COLUMNS:
            batch[key] = torch.tensor([float(r[key]) for r in rows], dtype=torch.float32)
        batch["target"] = torch.tensor([int(r["target"]) for r in rows], dtype=torch.long)
        batch["features"] = torch.tensor([r["features"] for r in rows], dtype=torch.float32)
        batch["next_features"] = torch.tensor([r["next_features"] for r in rows], dtype=torch.float32)
        return batch


def action_logp_sums(model, input_ids, attention_mask, labels) -> torch.Tensor:
    """Per row, the summed log-probability of the labelled (action) tokens under ``model`` (with grad)."""
    logits = model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits[:, :-1].float()
    target = labels[:, 1:]
    logp = torch.log_softmax(logits, -1).gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return (logp * (target != -100).float()).sum(1)


class WebAgentWebRLTrainer(SFTTrainer):
    """TRL's SFTTrainer with WebRL's actor loss (module docstring); the critic is fitted first by :meth:`train`.

    Args (beyond SFTTrainer's): ``critic`` (a :class:`WebRLCritic`), ``critic_learning_rate``, ``critic_epochs``.
    """

    def __init__(self, *args, critic: WebRLCritic, critic_learning_rate: float, critic_epochs: float, **kwargs):
        super().__init__(*args, **kwargs)
        self.remove_callback(PrinterCallback)  # the phase report carries the numbers; no log dict per step on stdout
        self.critic, self.critic_epochs = critic, critic_epochs
        self.critic_optimizer = torch.optim.AdamW(critic.parameters(), lr=critic_learning_rate)
        self.webrl_stats: dict[str, list[float]] = {}
        self.webrl_last: dict[str, Any] | None = None

    def _note(self, **values: float) -> None:
        for key, value in values.items():
            self.webrl_stats.setdefault(key, []).append(float(value))

    def fit_critic(self) -> dict[str, Any]:
        """WebRL's ``update_critic``: ``critic_epochs`` passes over the phase's steps (the critic's own AdamW)."""
        data, device = self.train_dataset, self.args.device
        features = torch.tensor(data["features"], dtype=torch.float32, device=device)
        next_features = torch.tensor(data["next_features"], dtype=torch.float32, device=device)
        targets = torch.tensor(data["target"], dtype=torch.long, device=device)
        batch = self.args.per_device_train_batch_size
        steps = round(-(-len(targets) // batch) * self.critic_epochs)
        steps = max(1, steps) if len(targets) and self.critic_epochs > 0 else 0
        generator = torch.Generator().manual_seed(self.args.seed)
        order: list[int] = []
        losses = []
        self.critic.train()
        for _ in range(steps):
            if len(order) < batch:
                order += torch.randperm(len(targets), generator=generator).tolist()
            chosen, order = order[:batch], order[batch:]
            v1, v2 = self.critic(features[chosen])
            nv1, nv2 = self.critic(next_features[chosen])
            loss = critic_loss(v1, v2, nv1, nv2, targets[chosen].tolist())
            self.critic_optimizer.zero_grad()
            loss.backward()
            self.critic_optimizer.step()
            losses.append(loss.item())
        self.critic.eval()
        accuracy = None
        if len(targets):
            with torch.no_grad():
                accuracy = float((self.critic(features)[0].argmax(-1) == targets).float().mean())
        return {
            "steps": steps,
            "loss_first": losses[0] if losses else None,
            "loss_last": losses[-1] if losses else None,
            "accuracy": accuracy,
        }

    def train(self, *args, **kwargs):
        self.critic.to(self.args.device)
        self.critic_fit = self.fit_critic()
        return super().train(*args, **kwargs)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        logp = action_logp_sums(model, inputs["input_ids"], inputs["attention_mask"], inputs["labels"])
        with torch.no_grad():
            values = self.critic.values(inputs["features"]).tolist()
            next_values = self.critic.values(inputs["next_features"]).tolist()
        advantage = advantages(values, next_values, inputs["reward"].tolist(), inputs["mc_return"].tolist())
        binarised = binarise(advantage)
        terms = actor_loss_terms(logp, inputs["ref_logp"].to(logp.dtype), inputs["n_tokens"].to(logp.dtype), binarised)
        self.webrl_last = {
            "values": values,
            "next_values": next_values,
            "advantages": advantage,
            "binarised": binarised,
            "logp": logp.detach().cpu().tolist(),
            "loss": terms["loss"].item(),
        }
        self._note(
            actor_loss=terms["loss"].item(),
            beta=terms["beta"].mean().item(),
            positive=terms["mask"].mean().item(),
            value=sum(values) / len(values),
        )
        loss = terms["loss"]
        return (loss, {"logits": None}) if return_outputs else loss
