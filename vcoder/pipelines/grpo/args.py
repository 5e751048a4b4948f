"""vcoder's script arguments: dataset, prompts, rewards and their flat, prefixed parameters.

Parsed next to TRL's own ``GRPOConfig`` / ``SFTConfig`` and ``ModelConfig`` by ``TrlParser``, so one flat YAML recipe
configures a run and command-line flags override it (open-r1's layout). Field names must not collide with TRL's:
``seed`` belongs to the trainer config, so the dataset's is ``dataset_seed``.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from vcoder.data.bench_guard import allow_test_split_field
from vcoder.rewards.settings import RewardSettings, reward_fields

DATASET_KINDS = ("synthetic", "websight", "design2code", "trajectories")
#: how a GRPO rollout is played: one completion per prompt, or a multi-turn episode of an environment core
ENVIRONMENTS = ("none", "refine")
WEBSIGHT_VERSIONS = ("v0.1", "v0.2")

# reward names the registry knows; build_rewards is the authority, this list only feeds early config checks
DEFAULT_GRPO_REWARDS = ["format", "validity", "block", "text", "position", "color"]


@dataclass
@reward_fields
class VCoderScriptArguments:
    """Arguments of vcoder's GRPO and SFT pipelines that TRL's configs do not cover.

    Every field is flat so a recipe stays one flat YAML mapping. The reward parameters are not declared here: every
    field of ``vcoder.rewards.RewardSettings`` (``render_*``, ``clip_*``, ``gui_*``, ``judge_*``, ``visual_weights``,
    ...) is added by ``reward_fields`` with its type, default and help, validated when the arguments are built and
    handed to ``vcoder.rewards.build_rewards`` unchanged.
    """

    dataset: str = field(
        default="synthetic",
        metadata={
            "help": "Training data: 'synthetic' (generated offline), 'websight' (HuggingFaceM4/WebSight), "
            "'design2code' (SALT-NLP/Design2Code-hf), 'trajectories' (agent SFT only: multi-turn chat trajectories "
            "read from dataset_source), or a local path (folder of <id>.html [+ <id>.png], a parquet file or folder, "
            "or a saved dataset) with html/text and optional image columns."
        },
    )
    dataset_version: str = field(
        default="v0.2", metadata={"help": f"WebSight version, one of {WEBSIGHT_VERSIONS} (websight only)."}
    )
    dataset_split: str = field(default="train", metadata={"help": "Split of a hub dataset to read."})
    dataset_streaming: bool = field(
        default=True, metadata={"help": "Stream a hub dataset instead of downloading it whole (websight)."}
    )
    dataset_source: str | None = field(
        default=None,
        metadata={
            "help": "Local copy of a hub dataset (parquet file/folder or saved dataset) to read instead; for "
            "dataset=trajectories the trajectory file (JSONL of {messages}) or WebGen-Agent log folder."
        },
    )
    allow_test_split: bool = allow_test_split_field()
    max_samples: int | None = field(
        default=None,
        metadata={"help": "Training rows to keep: a deterministic random sample (not the first N). None keeps all."},
    )
    dataset_seed: int = field(default=0, metadata={"help": "Seed of the sample and of the synthetic generator."})
    holdout: float = field(
        default=0.0,
        metadata={
            "help": "Fraction of pages in [0, 1) held out for evaluation, assigned by a stable hash of the HTML so a "
            "held-out page can never be in training."
        },
    )
    holdout_max_samples: int | None = field(
        default=64, metadata={"help": "At most this many held-out rows are kept (and evaluated)."}
    )
    min_html_chars: int | None = field(default=None, metadata={"help": "Drop rows whose HTML is shorter."})
    max_html_chars: int | None = field(default=None, metadata={"help": "Drop rows whose HTML is longer."})
    min_image_side: int | None = field(default=None, metadata={"help": "Drop rows whose screenshot is smaller."})
    max_image_side: int | None = field(default=None, metadata={"help": "Drop rows whose screenshot is larger."})
    max_pixels: int | None = field(
        default=None,
        metadata={"help": "Resize screenshots (keeping aspect) to at most this many pixels before the processor."},
    )
    synthetic_samples: int = field(default=256, metadata={"help": "Pages to generate when dataset=synthetic."})
    synthetic_difficulty: int = field(
        default=0, metadata={"help": "Synthetic page difficulty 0-3 (0 = tiny pages a tiny model learns on CPU)."}
    )
    synthetic_width: int = field(default=320, metadata={"help": "Viewport width of synthetic screenshots."})
    synthetic_height: int = field(default=240, metadata={"help": "Viewport height of synthetic screenshots."})
    system_prompt: str | None = field(
        default=None, metadata={"help": "System prompt (default: vcoder.data.prompts.DEFAULT_SYSTEM_PROMPT)."}
    )
    user_prompt: str | None = field(
        default=None, metadata={"help": "User prompt next to the image (default: DEFAULT_USER_PROMPT)."}
    )
    reward_funcs: list[str] = field(
        default_factory=lambda: list(DEFAULT_GRPO_REWARDS),
        metadata={
            "help": "Rewards by registry name (format, validity, dom, ssim, clip, block, text, position, color, "
            "visual, gui_agent, screenshot_judge) or dotted path 'pkg.module:func'. Weights: GRPOConfig's "
            "reward_weights, one per name, same order."
        },
    )
    eval_holdout: bool = field(
        default=False,
        metadata={"help": "After training, generate on the holdout rows and write Design2Code block metrics."},
    )
    environment: str = field(
        default="none",
        metadata={
            "help": f"One of {ENVIRONMENTS}: 'none' scores one completion per prompt with reward_funcs; 'refine' plays "
            "the screenshot-to-HTML refinement environment (vcoder.envs.refine) through TRL's environment_factory: "
            "the model calls render(html) to see its page and scores, and the environment's reward is the mix of "
            "reward_funcs/reward_weights on its last render."
        },
    )
    refine_max_turns: int = field(default=3, metadata={"help": "environment=refine: renders allowed per episode."})
    refine_reward_mode: str = field(
        default="final",
        metadata={"help": "environment=refine: 'final' (the last render's mix) or 'improvement' (its gain)."},
    )
    refine_show_scores: bool = field(
        default=True, metadata={"help": "environment=refine: show the rewards' scores with each render."}
    )
    refine_image_side: int = field(
        default=448, metadata={"help": "environment=refine: longer side of the screenshot shown back, px."}
    )
    tool_chat_template: str | None = field(
        default=None,
        metadata={
            "help": "A chat template that can write tool calls, for environments: the name of one TRL bundles "
            "(e.g. 'qwen3_vl', whose vision tokens are Qwen2.5-VL's) or a .jinja file. Qwen2.5-VL's own template "
            "has no tools, so its recipes set 'qwen3_vl'. None keeps the model's."
        },
    )
    advantage_baseline: str = field(
        default="group",
        metadata={
            "help": "GRPO's advantage baseline: 'group' (TRL's, the group's mean reward) or 'greedy' (the reward of "
            "the policy's own greedy completion, self-critical; see vcoder.pipelines.grpo.greedy_baseline)."
        },
    )

    def __post_init__(self) -> None:
        if isinstance(self.reward_funcs, str):
            self.reward_funcs = [self.reward_funcs]
        # a YAML/CLI value "a,b" is as natural as a list
        self.reward_funcs = [name.strip() for item in self.reward_funcs for name in item.split(",") if name.strip()]
        if not self.is_local_dataset and self.dataset not in DATASET_KINDS:
            raise ValueError(
                f"dataset={self.dataset!r} is neither one of {DATASET_KINDS} nor an existing local path; "
                "fix the name or point it at a folder/parquet file that exists"
            )
        if self.dataset == "trajectories" and not self.dataset_source:
            raise ValueError(
                'dataset=trajectories needs dataset_source: a JSONL of {"messages": [...]} trajectories or a '
                "WebGen-Agent log folder"
            )
        if self.dataset == "websight" and self.dataset_version not in WEBSIGHT_VERSIONS:
            raise ValueError(f"dataset_version={self.dataset_version!r} must be one of {WEBSIGHT_VERSIONS}")
        if self.dataset_source is not None and not os.path.exists(self.dataset_source):
            raise ValueError(f"dataset_source={self.dataset_source!r} does not exist; give an existing path or None")
        for name in ("max_samples", "max_pixels", "max_html_chars", "min_image_side", "holdout_max_samples"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name}={value!r} must be positive (or None to disable it)")
        if not 0.0 <= self.holdout < 1.0:
            raise ValueError(f"holdout={self.holdout!r} is a fraction of the pages; give a value in [0, 1), e.g. 0.05")
        for low, high in (("min_html_chars", "max_html_chars"), ("min_image_side", "max_image_side")):
            lo, hi = getattr(self, low), getattr(self, high)
            if lo is not None and hi is not None and lo > hi:
                raise ValueError(f"{low}={lo} is larger than {high}={hi}; swap them or drop one")
        if not 0 <= self.synthetic_difficulty <= 3:
            raise ValueError(f"synthetic_difficulty={self.synthetic_difficulty!r} must be in 0..3")
        if self.dataset == "synthetic" and self.synthetic_samples < 1:
            raise ValueError(f"synthetic_samples={self.synthetic_samples} must be at least 1")
        if not self.reward_funcs:
            raise ValueError("reward_funcs is empty; name at least one reward, e.g. ['validity', 'block']")
        if self.advantage_baseline not in ("group", "greedy"):
            raise ValueError(f"advantage_baseline={self.advantage_baseline!r}; give 'group' or 'greedy'")
        if self.environment not in ENVIRONMENTS:
            raise ValueError(f"environment={self.environment!r}; give one of {ENVIRONMENTS}")
        if self.environment != "none" and self.advantage_baseline != "group":
            raise ValueError("advantage_baseline='greedy' scores one completion; use 'group' with an environment")
        if self.environment == "refine":
            self.refine_settings()  # a bad turn budget or reward mode fails here, before any model is loaded
        if len(set(self.reward_funcs)) != len(self.reward_funcs):
            raise ValueError(f"reward_funcs={self.reward_funcs!r} names a reward twice; weight it instead")
        # reward parameters fail here, before any model or dataset is loaded; the parsed form replaces a CLI string
        self.visual_weights = RewardSettings.from_params(**self.reward_params()).visual_weights

    @property
    def is_local_dataset(self) -> bool:
        """True when ``dataset`` names a local path rather than one of the known datasets."""
        return self.dataset not in DATASET_KINDS and os.path.exists(self.dataset)

    def reward_params(self) -> dict:
        """The flat reward parameters (every ``RewardSettings`` field), as ``vcoder.rewards.build_rewards`` takes
        them."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(RewardSettings)}

    def refine_settings(self, reward_weights: list[float] | None = None):
        """The refinement environment's settings (``vcoder.envs.refine.RefineSettings``): the recipe's reward mix
        (``reward_funcs``, GRPOConfig's ``reward_weights``) and reward parameters, and the ``refine_*`` fields."""
        from vcoder.envs.refine import RefineSettings

        return RefineSettings(
            rewards=tuple(self.reward_funcs),
            reward_weights=None if reward_weights is None else tuple(reward_weights),
            reward_mode=self.refine_reward_mode,
            max_turns=self.refine_max_turns,
            show_scores=self.refine_show_scores,
            image_side=self.refine_image_side,
            reward_params=tuple(self.reward_params().items()),
        )
