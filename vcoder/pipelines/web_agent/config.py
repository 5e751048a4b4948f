"""The web agent's curriculum recipe (``trainer: web_agent`` in a ``configs/curriculum/*.yaml``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from vcoder.chat.endpoint import Endpoint
from vcoder.names import carries, from_flat
from vcoder.suggest import unknown_names

#: the phase's update: the NLL of successful episodes' actions plus replay (filtered behaviour cloning), or WebRL's
#: actor-critic objective (:mod:`.webrl`)
#: (:mod:`.modes` holds their objects)
ALGORITHMS = ("filtered_bc", "webrl")
#: names a recipe may give for ``algorithm`` that the web agent does not have, and what to use instead
NOT_ALGORITHMS = {"grpo": " (the web agent has no GRPO update: filtered_bc is its NLL option)"}
#: the ``trainer`` a web agent recipe names (the curriculum's CLI picks this pipeline by it)
TRAINERS = ("web_agent",)
#: the policy's budgets per step: tokens of one action line, and the prompt tokens kept (the last ones); LocalPolicy's
#: defaults too
ACTION_TOKENS, PROMPT_TOKENS = 40, 768
#: WebRL's own task-writer settings (the curriculum's site writer: 3 failures shown, temperature 0.8): the failed
#: intents shown in one writing request, and its sampling temperature
WEBRL_FAILURES_SHOWN, WEBRL_WRITER_TEMPERATURE = 10, 1.0
#: the web agent's own sizes, where the site-building curriculum has others (4 new tasks a phase, 256 replayed items)
#: and a browsing episode elsewhere 10 actions: the web agent's recipe values since its first round, with which its
#: recorded results (experiments/results/web_agent) were measured; changing one is a recipe change, chosen on
#: validation
WEB_AGENT_STEP_BUDGET, WEB_AGENT_NEW_TASKS, WEB_AGENT_REPLAY_ITEMS = 8, 8, 2000


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True)
@carries(
    "writer",
    Endpoint,
    only=("base_url", "model", "timeout_ms", "max_retries", "temperature", "max_tokens", "extra_body"),
    timeout_ms=120_000,
    max_retries=1,
    temperature=WEBRL_WRITER_TEMPERATURE,
    max_tokens=1024,
    about="WebRL's task writer (None: new tasks are generated instances only; with it, written tasks need orm_model)",
)
class WebAgentConfig:
    """WebRL's curriculum for the browsing agent on vcoder's hermetic sites (see :mod:`.run`).

    The task writer's endpoint follows the class's own fields, generated from ``vcoder.chat.endpoint.Endpoint``
    (:func:`vcoder.names.carries`): ``writer_base_url``, ``writer_model``, ``writer_timeout_ms``,
    ``writer_max_retries``, ``writer_temperature`` (WebRL: 1.0), ``writer_max_tokens``, ``writer_extra_body``.
    """

    trainer: str = field(default="web_agent", metadata=_help("Must be web_agent (selects this pipeline)."))
    model_name_or_path: str = field(
        default="outputs/web-agent-sft", metadata=_help("Phase 0's policy (the SFT start).")
    )
    seed: int = field(default=0, metadata=_help("Seed of the run: task instances, sampling, training order."))
    sites: tuple[str, ...] = field(default=("shop", "admin", "forum", "repo"), metadata=_help("Sites trained on."))
    train_per_site: int = field(default=8, metadata=_help("Training tasks per site in phase 0's pool."))
    heldout_per_site: int = field(
        default=5, metadata=_help("Test tasks per site (never trained on: other site instances, entities, answers).")
    )
    validation_per_site: int = field(
        default=5, metadata=_help("Validation tasks per site (apart from training and test, as the test tasks are).")
    )
    heldout_split: str = field(
        default="test",
        metadata=_help(
            "The split the phases' held-out success is measured on: test (reported figures) or validation (pilots, "
            "sweeps and the choices they make)."
        ),
    )
    train_instances: int = field(default=8, metadata=_help("Site instances (data seeds) the training tasks run on."))
    heldout_instances: int = field(
        default=2, metadata=_help("Site instances of the validation split, and as many of the test split.")
    )
    phases: int = field(default=3, metadata=_help("Curriculum phases."))
    rollouts_per_task: int = field(default=2, metadata=_help("Sampled episodes per pool task per phase."))
    rollout_tasks: int = field(
        default=0, metadata=_help("Pool tasks drawn (seeded) for a phase's rollouts; 0: the whole pool.")
    )
    temperature: float = field(default=1.0, metadata=_help("Sampling temperature of the rollouts."))
    step_budget: int = field(default=WEB_AGENT_STEP_BUDGET, metadata=_help("Actions per episode (exit included)."))
    learning_rate: float = field(default=5e-4, metadata=_help("AdamW learning rate of a phase's update."))
    epochs: float = field(default=2.0, metadata=_help("Passes over a phase's kept samples."))
    batch_size: int = field(default=8, metadata=_help("Samples per update step."))
    max_prompt_tokens: int = field(
        default=PROMPT_TOKENS, metadata=_help("Prompt tokens kept (the last ones) per step.")
    )
    max_new_tokens: int = field(default=ACTION_TOKENS, metadata=_help("Tokens of one action line."))
    replay_low: float = field(default=0.5, metadata=_help("WebRL's replay filter: keep confidence > low ..."))
    replay_high: float = field(default=0.95, metadata=_help("... and <= high (exp of the mean token log-prob)."))
    replay_demos: bool = field(
        default=False,
        metadata=_help(
            "Phase 0's replay buffer starts with the SFT start's demonstrations (<model_name_or_path>/demos.jsonl), "
            "kept per phase by the same confidence window."
        ),
    )
    replay_max_items: int = field(default=WEB_AGENT_REPLAY_ITEMS, metadata=_help("Replay buffer size (newest kept)."))
    new_tasks_per_phase: int = field(
        default=WEB_AGENT_NEW_TASKS, metadata=_help("New task instances added to the pool per phase.")
    )
    band_low: float = field(default=0.05, metadata=_help("WebRL's band: new tasks come from templates whose ..."))
    band_high: float = field(default=0.75, metadata=_help("... rollout success rate lies in [band_low, band_high]."))
    system_prompt: bool = field(
        default=True, metadata=_help("Prompts keep WebRL's system turn (off: a model from scratch).")
    )
    torch_threads: int = field(
        default=1, metadata=_help("torch CPU threads (1: measured fastest on a shared 2-core box).")
    )
    sft_base: str = field(
        default="tiny", metadata=_help("SFT start: 'tiny' (built offline) or a model folder / hub id.")
    )
    sft_size: str = field(default="small", metadata=_help("Size of the tiny SFT base (vcoder.models.tiny.SIZES)."))
    sft_arch: str = field(
        default="qwen2_5",
        metadata=_help(
            "Shape of the tiny SFT base: qwen2_5 or qwen3. A qwen3 folder reloads with its tokenizer as trained (merges "
            "across words); a qwen2_5 one reloads with Qwen2's word-splitting regex, ~4x longer prompts."
        ),
    )
    sft_split_digits: bool = field(
        default=False, metadata=_help("The tiny SFT base's tokenizer keeps digits apart (ids copied digit by digit).")
    )
    sft_element_comment: bool = field(
        default=False,
        metadata=_help("The demonstrations write WebRL's '# Element: <text>' line before an action on an element."),
    )
    sft_epochs: float = field(default=3.0, metadata=_help("Passes of the SFT start over the demonstrations."))
    sft_learning_rate: float = field(default=2e-3, metadata=_help("AdamW learning rate of the SFT start."))
    dtype: str = field(default="float32", metadata=_help("torch dtype the policy is loaded in (bfloat16 on GPUs)."))
    device: str = field(default="cpu", metadata=_help("torch device of the policy (cpu, cuda)."))
    algorithm: str = field(
        default="filtered_bc",
        metadata=_help(
            f"The update, one of {ALGORITHMS}: the NLL of successful episodes' actions (+ replay), or WebRL's "
            "actor-critic objective against the previous phase's policy (vcoder.pipelines.web_agent.webrl)."
        ),
    )
    critic_learning_rate: float = field(
        default=1e-3,
        metadata=_help(
            "algorithm webrl: learning rate of the critic's heads (WebRLTrainer's default 1e-3; WebRL's run config, "
            "scripts/config/main/default.yaml, trains its whole critic LM at critic_lr 1e-6)."
        ),
    )
    critic_epochs: float = field(
        default=1.0, metadata=_help("algorithm webrl: passes of the critic over a phase's steps before the actor's.")
    )

    writer_failures_shown: int = field(
        default=WEBRL_FAILURES_SHOWN, metadata=_help("Failed intents shown in one writing request (WebRL: 10).")
    )
    writer_requests: int = field(
        default=2, metadata=_help("Writing requests per site instance with failures, per phase (WebRL: 2).")
    )
    orm_model: str | None = field(
        default=None,
        metadata=_help("An ORM folder (vcoder orm train): it judges the episodes of written tasks (no evaluator)."),
    )
    orm_threshold: float | None = field(
        default=None,
        metadata=_help("P(YES) at which the ORM's verdict is YES (None: the ORM folder's decision threshold)."),
    )

    def __post_init__(self) -> None:
        if self.trainer not in TRAINERS:
            raise ValueError(f"trainer={self.trainer!r}: this recipe is for trainer: web_agent")
        from vcoder.models.tiny_lm import LM_ARCHES  # the shapes build_tiny_lm makes (a cheap import)

        if self.sft_arch not in LM_ARCHES:
            raise ValueError(
                f"sft_arch={self.sft_arch!r} must be {' or '.join(LM_ARCHES)} (the tiny SFT base's shape)"
            )
        if self.rollout_tasks < 0:
            raise ValueError(f"rollout_tasks={self.rollout_tasks!r} must be >= 0 (0: the whole pool)")
        if self.heldout_split not in ("validation", "test"):
            raise ValueError(f"heldout_split={self.heldout_split!r} must be validation or test (never train)")
        for name in ("train_instances", "heldout_instances"):
            if not 1 <= getattr(self, name) <= 100:
                raise ValueError(f"{name}={getattr(self, name)!r} must lie in [1, 100]")
        for name in (
            "train_per_site",
            "heldout_per_site",
            "validation_per_site",
            "phases",
            "rollouts_per_task",
            "step_budget",
            "batch_size",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)!r} must be >= 1")
        if self.algorithm not in ALGORITHMS:
            hint = NOT_ALGORITHMS.get(self.algorithm, "")
            raise ValueError(f"algorithm={self.algorithm!r} must be one of {ALGORITHMS}{hint}")
        if bool(self.writer_base_url) != bool(self.writer_model):
            raise ValueError(
                f"writer_base_url={self.writer_base_url!r}, writer_model={self.writer_model!r}: give both (the task "
                "writer's OpenAI-compatible server and its model) or neither"
            )
        if self.uses_writer:
            self.writer_endpoint()  # the endpoint's own checks, at load time
            if not self.orm_model:
                raise ValueError(
                    "writer_base_url is set but orm_model is not: written tasks have no evaluator and the ORM judges "
                    "them; set orm_model to an ORM folder (vcoder orm train) or drop the writer"
                )
        if self.writer_failures_shown < 1 or self.writer_requests < 1:
            raise ValueError(
                f"writer_failures_shown={self.writer_failures_shown!r}, writer_requests={self.writer_requests!r}: "
                "both must be >= 1"
            )
        if self.orm_threshold is not None and not 0 <= self.orm_threshold <= 1:
            raise ValueError(f"orm_threshold={self.orm_threshold!r} must lie in [0, 1] (None: the ORM's own)")
        if not 0 <= self.replay_low < self.replay_high <= 1:
            raise ValueError(
                f"replay_low={self.replay_low}, replay_high={self.replay_high}: need 0 <= low < high <= 1"
            )

    @property
    def uses_writer(self) -> bool:
        """True when the task writer's endpoint is configured."""
        return bool(self.writer_base_url)

    def writer_endpoint(self) -> Endpoint:
        """The task writer's endpoint, rebuilt from the ``writer_*`` settings."""
        return from_flat("writer", Endpoint, self)

    @staticmethod
    def from_dict(data: dict[str, Any]) -> WebAgentConfig:
        known = {f.name for f in dataclasses.fields(WebAgentConfig)}
        unknown = [k for k in data if k not in known]
        if unknown:
            raise ValueError(f"unknown web_agent recipe keys: {unknown_names(unknown, known)}")
        values = dict(data)
        if "sites" in values:
            values["sites"] = tuple(values["sites"])
        return WebAgentConfig(**values)

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "sites": list(self.sites)}
