"""Step-GRPO's script arguments: the tasks, the episode (turns, grading, feedback), the ablations, the endpoints.

Parsed next to TRL's ``GRPOConfig`` and ``ModelConfig`` by ``TrlParser`` (one flat YAML recipe, flags override it).
TRL's ``max_completion_length`` is a trajectory's whole token budget (every reply and feedback turn after the first
request); ``max_turn_tokens`` caps one reply. ``temperature`` and the other sampling settings are TRL's.

Ablations (WebGen-Agent's, combinable across the two groups): ``screenshot_only`` / ``gui_only`` switch the other
reward component off (its weight becomes 0; ``orm_weight``, off by default, is kept as set); ``naive`` (trajectory
reward = max step reward, GRPO across the G trajectories) / ``cumulative`` (reward-to-go of step z-scores) replace
Step-GRPO's per-step advantages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vcoder.chat.endpoint import Endpoint
from vcoder.data.bench_guard import allow_test_split_field
from vcoder.gui.agents import GUI_AGENT_DEFAULTS, check_gui_policy, gui_policy_field
from vcoder.gui.judge import JUDGE_DEFAULTS
from vcoder.gui.limits import CASE_DEADLINE_MS, CaseLimits
from vcoder.gui.runner import CASE_PAGE, SETTLE_TIMEOUT_MS
from vcoder.names import carries, flat_name, from_flat
from vcoder.pipelines.step_grpo.data import check_task_source
from vcoder.rendering.spec import RenderSpec
from vcoder.suggest import did_you_mean

ABLATIONS = ("screenshot_only", "gui_only", "naive", "cumulative")


#: Step-GRPO's own values (not the episode's defaults): a reply is generated for a whole round of G trajectories at
#: once and waits for every episode's grading, so it may take 30 min (an episode alone: 5 min); the G sites of a step
#: are graded together, so the pool has 4 pages (a reward's pool: 2)
ROUND_REPLY_TIMEOUT_MS, GRADING_PAGES = 1_800_000, 4

#: what Step-GRPO carries of each endpoint: where it is, which model, one request's budget
_SERVED = ("base_url", "model", "timeout_ms")


def _served(defaults: Endpoint, base_url: str | None, model: str | None, timeout_ms: int) -> Endpoint:
    # a model without a server names no endpoint (a server without a model is refused in __post_init__)
    return defaults.replace(base_url=base_url or None, model=model if base_url else None, timeout_ms=timeout_ms)


@dataclass
@carries(
    "test_writer",
    Endpoint,
    only=_SERVED,
    timeout_ms=60_000,
    about="The LLM writing the GUI-agent test of a task without cases (webgen_instruct; WebGen-RL used DeepSeek-V3; "
    "None: the GUI agent's endpoint and model)",
)
@carries(
    "gui",
    Endpoint,
    only=_SERVED,
    timeout_ms=CASE_DEADLINE_MS,  # the gui_agent reward's: a case's deadline bounds a request anyway
    about="The GUI agent running natural-language test cases (WebGen-Bench's; gui_policy says which)",
)
@carries(
    "judge", Endpoint, only=_SERVED, timeout_ms=60_000, about="The VLM screenshot judge (None: appearance not judged)"
)
@carries("gui", CaseLimits, about="A GUI test case")
@carries("render", RenderSpec, about="Grading a site", timeout_ms=CASE_PAGE.timeout_ms)
class StepGRPOScriptArguments:
    """Arguments of the Step-GRPO pipeline that TRL's configs do not cover (every field flat, for flat YAML).

    The render spec, the GUI case limits and the three endpoints follow the class's own fields, generated from their
    value objects (:func:`vcoder.names.carries`): ``render_*``, ``gui_step_limit`` / ``gui_deadline_ms`` /
    ``gui_action_timeout_ms``, ``judge_*`` / ``gui_*`` / ``test_writer_*`` (``base_url``, ``model``, ``timeout_ms``);
    the methods named after them build the value objects the grading services receive.
    """

    dataset: str = field(
        default="site_tasks",
        metadata={
            "help": "Tasks: 'site_tasks' (interactive pages generated offline, scripted test cases), 'site_kinds' "
            "(21 kinds of sites generated offline: plain-language requests, cases that find elements by role, label "
            "or text; one split of them, site_task_split), "
            "'webgen_instruct' (WebGen-RL's training requests, no cases: a writer LLM writes one GUI-agent test per "
            "task, the GUI agent runs it), 'webgen_bench' (WebGen-Bench's TEST split: refused unless "
            "allow_test_split), or a local JSONL file of {instruction, test_cases[, id, reference]} lines."
        },
    )
    dataset_source: str | None = field(
        default=None,
        metadata={
            "help": "webgen_instruct: the path of WebGen-RL's webgen-agent_train_step-grpo.jsonl (required); "
            "webgen_bench: its test.jsonl (or folder), or a hub id (default luzimu/WebGen-Bench)."
        },
    )
    allow_test_split: bool = allow_test_split_field()
    site_task_samples: int = field(
        default=64, metadata={"help": "Tasks to generate when dataset=site_tasks or site_kinds."}
    )
    site_task_kinds: list[str] | None = field(
        default=None,
        metadata={"help": "Page kinds of the generated tasks (counter, todo, form, ...); None cycles through all."},
    )
    site_task_split: str = field(
        default="train",
        metadata={"help": "dataset=site_kinds: the split the tasks come from (train, validation or test)."},
    )
    dataset_seed: int = field(default=0, metadata={"help": "Seed of the generated tasks and of the sample."})
    max_samples: int | None = field(
        default=None, metadata={"help": "Tasks to keep: a deterministic random sample. None keeps all."}
    )
    ablation: list[str] = field(
        default_factory=list,
        metadata={"help": f"Ablations, any of {ABLATIONS} (naive/cumulative exclusive, one component at most)."},
    )
    max_turns: int = field(default=5, metadata={"help": "Turns per episode (WebGen-Agent: 5)."})
    turn_format: str = field(
        default="vcoder",
        metadata={
            "help": "The policy's markup: vcoder (<file path> blocks, static sites) or bolt (WebGen-Agent's "
            "<boltArtifact>/<boltAction>: Vite + React projects installed offline and built in a sandbox)."
        },
    )
    agent_format: str = field(
        default="vcoder",
        metadata={
            "help": "Whose loop: vcoder (its prompt, feedback, grades, malformed rules) or webgen_agent (WebGen-Agent's "
            "own: its system prompt, Bolt markup (turn_format becomes bolt), its feedback turn, its malformed rules, "
            "its step reward: appearance 0-5 on code turns, the GUI test's 1-5 summary grade added to the previous "
            "code turn on screenshot_validated; judge_* is its VLM). See docs/step_grpo.md."
        },
    )
    system_prompt_file: str | None = field(
        default=None,
        metadata={"help": "A file holding the builder's system prompt (e.g. WebGen-Agent's published one)."},
    )
    max_turn_tokens: int = field(
        default=2048, metadata={"help": "Tokens one reply may have (<= max_completion_length, the trajectory's)."}
    )
    screenshot_weight: float = field(default=5.0, metadata={"help": "Weight of the appearance score (0-1)."})
    gui_weight: float = field(default=5.0, metadata={"help": "Weight of the test-case score (0-1)."})
    gui_policy: str = gui_policy_field("The site grader")
    orm_weight: float = field(
        default=0.0,
        metadata={
            "help": "Weight of the outcome reward model's P(YES) for the site after each step (the orm reward's "
            "scorer, 0-1; 0: off). Needs orm_model."
        },
    )
    orm_model: str | None = field(
        default=None,
        metadata={"help": "The outcome reward model's folder (`vcoder orm train` output) for orm_weight > 0."},
    )
    malformed_reward: float = field(default=-1.0, metadata={"help": "Step reward of a malformed turn."})
    feedback_images: bool = field(
        default=False,
        metadata={"help": "Screenshots in the feedback (a VLM policy; sent as user turns), else the visible text."},
    )
    feedback_image_side: int = field(default=1280, metadata={"help": "Longer side of a feedback screenshot, px."})
    system_prompt: str | None = field(
        default=None,
        metadata={"help": "The builder's system prompt (None: the turn format's own, vcoder.data.prompts)."},
    )
    settle_timeout_ms: int = field(
        default=SETTLE_TIMEOUT_MS, metadata={"help": "Most time waiting for a page to settle."}
    )
    reply_timeout_ms: int = field(
        default=ROUND_REPLY_TIMEOUT_MS,
        metadata={"help": "Most time an episode waits for a reply (a round waits for every episode's grading)."},
    )
    render_max_pages: int = field(default=GRADING_PAGES, metadata={"help": "Concurrent browser pages per process."})
    verdict_log: str | None = field(
        default=None,
        metadata={
            "help": "Verdict log (JSONL) every site grading is appended to: what `vcoder orm train --verdicts` "
            "learns from (screenshots go to screens/ beside it). None: no log."
        },
    )
    save_episodes: bool = field(
        default=False,
        metadata={"help": "Keep every episode's folder (replies, sites, screenshots) under output_dir/episodes."},
    )

    def __post_init__(self) -> None:
        items = [self.ablation] if isinstance(self.ablation, str) else self.ablation
        self.ablation = [name.strip() for item in items for name in str(item).split(",") if name.strip()]
        for name in self.ablation:
            if name not in ABLATIONS:
                raise ValueError(f"ablation {name!r}{did_you_mean(name, ABLATIONS)} is not one of {ABLATIONS}")
        if {"naive", "cumulative"} <= set(self.ablation):
            raise ValueError("ablation names both 'naive' and 'cumulative'; they are two advantage modes, keep one")
        if {"screenshot_only", "gui_only"} <= set(self.ablation):
            raise ValueError("ablation names both 'screenshot_only' and 'gui_only'; that leaves no reward, keep one")
        self.site_task_split = check_task_source(self)
        if self.max_samples is not None and self.max_samples < 1:
            raise ValueError(f"max_samples={self.max_samples} must be positive (or None to keep every task)")
        if self.agent_format not in ("vcoder", "webgen_agent"):
            raise ValueError(f"agent_format={self.agent_format!r} is not one of ('vcoder', 'webgen_agent')")
        if self.agent_format == "webgen_agent":
            self.turn_format = "bolt"  # one setting switches the markup with the loop
        if self.system_prompt_file is not None:
            from vcoder.sites.seed_prompts import seed_system_prompt

            self.system_prompt = seed_system_prompt(self.system_prompt_file)
        if self.max_turns < 1 or self.max_turn_tokens < 1:
            raise ValueError(f"max_turns={self.max_turns} and max_turn_tokens={self.max_turn_tokens} must be >= 1")
        weights = self.component_weights()
        if weights[0] == 0 and weights[1] == 0 and self.orm_weight == 0:
            raise ValueError(
                f"screenshot_weight={self.screenshot_weight}, gui_weight={self.gui_weight} with ablation "
                f"{self.ablation} leave no reward component; give the kept component a weight > 0"
            )
        self.check_orm()
        check_gui_policy(self.gui_policy)
        if self.gui_policy != "vlm" and self.dataset == "webgen_instruct" and not self.test_writer_base_url:
            raise ValueError(
                f"gui_policy={self.gui_policy!r} with dataset=webgen_instruct: the test writer defaults to the GUI "
                "agent's endpoint, a web agent that cannot write tests; set test_writer_base_url and test_writer_model"
            )
        for url, model, what in (
            (self.judge_base_url, self.judge_model, "judge"),
            (self.gui_base_url, self.gui_model, "gui"),
            (self.test_writer_base_url, self.test_writer_model or self.gui_model, "test_writer"),
        ):
            if url and not model:
                raise ValueError(f"{what}_base_url={url!r} needs {what}_model (the model name the server serves)")

    def check_orm(self) -> None:
        """``orm_weight`` >= 0, and an ORM folder for it (checked now, not at the first step)."""
        if self.orm_weight < 0:
            raise ValueError(f"orm_weight={self.orm_weight} must be >= 0 (0 switches the orm step reward off)")
        if self.orm_weight > 0 and self.orm_model is None:
            raise ValueError(
                f"orm_weight={self.orm_weight} needs orm_model, a `vcoder orm train --verdicts LOG "
                "--model-name-or-path BASE --out DIR` folder (or set orm_weight: 0)"
            )
        if self.orm_model is not None:
            from vcoder.rewards.orm import check_orm_settings

            check_orm_settings(self.orm_settings())

    def orm_settings(self):
        """The ``RewardSettings`` of the ORM step reward (None when ``orm_model`` is not set)."""
        from vcoder.rewards.settings import RewardSettings

        return None if self.orm_model is None else RewardSettings(orm_model=self.orm_model)

    def judge_endpoint(self) -> Endpoint:
        """The screenshot judge's ``Endpoint`` (``judge_*``; the rest: ``vcoder.gui.judge.JUDGE_DEFAULTS``)."""
        return self._endpoint("judge", JUDGE_DEFAULTS)

    def seed_vlm_endpoint(self) -> Endpoint:
        """WebGen-Agent's VLM in its loop (``agent_format=webgen_agent``): ``judge_*`` with ``Endpoint``'s own request
        defaults (3 retries, no reply cap), not the screenshot judge's."""
        return self._endpoint("judge", Endpoint())

    def gui_endpoint(self) -> Endpoint:
        """The GUI agent's ``Endpoint`` (``gui_*``; the rest: ``vcoder.gui.agents.GUI_AGENT_DEFAULTS``)."""
        return self._endpoint("gui", GUI_AGENT_DEFAULTS)

    def test_writer_endpoint(self) -> Endpoint:
        """The GUI-test writer's ``Endpoint`` (``test_writer_*``; its server and model default to the GUI agent's)."""
        base_url, model = self.test_writer_base_url or self.gui_base_url, self.test_writer_model or self.gui_model
        return _served(Endpoint(), base_url, model, self.test_writer_timeout_ms)

    def _endpoint(self, prefix: str, defaults: Endpoint) -> Endpoint:
        return _served(defaults, *(getattr(self, flat_name(prefix, name)) for name in _SERVED))

    def case_limits(self) -> CaseLimits:
        """A GUI test case's ``CaseLimits`` (``gui_step_limit``, ``gui_deadline_ms``, ``gui_action_timeout_ms``)."""
        return from_flat("gui", CaseLimits, self)

    @property
    def advantage_mode(self) -> str:
        """``step`` (Step-GRPO), or the ``naive`` / ``cumulative`` ablation."""
        return next((name for name in self.ablation if name in ("naive", "cumulative")), "step")

    def component_weights(self) -> tuple[float, float]:
        """``(screenshot_weight, gui_weight)`` after the ablation."""
        if self.screenshot_weight < 0 or self.gui_weight < 0:
            raise ValueError(f"screenshot_weight={self.screenshot_weight}, gui_weight={self.gui_weight} must be >= 0")
        if "screenshot_only" in self.ablation:
            if self.screenshot_weight == 0:
                raise ValueError("ablation screenshot_only with screenshot_weight=0 leaves no reward; set it > 0")
            return self.screenshot_weight, 0.0
        if "gui_only" in self.ablation:
            if self.gui_weight == 0:
                raise ValueError("ablation gui_only with gui_weight=0 leaves no reward; set it > 0")
            return 0.0, self.gui_weight
        return self.screenshot_weight, self.gui_weight

    def episode_options(self):
        """The ``EpisodeOptions`` these arguments describe."""
        from vcoder.sites.records import EpisodeOptions

        screenshot, gui = self.component_weights()
        return EpisodeOptions(
            max_turns=self.max_turns,
            turn_format=self.turn_format,
            agent_format=self.agent_format,
            screenshot_weight=screenshot,
            gui_weight=gui,
            orm_weight=self.orm_weight,
            malformed_reward=self.malformed_reward,
            feedback_images=self.feedback_images,
            system_prompt=self.system_prompt,
            feedback_image_side=self.feedback_image_side,
            render_width=self.render_width,
            render_height=self.render_height,
            render_timeout_ms=self.render_timeout_ms,
            settle_timeout_ms=self.settle_timeout_ms,
            gui_step_limit=self.gui_step_limit,
            gui_deadline_ms=self.gui_deadline_ms,
            gui_action_timeout_ms=self.gui_action_timeout_ms,
            reply_timeout_ms=self.reply_timeout_ms,
        )
