"""The curriculum's two mode switches as objects: the trainer that runs a phase and the algorithm of its update.

A recipe names them as strings (``trainer: grpo | step_grpo``, ``algorithm: grpo | webrl``); :class:`CurriculumConfig
<vcoder.pipelines.curriculum.config.CurriculumConfig>` looks them up here once, when it is read
(``config.trainer_mode``, ``config.algorithm_mode``), and the phase calls their methods. A new trainer or algorithm
is a subclass and an entry in :data:`TRAINERS` / :data:`ALGORITHMS`; nothing compares the strings.

Example:
    >>> TRAINERS["step_grpo"].records_trajectories, ALGORITHMS["webrl"].trains_critic
    (True, True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class Trainer:
    """How a phase trains (base: one-shot GRPO on screenshot tasks).

    Attributes:
        name: the recipe's string.
        one_shot: one completion per task, scored by the recipe's rewards (WebRL's objective and the held-out set
            need this).
        records_trajectories: the phase records multi-turn trajectories (the replay buffer replays them).
    """

    name = "grpo"
    one_shot = True
    records_trajectories = False

    def allowed_kinds(self) -> tuple[str, ...]:
        """The offline task kinds it trains on."""
        from vcoder.pipelines.curriculum.tasks import screenshot_kinds

        return screenshot_kinds()

    def check_kinds(self, kinds) -> None:
        """Refuse kinds it cannot train on (ValueError)."""
        from vcoder.pipelines.curriculum.tasks import check_kinds

        check_kinds(kinds, trainer=self.name, allowed=self.allowed_kinds())

    def make_parser(self):
        """The training recipe's parser (the pipeline's own)."""
        from vcoder.pipelines.grpo.train import make_parser

        return make_parser()

    def success_reward_error(self, success_reward: str, script_args) -> str | None:
        """Why ``success_reward`` cannot decide success under this recipe (None: it can)."""
        if success_reward in script_args.reward_funcs:
            return None
        return (
            f"success_reward={success_reward!r} is not one of the training recipe's reward_funcs "
            f"{script_args.reward_funcs}; pick one of those (its score decides which rollouts succeeded)"
        )

    def task_rows(self, tasks, script_args, *, pool=None) -> list[dict[str, Any]]:
        """Training rows of ``tasks`` (rendered screenshots; ``pool``: a shared browser pool)."""
        from vcoder.pipelines.curriculum.tasks import screenshot_rows

        return screenshot_rows(tasks, script_args, pool=pool)

    def recorder(self, script_args):
        """The phase's :class:`~vcoder.pipelines.curriculum.outcomes.OutcomeRecorder` (scores already 0-1)."""
        from vcoder.pipelines.curriculum.outcomes import OutcomeRecorder

        return OutcomeRecorder()

    def build(self, parsed: tuple, rows, recorder, *, success_reward: str, algorithm: Algorithm, tasks, orm_model):
        """The phase's trainer (see :mod:`vcoder.pipelines.curriculum.train`)."""
        from vcoder.pipelines.curriculum.train import grpo_trainer

        return grpo_trainer(parsed, rows, recorder, success_reward=success_reward, algorithm=algorithm)

    def __repr__(self) -> str:
        return f"<trainer {self.name}>"


class StepTrainer(Trainer):
    """Step-GRPO: multi-turn site episodes on interactive (and written) tasks."""

    name = "step_grpo"
    one_shot = False
    records_trajectories = True

    def allowed_kinds(self) -> tuple[str, ...]:
        from vcoder.pipelines.curriculum.tasks import interactive_kinds

        return interactive_kinds()

    def make_parser(self):
        from vcoder.pipelines.step_grpo.train import make_parser

        return make_parser()

    def success_reward_error(self, success_reward: str, script_args) -> str | None:
        return None  # the episode's final reward decides success

    def task_rows(self, tasks, script_args, *, pool=None) -> list[dict[str, Any]]:
        from vcoder.pipelines.curriculum.tasks import site_rows

        return site_rows(tasks)

    def recorder(self, script_args):
        """Records the episode's final reward as a 0-1 score (divided by the step reward scale's top)."""
        from vcoder.pipelines.curriculum.outcomes import OutcomeRecorder
        from vcoder.pipelines.curriculum.train import step_score_scale

        top = step_score_scale(script_args)
        return OutcomeRecorder(scale=lambda r: max(0.0, r) / top)

    def build(self, parsed: tuple, rows, recorder, *, success_reward: str, algorithm: Algorithm, tasks, orm_model):
        from vcoder.pipelines.curriculum.train import step_trainer

        return step_trainer(parsed, rows, recorder, tasks=tasks or [], orm_model=orm_model)


