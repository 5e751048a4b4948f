"""The records of a site-building episode: the task, the options, and what each step and the episode produced.

``StepRecord.to_dict`` and ``EpisodeResult.to_dict`` are the stable JSON forms that ``vcoder agent build --json``
prints; the other attributes carry what training needs (the conversation, which messages are the model's, the
policy's raw generations).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcoder.gui.limits import CaseLimits
from vcoder.gui.policy import CaseResult, TestCase, parse_cases
from vcoder.gui.runner import CASE_PAGE, SETTLE_QUIET_MS, SETTLE_TIMEOUT_MS
from vcoder.names import accepts_old_names, carries, from_flat
from vcoder.rendering.spec import RenderSpec
from vcoder.sites.build import BuildLimits
from vcoder.sites.turns import SiteLimits

#: the turn formats an episode understands (:mod:`vcoder.sites.turns`, :mod:`vcoder.sites.bolt`)
TURN_FORMATS = ("vcoder", "bolt")
#: whose episode loop runs: vcoder's (:mod:`vcoder.sites.episode`) or WebGen-Agent's own (:mod:`vcoder.sites.seed_episode`)
AGENT_FORMATS = ("vcoder", "webgen_agent")


@dataclass(frozen=True)
class SiteTask:
    """A website to build.

    Attributes:
        instruction: the user's request.
        test_cases: functional tests (structured ones for the scripted policy, natural-language ones for a VLM).
        reference: a reference page's HTML (the appearance is then scored against it), or None.
        id: the task's id, for records.
    """

    instruction: str
    test_cases: tuple[TestCase, ...] = ()
    reference: str | None = None
    id: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.instruction, str) or not self.instruction.strip():
            raise ValueError(f"a site task needs a non-empty instruction, got {self.instruction!r:.80}")

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> SiteTask:
        """A task from a dataset row or a task JSON: ``instruction``, optional ``test_cases`` (a list or a JSON
        string of case dicts), ``reference`` (HTML) and ``id``; other keys are ignored.

        Raises:
            ValueError / CaseError: no instruction, or invalid test cases (the message names the case).
        """
        cases = data.get("test_cases")
        return SiteTask(
            instruction=data.get("instruction") or "",
            test_cases=tuple(parse_cases(cases)) if cases else (),
            reference=data.get("reference") or None,
            id=str(data.get("id") or ""),
        )


# width, height and action_timeout_ms were renamed when the fields came to be generated (before that,
# load_timeout_ms / case_step_limit / case_deadline_ms: vcoder.names.RENAMED)
@accepts_old_names(width="render_width", height="render_height")
@dataclass(frozen=True)
@carries("gui", CaseLimits, about="A GUI test case")  # gui_step_limit, gui_deadline_ms, gui_action_timeout_ms
@carries("render", RenderSpec, timeout_ms=CASE_PAGE.timeout_ms, about="The site's page")  # render_width, ...
class EpisodeOptions:
    """Settings of an episode (one frozen value; timeouts in ms).

    The render spec and the test cases' limits follow the class's own fields, generated from their value objects
    (:func:`vcoder.names.carries`): ``render_width`` / ``render_height`` / ``render_timeout_ms`` and
    ``gui_step_limit`` / ``gui_deadline_ms`` / ``gui_action_timeout_ms``; the grader gets them whole
    (:meth:`render_spec`, :meth:`case_limits`).
    """

    max_turns: int = field(default=5, metadata={"help": "Turns before the episode ends without <finish/>."})
    screenshot_weight: float = field(default=5.0, metadata={"help": "Weight of the appearance score (0: off)."})
    gui_weight: float = field(default=5.0, metadata={"help": "Weight of the test-case score (0: off)."})
    orm_weight: float = field(
        default=0.0, metadata={"help": "Weight of the outcome reward model's P(YES) for the site (0: off)."}
    )
    malformed_reward: float = field(default=-1.0, metadata={"help": "Reward of a malformed turn (WebGen-Agent: -1)."})
    limits: SiteLimits = field(default_factory=SiteLimits, metadata={"help": "Files and bytes a site may hold."})
    feedback_images: bool = field(default=False, metadata={"help": "Screenshots in the feedback (VLM policies)."})
    feedback_image_side: int = field(default=1280, metadata={"help": "Longer side of a feedback screenshot, px."})
    settle_quiet_ms: int = field(default=SETTLE_QUIET_MS, metadata={"help": "DOM quiet time before the screenshot."})
    settle_timeout_ms: int = field(
        default=SETTLE_TIMEOUT_MS, metadata={"help": "Most time spent waiting for the page to settle."}
    )
    reply_timeout_ms: int = field(default=300_000, metadata={"help": "Budget of one policy reply."})
    max_reply_tokens: int = field(default=8192, metadata={"help": "Reply budget (ChatClient policies)."})
    temperature: float = field(default=1.0, metadata={"help": "Sampling temperature (ChatClient policies)."})
    turn_format: str = field(
        default="vcoder",
        metadata={
            "help": "The policy's markup: 'vcoder' (<file path> blocks, static sites) or 'bolt' (WebGen-Agent's "
            "<boltArtifact>/<boltAction>, Vite + React projects built offline in a sandbox)."
        },
    )
    system_prompt: str | None = field(
        default=None,
        metadata={
            "help": "The builder's system prompt instead of the turn format's own (e.g. WebGen-Agent's, which its "
            "released models were trained with); None: vcoder's prompt for the format."
        },
    )
    build_limits: BuildLimits = field(
        default_factory=BuildLimits, metadata={"help": "Bounds of a Bolt project's install + build (sandbox)."}
    )
    agent_format: str = field(
        default="vcoder",
        metadata={
            "help": "Whose loop: 'vcoder' (its prompt, feedback, grades and malformed rules) or 'webgen_agent' "
            "(WebGen-Agent's: its system prompt, Bolt markup, feedback turn, malformed rules and step reward; needs "
            "turn_format 'bolt' and a SeedServices grader)."
        },
    )

    def __post_init__(self) -> None:
        if self.turn_format not in TURN_FORMATS:
            raise ValueError(f"turn_format={self.turn_format!r} is not one of {TURN_FORMATS}")
        if self.agent_format not in AGENT_FORMATS:
            raise ValueError(f"agent_format={self.agent_format!r} is not one of {AGENT_FORMATS}")
        if self.agent_format == "webgen_agent" and self.turn_format != "bolt":
            raise ValueError(
                f"agent_format='webgen_agent' speaks Bolt markup, got turn_format={self.turn_format!r}; set "
                "turn_format='bolt' or agent_format='vcoder'"
            )
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be >= 1, got {self.max_turns}")
        weights = (self.screenshot_weight, self.gui_weight, self.orm_weight)
        if min(weights) < 0 or sum(weights) == 0:
            raise ValueError(
                f"screenshot_weight={self.screenshot_weight}, gui_weight={self.gui_weight} and orm_weight="
                f"{self.orm_weight} must be >= 0 and not all 0; set one to 0 to switch its component off"
            )
        timeouts = (
            "render_timeout_ms",
            "settle_timeout_ms",
            "gui_deadline_ms",
            "gui_action_timeout_ms",
            "reply_timeout_ms",
        )
        bad = {name: getattr(self, name) for name in timeouts if getattr(self, name) <= 0}
        if bad or self.settle_quiet_ms < 0:
            raise ValueError(f"timeouts must be > 0 ms (settle_quiet_ms >= 0), got {bad or self.settle_quiet_ms}")
        self.case_limits()  # the test cases' bounds hold together (an action fits in a case)

    def case_limits(self) -> CaseLimits:
        """The test cases' bounds (``gui_step_limit``, ``gui_deadline_ms``, ``gui_action_timeout_ms``) as one value.

        Example:
            >>> EpisodeOptions(gui_deadline_ms=9000).case_limits().deadline_ms
            9000
        """
        return from_flat("gui", CaseLimits, self)

    def render_spec(self) -> RenderSpec:
        """The site page's viewport and load deadline (``render_*``) as one value.

        Example:
            >>> EpisodeOptions(render_width=800).render_spec()
            RenderSpec(width=800, height=720, timeout_ms=10000)
        """
        return from_flat("render", RenderSpec, self)


@dataclass(frozen=True)
class StepRecord:
    """One turn of an episode.

    Attributes:
        turn: 1-based turn number.
        malformed: the reply could not be applied (it changed nothing).
        files: paths the turn wrote.
        screenshot: appearance score in [0, 1] (None: not judged, or malformed).
        gui: test-case score in [0, 1] (None: not judged, or malformed).
        orm: the outcome reward model's score of the site in [0, 1] (None: ``orm_weight`` 0, not judged, or
            malformed); in ``step.json``, not in ``to_dict``'s stable form.
        reward: the step reward (``malformed_reward`` for a malformed turn; None when nothing could be judged).
        error: what was wrong with the reply (malformed) or the site (no entry page, render failure), else None.
        malformed_kind: the ``Malformed`` kind's value, for a malformed turn.
        deleted: paths the turn deleted.
        finish: the reply asked to finish.
        notes: what could not be judged, and other remarks.
        cases: the test-case results.
        console_errors: the page's console errors.
        reply: the model's reply text.
        feedback: the feedback text (sent as the next user turn unless this was the last step).
        message_index: index of this step's reply (an assistant message) in ``EpisodeResult.messages``.
        generation: what the policy returned when it was not a plain str (token ids, logprobs, ...).
        build: a Bolt project's install + build (a ``BuildResult``), None otherwise or when the project was unchanged.
        served_dir: the folder the grader served for this step's site (a Bolt project's built ``dist/``, else the
            step's ``site/``); None when nothing was served (a malformed turn, a failed build, no episode folder).
    """

    turn: int
    malformed: bool
    files: tuple[str, ...]
    screenshot: float | None
    gui: float | None
    reward: float | None
    error: str | None
    malformed_kind: str | None = None
    deleted: tuple[str, ...] = ()
    finish: bool = False
    notes: tuple[str, ...] = ()
    cases: tuple[CaseResult, ...] = field(default=(), repr=False)
    console_errors: tuple[str, ...] = field(default=(), repr=False)
    reply: str = field(default="", repr=False)
    feedback: str = field(default="", repr=False)
    message_index: int = -1
    generation: Any = field(default=None, repr=False, compare=False)
    build: Any = field(default=None, repr=False, compare=False)
    served_dir: Path | None = field(default=None, repr=False, compare=False)
    orm: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON form ``{"turn", "malformed", "files", "screenshot", "gui", "reward", "error"}``."""
        keys = ("turn", "malformed", "files", "screenshot", "gui", "reward", "error")
        out = {k: getattr(self, k) for k in keys}
        out["files"] = list(self.files)
        return out


