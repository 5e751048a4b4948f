"""``StepGRPOTrainer``: TRL's ``GRPOTrainer`` with multi-turn site-building rollouts and per-token advantages.

What it changes in TRL 1.16, and how:

- ``rollout_func`` (TRL's own hook): runs the episodes (:func:`~vcoder.pipelines.step_grpo.rollout.run_rollout`) and
  returns ``prompt_ids``, ``completion_ids`` (replies + feedback), ``logprobs`` (vLLM's sampling logprobs, NaN on
  environment tokens, which TRL neutralises; None with transformers generation, as TRL's own path), ``env_mask``
  (1 on the model's tokens: TRL's loss mask) and each trajectory's final step reward for the logged reward.
- ``_generate_and_score_completions`` (overridden, the narrowest place): keeps the batch's task rows for the rollout
  (``rollout_func`` only receives prompts), calls TRL's, then replaces its per-trajectory advantages with a
  (B, T) tensor: each reply's tokens get the Step-GRPO value of its step, computed per task group over every
  process's trajectories (gathered, then this process's slice, exactly as TRL slices its rewards). TRL's
  ``_compute_loss`` accepts 2-D advantages as they are. The Step-GRPO metrics are logged here too.
- ``_get_per_token_logps_and_entropies`` (overridden, VLM policies with screenshot feedback only): the screenshots
  live in the completion, where TRL's rollout path does not look for images, so they are handed to the forward
  passes TRL makes before the loss (old/reference logprobs); the loss's own pass gets them from the batch.

For replay (the curriculum), setting ``trajectory_log`` to a dict records every trained trajectory (the JSON text of a
:class:`~vcoder.pipelines.step_grpo.recorded.RecordedTrajectory`) under its ``episode_key`` (an extra rollout field
TRL hands to the rewards, so a reward's caller can join its records to these), and :meth:`recorded_logps` scores a
recorded trajectory with the same forward pass as the loss.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

import torch
from accelerate.utils import gather_object
from trl import GRPOTrainer

from vcoder.pipelines.step_grpo.advantages import judged_step_advantages
from vcoder.pipelines.step_grpo.generation import turn_generator, vision_inputs
from vcoder.pipelines.step_grpo.grading import build_grader
from vcoder.pipelines.step_grpo.recorded import RecordedTrajectory
from vcoder.pipelines.step_grpo.rollout import Trajectory, run_rollout
from vcoder.pipelines.step_grpo.tokens import ChatTokens, token_advantages

logger = logging.getLogger(__name__)


def site_final_reward(completions: list, *, episode_final_reward: list | None = None, **kwargs) -> list:
    """Each trajectory's final step reward (WebGen-Agent's scale: 0-10, -1 malformed; None when not judged).

    Logged by TRL as ``rewards/site_final_reward/mean``; the advantages Step-GRPO trains with are per step.
    """
    if episode_final_reward is None:
        return [None] * len(completions)
    return list(episode_final_reward)


def episode_summary(trajectory: Trajectory) -> dict[str, Any]:
    """What the metrics need of one trajectory (small: it is gathered across processes)."""
    result = trajectory.result
    steps = result.steps if result is not None else ()
    return {
        "id": trajectory.row.get("id", ""),
        "rewards": trajectory.step_rewards(),
        "steps": [(s.reward, s.screenshot, s.gui, s.malformed) for s in steps],
        "finished": bool(result is not None and result.finished),
        "error": trajectory.error is not None or (result is not None and result.error is not None),
    }


def step_metrics(summaries: list[dict[str, Any]], values: list[list[float]], group: int) -> dict[str, float]:
    """The Step-GRPO logs over every trajectory of a generation batch (means over steps or episodes)."""

    def mean(xs: list) -> float | None:
        xs = [x for x in xs if x is not None]
        return math.fsum(xs) / len(xs) if xs else None

    steps = [step for s in summaries for step in s["steps"]]
    groups = [values[i : i + group] for i in range(0, len(values), group)]
    out = {
        "step_grpo/step_reward_mean": mean([r for r, _, _, _ in steps]),
        "step_grpo/screenshot_mean": mean([x for _, x, _, m in steps if not m]),
        "step_grpo/gui_mean": mean([g for _, _, g, m in steps if not m]),
        "step_grpo/malformed_rate": mean([float(m) for _, _, _, m in steps]),
        "step_grpo/turns_mean": mean([float(len(s["steps"])) for s in summaries]),
        "step_grpo/finish_rate": mean([float(s["finished"]) for s in summaries]),
        "step_grpo/error_rate": mean([float(s["error"]) for s in summaries]),
        "step_grpo/frac_groups_no_signal": mean([float(all(v == 0.0 for t in g for v in t)) for g in groups]),
    }
    return {k: v for k, v in out.items() if v is not None}


class StepGRPOTrainer(GRPOTrainer):
    """GRPO over site-building episodes with a reward per step (WebGen-Agent's Step-GRPO).

    Args:
        model: a model id/path (loaded by TRL with ``args.model_init_kwargs``) or a model.
        args: TRL's ``GRPOConfig`` (``max_completion_length`` = a trajectory's token budget).
        step_args: ``StepGRPOScriptArguments``.
        train_dataset: task rows (``vcoder.pipelines.step_grpo.data.task_rows``).
        processing_class: tokenizer (LM policy) or processor (VLM policy); default: loaded by TRL.
        grader: the ``SiteGrader`` (default: ``build_grader(step_args)``, built on first use).
        callbacks, peft_config, quantization_config: as ``GRPOTrainer``'s.
    """

    def __init__(
        self,
        model: Any,
        *,
        args: Any,
        step_args: Any,
        train_dataset: Any,
        processing_class: Any = None,
        grader: Any = None,
        callbacks: list | None = None,
        peft_config: Any = None,
        quantization_config: Any = None,
    ):
        self.step_args = step_args
        self._grader = grader
        self._rows: list[dict] | None = None
        self._trajectories: list[Trajectory] | None = None
        self._vision: dict[str, Any] | None = None
        self._keys: list[str] = []
        self._episodes = 0
        #: None: nothing recorded; a dict: every trained trajectory's record (JSON text of
        #: ``RecordedTrajectory.to_dict()``) by its episode key (see the module docstring)
        self.trajectory_log: dict[str, str] | None = None
        super().__init__(
            model=model,
            reward_funcs=[site_final_reward],
            args=args,
            train_dataset=train_dataset,
            processing_class=processing_class,
            callbacks=callbacks,
            peft_config=peft_config,
            quantization_config=quantization_config,
            rollout_func=self._rollout,
        )
        if step_args.feedback_images and not self._is_vlm:
            raise ValueError(
                "feedback_images: true sends screenshots, but the policy has a tokenizer, not a VLM processor; "
                "train a vision-language model (e.g. Qwen/Qwen2.5-VL-7B-Instruct) or set feedback_images: false"
            )
        self.episode_options = step_args.episode_options()
        self.chat = ChatTokens(self.processing_class, chat_template_kwargs=self.chat_template_kwargs)
        self.generator = turn_generator(self, step_args.max_turn_tokens)
        from trl.trainer.utils import start_event_loop_in_daemon

        _, self._episode_loop, ready = start_event_loop_in_daemon(name="vcoder-step-grpo-episodes")
        ready.wait()

    @property
    def grader(self):
        """The site grader (built on first use, so a trainer can be built without a browser)."""
        if self._grader is None:
            self._grader = build_grader(self.step_args, output_dir=self.args.output_dir)
        return self._grader

    def _rollout(self, prompts: list, trainer: Any) -> dict[str, Any]:
        rows = self._rows
        if rows is None or len(rows) != len(prompts):
            raise RuntimeError("StepGRPOTrainer's rollout runs only inside _generate_and_score_completions")
        out_dirs = None
        if self.step_args.save_episodes:
            root = f"{self.args.output_dir}/episodes/step-{self.state.global_step + 1:05d}"
            rank = self.accelerator.process_index
            out_dirs = [f"{root}/rank{rank}-{i:03d}-{row.get('id') or 'task'}" for i, row in enumerate(rows)]
        sync = None
        if self.accelerator.num_processes > 1:

            def sync(count: int) -> int:
                return sum(gather_object([count]))

        trajectories = run_rollout(
            rows,
            generator=self.generator,
            chat=self.chat,
            grader=self.grader,
            options=self.episode_options,
            max_turn_tokens=self.step_args.max_turn_tokens,
            budget=self.max_completion_length,
            loop=self._episode_loop,
            sync=sync,
            out_dirs=out_dirs,
        )
        for trajectory, row in zip(trajectories, rows, strict=True):
            tokens = trajectory.tokens
            if not tokens.prompt_ids:  # the episode never asked (an invalid row): a stand-in prompt, no reward
                tokens.prompt_ids = self.chat.prompt(row["prompt"])[0]
            if not tokens.ids:
                tokens.add_environment([self.chat.end_of_turn])
        self._trajectories = trajectories
        rank = self.accelerator.process_index
        self._keys = [f"rank{rank}-{self._episodes + i}" for i in range(len(trajectories))]
        self._episodes += len(trajectories)
        images = [t.tokens.images for t in trajectories]
        self._vision = None
        if any(images):
            self._vision = {"images": images}
        return {
            "prompt_ids": [t.tokens.prompt_ids for t in trajectories],
            "completion_ids": [t.tokens.ids for t in trajectories],
            "logprobs": [t.tokens.logprobs for t in trajectories] if self.generator.reports_logprobs else None,
            "env_mask": [t.tokens.env_mask for t in trajectories],
            "episode_final_reward": [t.result.final_reward if t.result is not None else None for t in trajectories],
            "episode_key": list(self._keys),
        }

    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        self._rows = inputs
        try:
            output = super()._generate_and_score_completions(inputs)
            trajectories = self._trajectories
            mode = "train" if self.model.training else "eval"
            output["advantages"] = self._token_advantages(trajectories, output["completion_ids"].shape[1], mode)
            if self._vision is not None:
                ids = torch.cat([output["prompt_ids"], output["completion_ids"]], dim=1)
                output.update(self._vision_inputs(ids))
        finally:
            self._rows = self._trajectories = self._vision = None
        return output

    def _token_advantages(self, trajectories: list[Trajectory], width: int, mode: str) -> torch.Tensor:
        group = self.num_generations if mode == "train" else self.num_generations_eval
        local = [episode_summary(t) for t in trajectories]
        everyone = gather_object(local) if self.accelerator.num_processes > 1 else local
        if len(everyone) % group:
            raise RuntimeError(f"{len(everyone)} trajectories do not split into groups of {group}")
        values: list[list[float]] = []
        for start in range(0, len(everyone), group):
            members = everyone[start : start + group]
            if len({m["id"] for m in members}) > 1:
                raise RuntimeError(f"a group of {group} trajectories spans tasks {[m['id'] for m in members]}")
            values += judged_step_advantages([m["rewards"] for m in members], self.step_args.advantage_mode)
        first = self.accelerator.process_index * len(trajectories)
        mine = values[first : first + len(trajectories)]
        if self.trajectory_log is not None and mode == "train":
            self._record(trajectories, mine)
        rows = token_advantages([t.tokens.turns for t in trajectories], mine, width)
        for name, value in step_metrics(everyone, values, group).items():
            self._metrics[mode][name].append(value)
        # the completions table shows each trajectory's mean step advantage, not TRL's trajectory-level one
        logged = self._logs["advantages"]
        for _ in range(min(len(values), len(logged))):
            logged.pop()
        logged.extend(math.fsum(v) / len(v) if v else 0.0 for v in values)
        return torch.tensor(rows, dtype=torch.float32, device=self.accelerator.device)

    def _record(self, trajectories: list[Trajectory], values: list[list[float]]) -> None:
        """Add this batch's trajectories to ``trajectory_log`` (not those TRL leaves out of the loss: no model token,
        or truncated under ``mask_truncated_completions``); feedback screenshots are saved as PNG files."""
        from pathlib import Path

        ends = {*self.eos_token_ids, self.chat.tokenizer.pad_token_id}  # TRL's truncation test
        for key, trajectory, own in zip(self._keys, trajectories, values, strict=True):
            tokens = trajectory.tokens
            if not tokens.replies or (self.mask_truncated_completions and tokens.ids[-1] not in ends):
                continue
            paths = []
            for j, image in enumerate(tokens.images):
                path = Path(self.args.output_dir) / "recorded_images" / f"{key}-{j}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                image.save(path)
                paths.append(str(path))
            record = RecordedTrajectory(
                prompt_ids=list(tokens.prompt_ids),
                completion_ids=list(tokens.ids),
                turns=list(tokens.turns),
                step_rewards=trajectory.step_rewards(),
                advantages=list(own),
                images=paths,
            )
            self.trajectory_log[key] = json.dumps(record.to_dict())  # text: a phase's ids as ints cost 5x more

    def recorded_logps(self, model: Any, recorded: RecordedTrajectory) -> torch.Tensor:
        """The policy's log-probability of each completion token of a recorded trajectory (1-D), through the loss's
        own forward pass (TRL's temperature-scaled head); the caller chooses ``torch.no_grad`` or not."""
        from PIL import Image

        device = self.accelerator.device
        ids = torch.tensor([recorded.prompt_ids + recorded.completion_ids], device=device)
        vision: dict[str, Any] = {}
        if recorded.images:
            images = [Image.open(path).convert("RGB") for path in recorded.images]
            vision = {k: v.to(device) for k, v in vision_inputs(self.processing_class, images, ids).items()}
            vision["num_images"] = [len(images)]
        logps, _, _ = self._get_per_token_logps_and_entropies(
            model, ids, torch.ones_like(ids), len(recorded.completion_ids), **vision
        )
        return logps[0]

    def _vision_inputs(self, ids: torch.Tensor) -> dict[str, Any]:
        images = self._vision["images"]
        flat = [image for row in images for image in row]
        out = vision_inputs(self.processing_class, flat, ids)
        out = {k: v.to(self.accelerator.device) for k, v in out.items()}
        out["num_images"] = [len(row) for row in images]
        return out

    def _get_per_token_logps_and_entropies(
        self,
        model,
        input_ids,
        attention_mask,
        logits_to_keep,
        batch_size=None,
        compute_entropy=False,
        compute_aux_loss=False,
        pixel_values=None,
        image_grid_thw=None,
        num_images=None,
        pixel_attention_mask=None,
        spatial_shapes=None,
        num_tiles=None,
        image_sizes=None,
        token_type_ids=None,
        mm_token_type_ids=None,
        image_position_ids=None,
    ):
        if pixel_values is None and self._vision is not None and input_ids.size(0) == len(self._vision["images"]):
            found = self._vision_inputs(input_ids)
            pixel_values, image_grid_thw = found["pixel_values"], found["image_grid_thw"]
            num_images, mm_token_type_ids = found["num_images"], found["mm_token_type_ids"]
        return super()._get_per_token_logps_and_entropies(
            model,
            input_ids,
            attention_mask,
            logits_to_keep,
            batch_size=batch_size,
            compute_entropy=compute_entropy,
            compute_aux_loss=compute_aux_loss,
            pixel_values=pixel_values,
            image_grid_thw=image_grid_thw,
            num_images=num_images,
            pixel_attention_mask=pixel_attention_mask,
            spatial_shapes=spatial_shapes,
            num_tiles=num_tiles,
            image_sizes=image_sizes,
            token_type_ids=token_type_ids,
            mm_token_type_ids=mm_token_type_ids,
            image_position_ids=image_position_ids,
        )