class Algorithm:
    """The phase's update (base: TRL's GRPO loss with a KL term to the phase's start); no critic.

    Attributes:
        name: the recipe's string.
        trains_critic: the update trains a critic (the ``critic`` predictor needs one).
        class_stem: the middle of the built trainer class's name (``Curriculum<stem>Trainer``).
    """

    name = "grpo"
    trains_critic = False
    class_stem = "GRPO"

    def check(self, config) -> str | None:
        """Why ``config``'s trainer cannot run this update (None: it can)."""
        return None

    def trainer_base(self) -> type:
        """The TRL trainer class one-shot phases build on."""
        from trl import GRPOTrainer

        return GRPOTrainer

    def prepare(self, trainer, config, script_args, previous_critic: Path | None) -> None:
        """Set the update's own state on the built trainer (nothing for GRPO)."""

    def save(self, trainer, folder: Path) -> None:
        """Save what the next phase continues from besides the policy (nothing for GRPO)."""

    def details(self, trainer) -> dict[str, Any] | None:
        """The update's figures for ``details.json`` (None for GRPO)."""
        return None

    def __repr__(self) -> str:
        return f"<algorithm {self.name}>"


class WebRLAlgorithm(Algorithm):
    """WebRL's actor-critic objective (:mod:`vcoder.pipelines.curriculum.webrl_trainer`), one-shot phases only."""

    name = "webrl"
    trains_critic = True
    class_stem = "WebRL"

    def check(self, config) -> str | None:
        if config.trainer_mode.one_shot:
            return None
        return (
            f"algorithm=webrl with trainer={config.trainer}: WebRL's objective is implemented for one-shot GRPO "
            "(one-step trajectories); use trainer: grpo, or algorithm: grpo for Step-GRPO"
        )

    def trainer_base(self) -> type:
        from vcoder.pipelines.curriculum.webrl_trainer import WebRLTrainer

        return WebRLTrainer

    def prepare(self, trainer, config, script_args, previous_critic: Path | None) -> None:
        """The success reward's column and threshold, and the critic continued from the previous phase's
        ``critic.pt`` (a new one in phase 0)."""
        from vcoder.pipelines.curriculum.webrl_trainer import WebRLCritic

        critic = (
            WebRLCritic.load(previous_critic) if previous_critic is not None and previous_critic.exists() else None
        )
        trainer.set_webrl(
            success_index=script_args.reward_funcs.index(config.success_reward),
            threshold=config.success_threshold,
            critic=critic,
            critic_learning_rate=config.critic_learning_rate,
        )

    def save(self, trainer, folder: Path) -> None:
        trainer.critic.save(folder / "critic.pt")  # the next phase's critic continues from it

    def details(self, trainer) -> dict[str, Any]:
        """Per logged step: the actor loss, beta, the log ratio, the critic's loss and accuracy."""
        keys = ("webrl/actor_loss", "webrl/beta", "webrl/log_ratio", "webrl/critic_loss", "webrl/critic_accuracy")
        steps = [e for e in trainer.state.log_history if "webrl/actor_loss" in e]
        return {key.split("/", 1)[1]: [e.get(key) for e in steps] for key in keys}


#: the recipe's ``trainer`` strings and their objects
TRAINERS: dict[str, Trainer] = {t.name: t for t in (Trainer(), StepTrainer())}
#: the recipe's ``algorithm`` strings and their objects
ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in (Algorithm(), WebRLAlgorithm())}


def trainer_mode(trainer: str | Trainer) -> Trainer:
    """The trainer object of a recipe's string (an object passes through). Raises KeyError for an unknown name."""
    return trainer if isinstance(trainer, Trainer) else TRAINERS[trainer]


def task_rows(tasks, *, trainer: str | Trainer, script_args: Any, pool: Any = None) -> list[dict[str, Any]]:
    """Training rows of ``tasks`` for ``trainer`` (grpo: screenshot rows, rendered; step_grpo: site task rows)."""
    return trainer_mode(trainer).task_rows(tasks, script_args, pool=pool)


def build_phase_trainer(
    trainer: str | Trainer,
    parsed: tuple,
    rows: list[dict[str, Any]],
    recorder,
    *,
    success_reward: str,
    algorithm: str | Algorithm = "grpo",
    tasks: list[dict[str, Any]] | None = None,
    orm_model: str | None = None,
):
    """The phase's trainer (with :class:`~vcoder.pipelines.curriculum.replay.ReplayLossMixin`), its success reward
    wrapped by ``recorder``; ``algorithm="webrl"``: a
    :class:`~vcoder.pipelines.curriculum.webrl_trainer.WebRLTrainer`.

    Step-GRPO: ``tasks`` (the pool ``rows`` were made from) without an evaluator (written tasks) are judged by the ORM
    in ``orm_model`` while the phase trains (:class:`~vcoder.pipelines.curriculum.orm.OrmVerdictGrader`), so their
    step rewards and advantages are its verdicts; a written task and no ORM is refused (ValueError)."""
    update = algorithm if isinstance(algorithm, Algorithm) else ALGORITHMS[algorithm]
    return trainer_mode(trainer).build(
        parsed, rows, recorder, success_reward=success_reward, algorithm=update, tasks=tasks, orm_model=orm_model
    )
