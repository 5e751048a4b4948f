"""``WebRLTrainer``: TRL's ``GRPOTrainer`` trained with WebRL's actor-critic objective instead of GRPO's.

The maths is :mod:`vcoder.pipelines.curriculum.webrl_objective`; this module puts it inside TRL's machinery
(generation, rewards, the reference model's log-probabilities, batching, the optimizer, logging all stay TRL's).
What it changes in TRL 1.16, and how:

- ``_calculate_rewards`` (extended): keeps the gathered reward table so the success reward's column is at hand.
- ``_generate_and_score_completions`` (extended): calls TRL's, then replaces GRPO's group-normalised advantages with
  WebRL's binarised ones. A one-shot completion is a one-step trajectory whose outcome ``R`` is 1 when the success
  reward reaches the threshold (0 otherwise); its Monte Carlo return is ``R``, its next observation is itself, so
  ``A = clamp(2R - 0.05, -1, 1)`` and the critic's value cancels (the critic shapes the advantage only within
  multi-step trajectories, which this trainer does not run). The critic's features of each prompt and its targets
  travel in the batch (``webrl_features``, ``webrl_targets``, ``webrl_scored``), split and shuffled with it by TRL.
- ``_compute_loss`` (replaced): the policy's per-token log-probabilities from TRL's own forward helper, summed over
  the completion; the reference's (TRL computes them for ``beta > 0``: the reference is the previous phase's policy,
  see :mod:`~vcoder.pipelines.curriculum.train`); WebRL's actor loss on them. The critic takes one optimizer step
  on the same batch (its own AdamW, WebRL's critic learning rate 1e-3). TRL's KL term and clipping are not used.

The critic (a documented choice): WebRL's double critic — two heads, each ``Linear-ReLU-Linear-ReLU-Linear(2)`` —
over the *reference model's* last hidden state at the prompt's last token. WebRL fine-tunes a whole critic LM
initialised from the SFT model; here the base is the frozen reference (the previous phase's policy, already in
memory for the KL reference), so the critic costs two small MLPs and one prompt-only forward per batch, and only
its heads learn. The heads are saved with each phase (``critic.pt``) and continue in the next.
:class:`CriticPredictor` uses the critic as WebRL's difficulty filter: a candidate task's predicted success is the
critic's value of its prompt.
"""

from __future__ import annotations

import logging
from typing import Any

import torch
from trl import GRPOTrainer

from vcoder.pipelines.curriculum.webrl_objective import (
    NEGATIVE,
    actor_loss_terms,
    binarise,
    critic_loss,
    critic_targets,
    mc_returns,
    step_rewards,
    trajectory_advantages,
)

logger = logging.getLogger(__name__)

CRITIC_LEARNING_RATE = 1e-3  # WebRL's critic_lr


class WebRLCritic(torch.nn.Module):
    """Two 2-class heads over a feature vector; a state's value is the smaller head's P(class 1)."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.hidden = hidden

        def head() -> torch.nn.Sequential:
            layers = [torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden)]
            return torch.nn.Sequential(*layers, torch.nn.ReLU(), torch.nn.Linear(hidden, 2))

        self.head1, self.head2 = head(), head()

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = features.to(self.head1[0].weight.dtype)
        return self.head1(features), self.head2(features)

    @torch.no_grad()
    def values(self, features: torch.Tensor) -> torch.Tensor:
        """V(s) per row: ``min(softmax(head1)[1], softmax(head2)[1])``."""
        logits1, logits2 = self(features)
        return torch.minimum(logits1.softmax(-1)[:, 1], logits2.softmax(-1)[:, 1])

    def save(self, path) -> None:
        torch.save({"hidden": self.hidden, "state": self.state_dict()}, path)

    @classmethod
    def load(cls, path) -> WebRLCritic:
        data = torch.load(path, map_location="cpu", weights_only=True)
        critic = cls(int(data["hidden"]))
        critic.load_state_dict(data["state"])
        return critic


@torch.no_grad()
def observation_features(model, **inputs) -> torch.Tensor:
    """The last layer's hidden state at the last position of each (left-padded) prompt, as float32 (B, H)."""
    out = model(**inputs, output_hidden_states=True, use_cache=False)
    return out.hidden_states[-1][:, -1, :].float()


