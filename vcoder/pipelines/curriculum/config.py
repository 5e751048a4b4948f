"""The curriculum's recipe: one flat YAML mapping, checked with did-you-mean, fingerprinted for resumption.

A curriculum recipe names the training recipe it runs each phase (``train_recipe``: a one-shot GRPO or Step-GRPO
YAML, parsed by that pipeline's own parser) and adds the WebRL settings: the task space, the success threshold, the
band, the task writer, the predictor and the replay filter. ``train_overrides`` are flags for the training recipe
(``max_steps``, ``learning_rate``, ...); the curriculum itself sets ``model_name_or_path`` (the previous phase's
policy), ``output_dir`` (the phase folder) and ``beta``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from vcoder.chat.endpoint import Endpoint
from vcoder.names import carries
from vcoder.pipelines.curriculum.modes import ALGORITHMS as ALGORITHM_MODES
from vcoder.pipelines.curriculum.modes import TRAINERS as TRAINER_MODES
from vcoder.pipelines.curriculum.modes import Algorithm, Trainer
from vcoder.suggest import did_you_mean, unknown_names

#: the ``trainer`` and ``algorithm`` names a recipe may give (their objects: :mod:`vcoder.pipelines.curriculum.modes`)
TRAINERS = tuple(TRAINER_MODES)
ALGORITHMS = tuple(ALGORITHM_MODES)
PREDICTORS = ("kind", "orm", "critic")
REPLAY_MODES = ("rl", "sft")
#: settings added after run folders existed: left out of the fingerprint while they keep these values, and read as
#: these values from an older config.json, so those folders still resume
LATER_DEFAULTS: dict[str, Any] = {
    "algorithm": "grpo",
    "critic_learning_rate": 1e-3,
    "replay_mode": "sft",
    "heldout_size": 0,
    "heldout_seed": 900_000,
    "seed": None,
}
#: flags the curriculum sets itself; a recipe may not override them through ``train_overrides``
OWNED_FLAGS = ("model_name_or_path", "output_dir", "beta", "resume_from_checkpoint", "save_strategy", "seed")


class CurriculumConfigError(ValueError):
    """A curriculum recipe that cannot configure a run; the message names the key and the fix."""


@dataclass(frozen=True)
@carries(
    "writer",
    Endpoint,
    only=("base_url", "model", "timeout_ms", "max_retries", "temperature", "extra_body"),
    timeout_ms=120_000,
    max_retries=1,
    temperature=0.8,
    about="The task-writing LLM (None: offline generators only)",
)
class CurriculumConfig:
    """Settings of a WebRL-style curriculum run (every field flat, so a recipe is one YAML mapping).

    The task writer's endpoint follows the class's own fields, generated from ``vcoder.chat.endpoint.Endpoint``
    (:func:`vcoder.names.carries`): ``writer_base_url``, ``writer_model``, ``writer_timeout_ms``,
    ``writer_max_retries``, ``writer_temperature``, ``writer_extra_body``.
    """

    train_recipe: str = field(metadata={"help": "The training recipe run each phase (configs/... YAML)."})
    model_name_or_path: str = field(metadata={"help": "The phase-0 policy (later phases start from the last one)."})
    trainer: str = field(default="grpo", metadata={"help": f"Which pipeline trains a phase, one of {TRAINERS}."})
    algorithm: str = field(
        default="grpo",
        metadata={
            "help": f"The update, one of {ALGORITHMS}: TRL's GRPO loss with a KL term, or WebRL's actor-critic "
            "objective (vcoder.pipelines.curriculum.webrl_trainer; trainer grpo only)."
        },
    )
    critic_learning_rate: float = field(
        default=1e-3, metadata={"help": "algorithm webrl: learning rate of the critic's heads (WebRL: 1e-3)."}
    )
    train_overrides: dict[str, Any] = field(
        default_factory=dict, metadata={"help": "Flags for the training recipe (e.g. {max_steps: 4})."}
    )
    phases: int = field(default=3, metadata={"help": "Phases to run."})
    beta: float = field(default=0.04, metadata={"help": "KL weight to the previous phase's policy (> 0)."})
    kinds: list[str] = field(
        default_factory=lambda: ["screenshot-0", "screenshot-1"],
        metadata={"help": "Offline task kinds: screenshot-<difficulty 0-3> (grpo) or interactive kinds (step_grpo)."},
    )
    initial_pool_size: int = field(default=8, metadata={"help": "Tasks in phase 0's pool (cycling through kinds)."})
    new_tasks_per_phase: int = field(default=4, metadata={"help": "Candidate tasks written or generated per phase."})
    task_seed: int = field(default=0, metadata={"help": "Seed of the offline generators."})
    success_reward: str = field(
        default="block", metadata={"help": "grpo: the reward (one of the recipe's reward_funcs) that decides success."}
    )
    success_threshold: float = field(default=0.5, metadata={"help": "A rollout succeeds when its score >= this."})
    band_low: float = field(default=0.05, metadata={"help": "Lowest predicted success a new task may have (WebRL)."})
    band_high: float = field(default=0.75, metadata={"help": "Highest predicted success a new task may have."})
    ngram: int = field(default=3, metadata={"help": "Word n-gram size of the near-duplicate check."})
    max_ngram_overlap: float = field(
        default=0.6, metadata={"help": "A candidate sharing more than this share of its n-grams with a task is a dup."}
    )
    predictor: str = field(
        default="kind",
        metadata={"help": f"Success predictor of candidates, one of {PREDICTORS} (orm needs orm_model)."},
    )
    predictor_samples: int = field(default=4, metadata={"help": "orm predictor: policy samples per candidate."})
    orm_model: str | None = field(
        default=None,
        metadata={
            "help": "An ORM folder (vcoder orm train): judges written tasks' rollouts while a phase trains (needed "
            "with a task writer), the orm predictor and the agreement report."
        },
    )
    writer_failures_shown: int = field(default=3, metadata={"help": "Failed tasks shown in one writing request."})
    writer_requests: int = field(default=2, metadata={"help": "Task-writing requests per phase."})
    replay_mode: str = field(
        default="rl",
        metadata={
            "help": f"How kept replay samples train, one of {REPLAY_MODES}: rl (WebRL: RL data of the phase with their "
            "recorded outcome; vcoder.pipelines.curriculum.replay) or sft (an NLL term)."
        },
    )
    replay_weight: float = field(
        default=0.5, metadata={"help": "Weight of the replay term in the loss (0: replay off)."}
    )
    replay_low: float = field(default=0.5, metadata={"help": "Replay keeps geometric-mean probability > this."})
    replay_high: float = field(default=0.95, metadata={"help": "... and <= this (WebRL: (0.5, 0.95])."})
    replay_batch_size: int = field(default=2, metadata={"help": "Replay samples added to each training step."})
    replay_max_items: int = field(default=256, metadata={"help": "Most successes the buffer keeps (newest first)."})
    heldout_size: int = field(
        default=0,
        metadata={
            "help": "Held-out tasks scored before and after every phase (greedy, the success reward; 0: none; "
            "trainer grpo)."
        },
    )
    heldout_seed: int = field(
        default=900_000, metadata={"help": "First generator seed of the fixed held-out set (far from training seeds)."}
    )
    heldout_split: str = field(
        default="test",
        metadata={
            "help": "The split the held-out set comes from: test (reported figures) or validation (pilots, sweeps, "
            "tuning read it). Split by page content, apart from every training pool."
        },
    )
    seed: int | None = field(
        default=None,
        metadata={"help": "Seed of every phase's training (`vcoder curriculum run --seed`; None: the recipe's)."},
    )

    def __post_init__(self) -> None:
        if self.trainer not in TRAINERS:
            raise CurriculumConfigError(_choice("trainer", self.trainer, TRAINERS))
        object.__setattr__(self, "_trainer_mode", TRAINER_MODES[self.trainer])  # chosen once, here
        if self.predictor not in PREDICTORS:
            raise CurriculumConfigError(_choice("predictor", self.predictor, PREDICTORS))
        if self.replay_mode not in REPLAY_MODES:
            raise CurriculumConfigError(_choice("replay_mode", self.replay_mode, REPLAY_MODES))
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)):
            raise CurriculumConfigError(f"seed={self.seed!r} must be an integer (or left out: the recipe's seed)")
        if self.heldout_split == "heldout":  # the old name of the test split
            from vcoder.data.splits import check_split

            object.__setattr__(self, "heldout_split", check_split(self.heldout_split, where="heldout_split"))
        if self.heldout_split not in ("test", "validation"):
            raise CurriculumConfigError(
                f"heldout_split={self.heldout_split!r}; choose test (reported figures) or validation (pilots, tuning)"
            )
        if self.heldout_size < 0:
            raise CurriculumConfigError(f"heldout_size={self.heldout_size!r} must be >= 0 (0: no held-out set)")
        if self.heldout_size and not self.trainer_mode.one_shot:
            raise CurriculumConfigError(
                f"heldout_size={self.heldout_size} with trainer={self.trainer}: the held-out measurement scores "
                "one-shot screenshot tasks; set heldout_size: 0 for Step-GRPO"
            )
        if self.algorithm not in ALGORITHMS:
            raise CurriculumConfigError(_choice("algorithm", self.algorithm, ALGORITHMS))
        object.__setattr__(self, "_algorithm_mode", ALGORITHM_MODES[self.algorithm])
        problem = self.algorithm_mode.check(self)
        if problem:
            raise CurriculumConfigError(problem)
        if self.predictor == "critic" and not self.algorithm_mode.trains_critic:
            raise CurriculumConfigError(
                f"predictor=critic with algorithm={self.algorithm}: only WebRL trains a critic; set algorithm: webrl "
                "or predictor: kind"
            )
        if not self.critic_learning_rate > 0:
            raise CurriculumConfigError(f"critic_learning_rate={self.critic_learning_rate!r} must be > 0")
        if not self.beta > 0:
            raise CurriculumConfigError(
                f"beta={self.beta!r}: the curriculum's update is KL-constrained to the previous phase's policy; "
                "give beta > 0 (WebRL-style, e.g. 0.04)"
            )
        for name in ("phases", "initial_pool_size", "ngram", "writer_requests", "writer_failures_shown"):
            if getattr(self, name) < 1:
                raise CurriculumConfigError(f"{name}={getattr(self, name)!r} must be at least 1")
        for name in ("new_tasks_per_phase", "replay_batch_size", "replay_max_items", "writer_max_retries"):
            if getattr(self, name) < 0:
                raise CurriculumConfigError(f"{name}={getattr(self, name)!r} must be >= 0")
        if not 0.0 <= self.band_low < self.band_high <= 1.0:
            raise CurriculumConfigError(
                f"band [{self.band_low}, {self.band_high}] must satisfy 0 <= band_low < band_high <= 1 (WebRL: 0.05, 0.75)"
            )
        if not 0.0 <= self.replay_low < self.replay_high <= 1.0:
            raise CurriculumConfigError(
                f"replay window ({self.replay_low}, {self.replay_high}] must satisfy 0 <= low < high <= 1 (WebRL: 0.5, 0.95)"
            )
        if not 0.0 < self.success_threshold <= 1.0:
            raise CurriculumConfigError(f"success_threshold={self.success_threshold!r} must lie in (0, 1]")
        if not 0.0 < self.max_ngram_overlap <= 1.0:
            raise CurriculumConfigError(f"max_ngram_overlap={self.max_ngram_overlap!r} must lie in (0, 1]")
        if self.replay_weight < 0:
            raise CurriculumConfigError(f"replay_weight={self.replay_weight!r} must be >= 0 (0 switches replay off)")
        if self.writer_timeout_ms <= 0:
            raise CurriculumConfigError(f"writer_timeout_ms={self.writer_timeout_ms!r} must be positive (ms)")
        if (self.writer_base_url is None) != (self.writer_model is None):
            raise CurriculumConfigError(
                "writer_base_url and writer_model go together: give both (an OpenAI-compatible endpoint and its model "
                "name) or neither (offline generators only)"
            )
        if self.trainer_mode.one_shot and self.uses_writer:
            raise CurriculumConfigError(
                f"writer_base_url={self.writer_base_url!r} with trainer=grpo: the task writer writes site tasks "
                "(instruction + test cases), which one-shot GRPO on screenshots has no page to train on; use "
                "trainer: step_grpo with a writer, or drop writer_base_url/writer_model (offline generators)"
            )
        if self.uses_writer and not self.orm_model:
            raise CurriculumConfigError(
                f"writer_base_url={self.writer_base_url!r} but no orm_model: written tasks have no evaluator and the "
                "ORM's verdict is their rollouts' reward; set orm_model to an ORM folder (vcoder orm train) or drop "
                "the writer"
            )
        if self.predictor == "orm" and not self.orm_model:
            raise CurriculumConfigError("predictor: orm needs orm_model (an ORM folder from `vcoder orm train`)")
        owned = [key for key in self.train_overrides if key in OWNED_FLAGS]
        if owned:
            raise CurriculumConfigError(
                f"train_overrides sets {owned}, which the curriculum sets per phase; use model_name_or_path / beta "
                "at the top level and --out for the folder"
            )
        self.trainer_mode.check_kinds(self.kinds)

    @property
    def trainer_mode(self) -> Trainer:
        """The object of ``trainer`` (:mod:`vcoder.pipelines.curriculum.modes`), chosen when the config was made."""
        return self._trainer_mode

    @property
    def algorithm_mode(self) -> Algorithm:
        """The object of ``algorithm`` (:mod:`vcoder.pipelines.curriculum.modes`), chosen when the config was made."""
        return self._algorithm_mode

    @property
    def uses_writer(self) -> bool:
        """True when an instruction-writing LLM endpoint is configured."""
        return self.writer_base_url is not None

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON values."""
        return dataclasses.asdict(self)

    def fingerprint(self) -> str:
        """A digest of every setting except ``phases`` (a run may be extended with more phases)."""
        data = {
            k: v
            for k, v in self.to_dict().items()
            if k not in self._unjudged() and not (k in LATER_DEFAULTS and v == LATER_DEFAULTS[k])
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def _unjudged(self) -> tuple[str, ...]:
        """Settings a run folder's fingerprint leaves out: ``phases`` (a run may be extended), and ``heldout_split``
        without a held-out set (a folder with one, written before the content split, is refused: its held-out tasks
        were another set)."""
        return ("phases",) if self.heldout_size else ("phases", "heldout_split")

    def differences(self, other: dict[str, Any]) -> list[str]:
        """``key: theirs -> ours`` for every setting (but ``phases``) that differs from ``other``."""
        ours, other = self.to_dict(), {**LATER_DEFAULTS, **other}
        keys = sorted((set(ours) | set(other)) - set(self._unjudged()))
        return [f"{k}: {other.get(k)!r} -> {ours.get(k)!r}" for k in keys if other.get(k) != ours.get(k)]


def _choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    return f"{name}={value!r} is unknown{did_you_mean(value, choices)}; choose one of {', '.join(choices)}"


def config_from_mapping(data: dict[str, Any], *, where: str = "curriculum recipe") -> CurriculumConfig:
    """Build the config from a mapping, refusing unknown keys with a did-you-mean and missing required ones."""
    known = [f.name for f in dataclasses.fields(CurriculumConfig)]
    unknown = [key for key in data if key not in known]
    if unknown:
        raise CurriculumConfigError(
            f"{where}: unknown key(s) {unknown_names(unknown, known)}; the curriculum's keys are {', '.join(known)}; training "
            "flags go under train_overrides"
        )
    missing = [k for k in ("train_recipe", "model_name_or_path") if not data.get(k)]
    if missing:
        raise CurriculumConfigError(f"{where}: {missing} must be set (the training recipe and the phase-0 policy)")
    if not isinstance(data.get("train_overrides", {}), dict):
        raise CurriculumConfigError(f"{where}: train_overrides must be a mapping of flag: value")
    if not isinstance(data.get("writer_extra_body") or {}, dict):
        raise CurriculumConfigError(f"{where}: writer_extra_body must be a mapping of JSON fields")
    for f in dataclasses.fields(CurriculumConfig):
        # a number given as text (`--set phases=two`) is named here, not as a TypeError inside __post_init__
        number = isinstance(f.default, (int, float)) and not isinstance(f.default, bool)
        value = data.get(f.name)
        if number and value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise CurriculumConfigError(f"{where}: {f.name}={value!r} must be a number (default {f.default!r})")
    return CurriculumConfig(**data)


def load_config(path: str, *, overrides: dict[str, Any] | None = None) -> CurriculumConfig:
    """Read a curriculum YAML recipe (plus overrides) and check it.

    Raises:
        CurriculumConfigError: a missing file, bad YAML, an unknown key (with a suggestion) or a bad value.
    """
    from vcoder.pipelines.recipes import load_yaml_mapping

    data = load_yaml_mapping(path, what="curriculum recipe", see="configs/curriculum/", error=CurriculumConfigError)
    data.update(overrides or {})
    return config_from_mapping(data, where=f"curriculum recipe {path!r}")


def train_argv(config: CurriculumConfig, *, model: str, output_dir: str) -> list[str]:
    """Command-line arguments of one phase's training recipe (the recipe, the overrides, the owned flags)."""
    argv = ["--config", config.train_recipe]
    for key, value in config.train_overrides.items():
        values = value if isinstance(value, list) else [value]
        argv += [f"--{key}", *[str(v) for v in values]]
    argv += ["--model_name_or_path", model, "--output_dir", output_dir, "--beta", str(config.beta)]
    if config.seed is not None:
        argv += ["--seed", str(config.seed)]
    argv += ["--save_strategy", "no"]  # a phase resumes from its start; the phase's model/ is its one save
    return argv


def parse_train_recipe(config: CurriculumConfig, *, model: str, output_dir: str) -> tuple:
    """``(script_args, training_args, model_args)`` of one phase, parsed by the trainer's own parser."""
    from vcoder.pipelines.recipes import parse_recipe

    mode = config.trainer_mode
    parsed = parse_recipe(mode.make_parser(), train_argv(config, model=model, output_dir=output_dir))
    problem = mode.success_reward_error(config.success_reward, parsed[0])
    if problem:
        raise CurriculumConfigError(problem)
    return parsed
