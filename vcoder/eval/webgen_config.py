"""Settings of a WebGen-Bench run (:func:`vcoder.eval.webgen_bench.evaluate_webgen`): one frozen value.

The builder's endpoint is carried bare (``base_url``, ``model``, ``timeout_ms``, ...), the GUI agent's and the judge's
under the ``gui_`` and ``judge_`` prefixes, the case limits as ``gui_step_limit`` / ``gui_deadline_ms``
(:mod:`vcoder.names`; the old ``agent_*``, ``max_actions``, ``case_timeout_ms``, ``retries`` and ``concurrency``
flags still work, with a warning).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import Any

from vcoder.chat.endpoint import Endpoint
from vcoder.eval.webgen_appearance import SITE_LOAD_TIMEOUT_MS, SITE_SETTLE_TIMEOUT_MS
from vcoder.gui.agents import DEFAULT_GUI_POLICY, check_gui_policy, gui_policy_field
from vcoder.gui.limits import CaseLimits
from vcoder.names import accepts_old_names, carries, from_flat
from vcoder.rendering.spec import RenderSpec
from vcoder.sites.records import TURN_FORMATS, EpisodeOptions

logger = logging.getLogger(__name__)

#: WebGen-Bench's GUI-agent action budget per test case (``CaseLimits``'s default step limit)
MAX_ACTIONS = CaseLimits.step_limit
#: how sites are graded: vcoder's own protocol, or WebGen-Bench's as its scripts run it (vcoder.eval.webgen_appearance,
#: vcoder.gui.webvoyager)
PROTOCOLS = ("vcoder", "webgen-bench")
#: a WebGen-Bench run's own values: a real VLM agent's or judge's request over a full screenshot (UI-TARS, a 32B judge)
#: may take 2 min (a reward's GUI agent: 20 s, its judge: 60 s); 4 browser pages for the tasks in flight (a reward's
#: pool: 2); one turn per site, the benchmark's one-shot protocol (agent mode asks for more; an episode's default: 5)
SERVED_VLM_TIMEOUT_MS, SITE_PAGES, ONE_SHOT_TURNS = 120_000, 4, 1
#: what a run.json written before a setting existed is taken to have used
FINGERPRINT_DEFAULTS = {
    "protocol": "vcoder",
    "turn_format": "vcoder",
    "gui_policy": DEFAULT_GUI_POLICY,
    "agent_loop": "none",
}
#: what the run carries of each endpoint (the builder's bare), and the builder's defaults
_BUILDER = ("base_url", "model", "timeout_ms", "max_retries", "max_tokens", "temperature", "extra_body")
_BUILDER_DEFAULTS = dict(timeout_ms=600_000, max_retries=2, max_tokens=8192, temperature=0.0)
_AGENT = ("base_url", "model", "timeout_ms", "max_tokens")
_JUDGE = ("base_url", "model", "timeout_ms")


@accepts_old_names()  # agent_base_url, max_actions, case_timeout_ms, retries, ... (vcoder.names.RENAMED)
@dataclass(frozen=True)
@carries("render", RenderSpec, only=("width", "height"), about="The sites")  # render_width, render_height
@carries("gui", CaseLimits, only=("step_limit", "deadline_ms"), about="A test case (WebGen-Bench: at most 15 actions)")
@carries(
    "judge",
    Endpoint,
    only=_JUDGE,
    timeout_ms=SERVED_VLM_TIMEOUT_MS,
    about="The screenshot judge, else the GUI agent's",
)
@carries(
    "gui", Endpoint, only=_AGENT, timeout_ms=SERVED_VLM_TIMEOUT_MS, max_tokens=256, about="The GUI agent, required"
)
@carries("", Endpoint, only=_BUILDER, **_BUILDER_DEFAULTS, about="The site-building model, required")
class WebGenConfig:
    """Settings of a WebGen-Bench run (timeouts in ms).

    The three endpoints, the case limits and the viewport follow the class's own fields, generated from their value
    objects (:func:`vcoder.names.carries`): the builder's bare (``base_url``, ``model``, ``timeout_ms``,
    ``max_retries``, ``max_tokens``, ``temperature``, ``extra_body``), the GUI agent's and the judge's under
    ``gui_`` / ``judge_``, ``gui_step_limit`` / ``gui_deadline_ms`` and ``render_width`` / ``render_height``.
    ``max_retries`` and ``extra_body`` are the run's, for every server. The code that runs them gets them whole
    (:meth:`builder_endpoint`, :meth:`agent_endpoint`, :meth:`judge_server`).
    """

    judge: bool = field(default=True, metadata={"help": "Grade appearance (False: appearance is null)."})
    max_turns: int = field(
        default=ONE_SHOT_TURNS, metadata={"help": "Turns per site: 1 = one-shot, more = agent mode."}
    )
    max_concurrency: int = field(default=2, metadata={"help": "Tasks in flight (the builder's requests too)."})
    feedback_images: bool = field(default=False, metadata={"help": "Screenshots in the feedback (a VLM builder)."})
    max_pages: int = field(default=SITE_PAGES, metadata={"help": "Concurrent browser pages."})
    verdict_log: str | None = field(
        default=None,
        metadata={"help": "Verdict log (JSONL) the graded sites are appended to (the ORM's data); None: none."},
    )
    turn_format: str = field(
        default="vcoder",
        metadata={
            "help": "The builder's markup: vcoder (<file path> blocks, static sites) or bolt (WebGen-Agent's Bolt "
            "markup, Vite + React projects built offline in a sandbox)."
        },
    )
    gui_policy: str = gui_policy_field("Protocol vcoder")
    agent_loop: str = field(
        default="none",
        metadata={
            "help": "none (the episode's last well-formed step is graded) or webgen_agent (WebGen-Agent's loop: "
            "backtracking after error_limit errored steps, the best step is graded; vcoder.eval.webgen_agent_loop)."
        },
    )
    error_limit: int = field(default=5, metadata={"help": "webgen_agent loop: errored steps before backtracking."})
    system_prompt: str | None = field(default=None, metadata={"help": "The builder's system prompt (None: default)."})
    protocol: str = field(
        default="vcoder",
        metadata={
            "help": "How the final sites are graded: vcoder, webgen-bench, or both comma-separated (the sites are "
            "built once; the first one gives the headline numbers)."
        },
    )

    def __post_init__(self) -> None:
        missing = [k for k in ("base_url", "model", "gui_base_url", "gui_model") if not getattr(self, k)]
        if missing:
            raise ValueError(f"a WebGen-Bench run needs {missing}: the site-building model's and the GUI agent's")
        if self.turn_format not in TURN_FORMATS:
            raise ValueError(f"turn_format must be one of {TURN_FORMATS}, got {self.turn_format!r}")
        from vcoder.eval.webgen_agent_loop import AGENT_LOOPS

        if self.agent_loop not in AGENT_LOOPS:
            raise ValueError(f"agent_loop must be one of {AGENT_LOOPS}, got {self.agent_loop!r}")
        if not 1 <= self.gui_step_limit <= MAX_ACTIONS:
            raise ValueError(
                f"gui_step_limit must be in 1..{MAX_ACTIONS} (WebGen-Bench's budget), got {self.gui_step_limit}"
            )
        positive = ("max_turns", "max_concurrency", "timeout_ms", "gui_timeout_ms", "judge_timeout_ms")
        positive += ("error_limit", "gui_deadline_ms", "max_tokens", "gui_max_tokens", "render_width", "render_height")
        positive += ("max_pages",)
        bad = {k: v for k in positive if (v := getattr(self, k)) < 1}
        if bad or self.max_retries < 0:
            raise ValueError(
                f"these settings must be >= 1 (max_retries >= 0): {bad or {'max_retries': self.max_retries}}"
            )
        names = [p.strip() for p in self.protocol.split(",")]
        unknown = [p for p in names if p not in PROTOCOLS]
        if unknown or not names or len(set(names)) != len(names):
            raise ValueError(
                f"protocol must be {' or '.join(PROTOCOLS)}, or both comma-separated (each once), got "
                f"{self.protocol!r}"
            )
        if bool(self.judge_base_url) != bool(self.judge_model):
            raise ValueError(
                f"judge_base_url and judge_model go together (got {self.judge_base_url!r}, {self.judge_model!r}); "
                "give both, or neither to use the agent's endpoint"
            )
        check_gui_policy(self.gui_policy)
        self.case_options()  # the test cases' bounds hold together (an action fits in a case)
        if self.gui_deadline_ms < self.gui_timeout_ms:
            logger.warning(
                "gui_deadline_ms=%d (one test case) is below gui_timeout_ms=%d (one GUI-agent request): a served VLM "
                "agent's cases may end at their deadline; give it room (WebGen-Bench runs of a 32B agent: "
                "--gui-deadline-ms 300000)",
                self.gui_deadline_ms,
                self.gui_timeout_ms,
            )
        if self.gui_policy != "vlm":
            # the gui_* endpoint then serves a web agent: it is neither WebVoyager's VLM nor a screenshot judge
            if "webgen-bench" in self.protocols:
                raise ValueError(
                    f"gui_policy={self.gui_policy!r} grades with the web agent, but protocol webgen-bench runs "
                    "WebGen-Bench's own WebVoyager agent (a VLM) at the same gui endpoint; use protocol vcoder"
                )
            if self.judge and not self.judge_base_url:
                raise ValueError(
                    f"gui_policy={self.gui_policy!r}: the screenshot judge defaults to the GUI agent's endpoint, a "
                    "web agent; give judge_base_url and judge_model (a VLM), or judge=False (--no-judge)"
                )

    @property
    def protocols(self) -> tuple[str, ...]:
        """The grading protocols, the headline one first."""
        return tuple(p.strip() for p in self.protocol.split(","))

    @property
    def builder_format(self) -> str:
        """The builder's turn format (``turn_format``)."""
        return self.turn_format

    @property
    def mode(self) -> str:
        return "one-shot" if self.max_turns == 1 else "agent"

    @property
    def judge_endpoint(self) -> tuple[str, str] | None:
        """``(url, model)`` of the screenshot judge, None when appearance is not judged."""
        if not self.judge:
            return None
        return (self.judge_base_url, self.judge_model) if self.judge_base_url else (self.gui_base_url, self.gui_model)

    def builder_endpoint(self) -> Endpoint:
        """The site-building model's ``Endpoint`` (the bare fields; ``max_concurrency`` requests in flight)."""
        return from_flat("", Endpoint, self, max_concurrency=self.max_concurrency)

    def agent_endpoint(self, **overrides: Any) -> Endpoint:
        """The GUI agent's ``Endpoint``: the ``gui_*`` fields with the run's ``max_retries`` and ``extra_body`` (a field
        the run does not carry takes ``GUI_AGENT_DEFAULTS``'s; ``overrides`` win)."""
        from vcoder.gui.agents import gui_endpoint

        return gui_endpoint(self, max_retries=self.max_retries, extra_body=self.extra_body, **overrides)

    def judge_server(self, **overrides: Any) -> Endpoint | None:
        """The screenshot judge's ``Endpoint`` (the GUI agent's server when no ``judge_*`` one is given, its own
        ``judge_timeout_ms``; the run's ``max_retries`` and ``extra_body``), None when appearance is not judged."""
        if self.judge_endpoint is None:
            return None
        base_url, model = self.judge_endpoint
        shared = dict(max_retries=self.max_retries, extra_body=self.extra_body)
        return from_flat("judge", Endpoint, self, base_url=base_url, model=model, **{**shared, **overrides})

    def fingerprint(self) -> dict[str, Any]:
        """What a resumed run must share with the stored rows (servers may move; models and budgets may not).

        Its keys are the stored form (run.json, summary.json) and keep the names runs were written with
        (``agent_model``, ``max_actions``), so a run started before the settings were renamed still resumes."""
        judge = self.judge_endpoint
        return {
            "model": self.model,
            "agent_model": self.gui_model,
            "judge_model": judge[1] if judge else None,
            "max_turns": self.max_turns,
            "max_actions": self.gui_step_limit,
            "protocol": ",".join(self.protocols),
            "turn_format": self.turn_format,
            "gui_policy": self.gui_policy,
            "agent_loop": self.agent_loop,
        }

    def episode_options(self) -> EpisodeOptions:
        """The building episode's options: appearance only (the benchmark's cases stay hidden)."""
        return EpisodeOptions(
            max_turns=self.max_turns,
            turn_format=self.turn_format,
            gui_weight=0.0,
            feedback_images=self.feedback_images,
            render_width=self.render_width,
            render_height=self.render_height,
            render_timeout_ms=SITE_LOAD_TIMEOUT_MS,  # a Babel or React site on a loaded machine
            settle_timeout_ms=SITE_SETTLE_TIMEOUT_MS,
            reply_timeout_ms=self.timeout_ms * (self.max_retries + 1) + 30_000,
            max_reply_tokens=self.max_tokens,
            temperature=self.temperature,
            system_prompt=self.system_prompt,
        )

    def case_options(self, protocol: str = "vcoder") -> EpisodeOptions:
        """The final grading's options under ``protocol``: the test cases only. WebGen-Bench's agent acts in a
        1024 x 768 window, may spend two page actions on one iteration (typing, then Enter), and is bounded per
        request, not per case: its case deadline is at least every iteration's request and longest pause."""
        options = dataclasses.replace(
            self.episode_options(),
            screenshot_weight=0.0,
            gui_weight=1.0,
            gui_step_limit=self.gui_step_limit,
            gui_deadline_ms=self.gui_deadline_ms,
        )
        if protocol == "webgen-bench":
            from vcoder.gui.webvoyager_protocol import HEIGHT, PAUSES_MS, WIDTH

            request_ms = self.gui_timeout_ms * (self.max_retries + 1) + max(PAUSES_MS.values())
            deadline_ms = max(self.gui_deadline_ms, self.gui_step_limit * request_ms)
            options = dataclasses.replace(
                options,
                render_width=WIDTH,
                render_height=HEIGHT,
                gui_step_limit=2 * self.gui_step_limit,
                gui_deadline_ms=deadline_ms,
            )
        return options