class WebRLTrainer(GRPOTrainer):
    """GRPOTrainer with WebRL's objective (module docstring); call :meth:`set_webrl` before ``train``."""

    webrl_success_index: int | None = None
    webrl_threshold: float = 0.5
    critic: WebRLCritic | None = None
    webrl_last: dict[str, Any] | None = None

    def set_webrl(
        self,
        *,
        success_index: int,
        threshold: float,
        critic: WebRLCritic | None = None,
        critic_learning_rate: float = CRITIC_LEARNING_RATE,
    ) -> None:
        """Which reward column decides success (``>= threshold``), and the critic to continue (None: a new one)."""
        if self.beta == 0.0:
            raise ValueError(
                "algorithm webrl needs the reference policy's log-probabilities; TRL computes them only with beta > 0 "
                "(set beta, e.g. 0.04: WebRL's loss replaces the KL term, beta only makes TRL load the reference)"
            )
        if not 0 <= success_index < len(self.reward_funcs):
            raise ValueError(f"success_index={success_index} names no reward of {self.reward_func_names}")
        self.webrl_success_index, self.webrl_threshold = success_index, threshold
        self.critic = critic or WebRLCritic(self._feature_size())
        self.critic.to(self.accelerator.device)
        self.critic_optimizer = torch.optim.AdamW(self.critic.parameters(), lr=critic_learning_rate)

    def _feature_size(self) -> int:
        config = self.accelerator.unwrap_model(self.model).config
        config = getattr(config, "text_config", None) or config
        return int(config.hidden_size)

    def reference_features(self, **inputs) -> torch.Tensor:
        """Critic features of prompts from the reference model (the policy without its adapter under PEFT)."""
        if self.ref_model is not None:
            return observation_features(self.ref_model, **inputs)
        model = self.accelerator.unwrap_model(self.model)
        with model.disable_adapter():
            return observation_features(model, **inputs)

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._webrl_rewards = rewards_per_func
        return rewards_per_func

    def _generate_and_score_completions(self, inputs):
        if self.critic is None:
            raise RuntimeError("WebRLTrainer.set_webrl(...) must be called before training")
        output = super()._generate_and_score_completions(inputs)
        n = output["prompt_ids"].size(0)
        start = self.accelerator.process_index * n
        scores = self._webrl_rewards[start : start + n, self.webrl_success_index].detach().cpu().tolist()
        scored = [s == s for s in scores]  # NaN: the reward could not judge (infrastructure)
        outcomes = [float(ok and s >= self.webrl_threshold) for s, ok in zip(scores, scored)]
        forward = {"input_ids": output["prompt_ids"], "attention_mask": output["prompt_mask"]}
        for key in ("pixel_values", "image_grid_thw"):
            if key in output:
                forward[key] = output[key]
        features = self.reference_features(**forward)
        values = self.critic.values(features).cpu().tolist()
        advantage = [binarise(trajectory_advantages([v], r))[0] for v, r in zip(values, outcomes)]
        advantage = [a if ok else NEGATIVE for a, ok in zip(advantage, scored)]  # unjudged: masked out of the loss
        device = output["prompt_ids"].device
        output["advantages"] = torch.tensor(advantage, dtype=torch.float32, device=device)
        output["webrl_features"] = features
        targets = [critic_targets(mc_returns(step_rewards(r, 1)))[0] for r in outcomes]
        output["webrl_targets"] = torch.tensor(targets, dtype=torch.long, device=device)
        output["webrl_scored"] = torch.tensor(scored, dtype=torch.bool, device=device)
        mode = "train" if self.model.training else "eval"
        self._metrics[mode]["webrl/success"].append(sum(outcomes) / len(outcomes))
        self._metrics[mode]["webrl/value"].append(sum(values) / len(values))
        return output

    def _compute_loss(self, model, inputs):
        prompt_ids, prompt_mask = inputs["prompt_ids"], inputs["prompt_mask"]
        completion_ids, completion_mask = inputs["completion_ids"], inputs["completion_mask"]
        input_ids = torch.cat([prompt_ids, completion_ids], dim=1)
        attention_mask = torch.cat([prompt_mask, completion_mask], dim=1)
        mask = completion_mask if "tool_mask" not in inputs else completion_mask * inputs["tool_mask"]
        per_token_logps, _, _ = self._get_per_token_logps_and_entropies(
            model,
            input_ids,
            attention_mask,
            completion_ids.size(1),
            pixel_values=inputs.get("pixel_values"),
            image_grid_thw=inputs.get("image_grid_thw"),
            num_images=inputs.get("num_images"),
            pixel_attention_mask=inputs.get("pixel_attention_mask"),
            image_sizes=inputs.get("image_sizes"),
            token_type_ids=inputs.get("token_type_ids"),
            mm_token_type_ids=inputs.get("mm_token_type_ids"),
        )
        mask = mask.to(per_token_logps.dtype)
        logp = (per_token_logps * mask).sum(1)
        ref_logp = (inputs["ref_per_token_logps"] * mask).sum(1)
        n_tokens = mask.sum(1)
        terms = actor_loss_terms(logp, ref_logp, n_tokens, inputs["advantages"])
        mode = "train" if self.model.training else "eval"
        critic = self._critic_step(inputs, train=mode == "train")
        self.webrl_last = {
            "logp": logp.detach().cpu().tolist(),
            "ref_logp": ref_logp.detach().cpu().tolist(),
            "n_tokens": n_tokens.detach().cpu().tolist(),
            "advantages": inputs["advantages"].detach().cpu().tolist(),
            "loss": terms["loss"].item(),
            "completion_ids": completion_ids.detach().cpu(),
            "completion_mask": completion_mask.detach().cpu(),
            "prompt_ids": prompt_ids.detach().cpu(),
            "prompt_mask": prompt_mask.detach().cpu(),
            **critic,
        }
        metrics = self._metrics[mode]
        metrics["webrl/actor_loss"].append(terms["loss"].item())
        metrics["webrl/beta"].append(terms["beta"].mean().item())
        metrics["webrl/log_ratio"].append(terms["log_ratio"].detach().mean().item())
        metrics["webrl/positive"].append(terms["mask"].mean().item())
        for key, value in critic.items():
            metrics[f"webrl/{key}"].append(value)
        return terms["loss"]

    def replay_actor_loss(self, rows, completions, logps) -> torch.Tensor:
        """WebRL's actor loss on replayed successes (RL data of the phase with their recorded outcome, R = 1).

        A one-step trajectory's advantage is ``binarise(clamp(V - V - 0.05 + R + R))``, 1 for a success whatever the
        critic says; the reference's log-probabilities are computed here (TRL computes them only for its own batch).

        Args:
            rows: the samples' training rows.
            completions: their recorded completions.
            logps: the policy's per-token log-probabilities of each (1-D tensors with grad).
        """
        from vcoder.pipelines.curriculum.policy import completion_token_logps

        reference = self.ref_model
        if reference is None:  # PEFT: the reference is the policy without its adapter
            model = self.accelerator.unwrap_model(self.model)
            with model.disable_adapter():
                ref = [completion_token_logps(model, self.processing_class, r, c) for r, c in zip(rows, completions)]
        else:
            ref = [completion_token_logps(reference, self.processing_class, r, c) for r, c in zip(rows, completions)]
        advantage = [binarise(trajectory_advantages([0.0], 1.0))[0]] * len(rows)  # the value cancels in one step
        logp = torch.stack([lp.sum() for lp in logps])
        ref_logp = torch.stack([lp.sum() for lp in ref]).to(logp.device, logp.dtype)
        n_tokens = torch.tensor([float(lp.numel()) for lp in logps], device=logp.device, dtype=logp.dtype)
        terms = actor_loss_terms(logp, ref_logp, n_tokens, advantage)
        mode = "train" if self.model.training else "eval"
        self._metrics[mode]["webrl/replay_actor_loss"].append(terms["loss"].item())
        return terms["loss"]

    def _critic_step(self, inputs, *, train: bool) -> dict[str, float]:
        """One critic update on the batch's judged rows (the next observation of a one-step trajectory is itself)."""
        keep = inputs["webrl_scored"]
        if not bool(keep.any()):
            return {"critic_loss": float("nan"), "critic_accuracy": float("nan")}
        features, targets = inputs["webrl_features"][keep], inputs["webrl_targets"][keep]
        with torch.set_grad_enabled(train):
            logits1, logits2 = self.critic(features)
            loss = critic_loss(logits1, logits2, logits1, logits2, targets.tolist())
            if train:
                self.critic_optimizer.zero_grad()
                loss.backward()
                self.critic_optimizer.step()
        accuracy = (logits1.argmax(-1) == targets).float().mean().item()
        return {"critic_loss": loss.item(), "critic_accuracy": accuracy}


class CriticPredictor:
    """WebRL's difficulty filter: a candidate task's predicted success is the critic's value of its prompt.

    Args:
        trainer: the phase's :class:`WebRLTrainer` (its critic and reference model).
        rows_for: ``tasks -> training rows`` (the rows the trainer would see for them).
    """

    def __init__(self, trainer: WebRLTrainer, rows_for) -> None:
        self.trainer, self.rows_for = trainer, rows_for

    def __call__(self, tasks: list[dict[str, Any]]) -> list[float | None]:
        from vcoder.pipelines.curriculum.policy import prompt_inputs

        out: list[float | None] = []
        processor = self.trainer.processing_class
        for row in self.rows_for(tasks):
            inputs = prompt_inputs(processor, row).to(self.trainer.accelerator.device)
            features = self.trainer.reference_features(**inputs)
            out.append(float(self.trainer.critic.values(features)[0]))
        return out