@dataclass(frozen=True)
class EpisodeResult:
    """A finished episode.

    Attributes:
        steps: one record per turn taken.
        finished: the policy sent ``<finish/>`` (False: the turn budget ran out, or ``error``).
        final_reward: the reward of the final site (its last well-formed step); ``malformed_reward`` when no turn
            was well-formed; None when there were no steps or the final site could not be judged.
        messages: the conversation: system, user request, then the model's replies (``assistant``) alternating
            with the environment's feedback (``user``); it ends with the model's last reply. Assistant messages
            are the model's tokens, everything else the environment's.
        files: the final site (path -> text).
        task_id: the task's id.
        error: why the episode stopped early (the policy failed, the episode folder was tampered with), else None.
        out_dir: the episode folder (None when it was temporary).
    """

    steps: tuple[StepRecord, ...]
    finished: bool
    final_reward: float | None
    messages: tuple[dict[str, Any], ...] = field(repr=False)
    files: Mapping[str, str] = field(default_factory=dict, repr=False)
    task_id: str = ""
    error: str | None = None
    out_dir: Path | None = None

    @property
    def step_rewards(self) -> list[float | None]:
        """One reward per step, in order (the input of ``step_advantages``)."""
        return [s.reward for s in self.steps]

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON form ``{"steps": [...], "finished", "final_reward", "error"}``."""
        return {
            "steps": [s.to_dict() for s in self.steps],
            "finished": self.finished,
            "final_reward": self.final_reward,
            "error": self.error,
        }
