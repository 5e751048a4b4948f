"""Whose loop the agent quickstart speaks (``--agent-format``): vcoder's own, or WebGen-Agent's (the seed's).

One :class:`AgentFormat` is chosen when the run starts and carries everything that differs between the two: how the
SFT trajectories are written, the episodes' options, the recipes' overrides, the training and scoring graders, and
how a held-out episode's sites are scored. The splits, the tasks, the model and the trainers are the same.

- ``vcoder``: the ``<file>`` markup, the short quickstart system prompt, vcoder's feedback turn (grades, failed
  cases); a turn's reward is its site's test-case score (:class:`~vcoder.sites.grading.SiteGrader`).
- ``webgen_agent``: Bolt markup, WebGen-Agent's system prompt and feedback turns, its malformed rules (-1) and its
  step reward: the appearance grade (0-5) on a code-writing turn, the GUI test's 1-5 grade added to the previous
  code-writing turn on ``<boltAction type="screenshot_validated"/>`` (:mod:`vcoder.sites.seed_episode`). With no
  VLM offline, its judge and GUI agent are the stand-ins of :mod:`vcoder.sites.seed_cases` (the request's scripted
  cases as the GUI test). A held-out episode is scored by the same cases on its final site (WebGen-Bench accuracy,
  the number the default format reports), whether or not the model asked for the GUI test.

Example:
    >>> agent_format("webgen_agent").episode["agent_format"]
    'webgen_agent'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["AGENT_FORMATS", "AgentFormat", "agent_format"]


@dataclass(frozen=True)
class AgentFormat:
    """What one turn format changes in the agent quickstart.

    Attributes:
        name: ``vcoder`` or ``webgen_agent``.
        episode: ``EpisodeOptions`` fields of every episode (trajectories, rollouts, scoring).
        sft: overrides of the agent-SFT recipe.
        step_grpo: overrides of the Step-GRPO recipe.
        flaws: the first attempts' flaws the trajectories draw from.
    """

    name: str
    episode: dict[str, Any]
    sft: dict[str, Any] = field(default_factory=dict)
    step_grpo: dict[str, Any] = field(default_factory=dict)
    flaws: tuple[str, ...] = ()

    @property
    def seed(self) -> bool:
        """True for WebGen-Agent's loop."""
        return self.name == "webgen_agent"

    def write_trajectories(self, path: str, tasks: list[dict[str, Any]], *, pool: Any, options: Any) -> dict:
        """Play and write the SFT trajectories (``options``: a ``TrajectoryOptions``)."""
        if self.seed:
            from vcoder.sites.seed_trajectories import write_seed_trajectories

            return write_seed_trajectories(path, tasks, pool=pool, options=options)
        from vcoder.sites.trajectories import write_trajectories

        return write_trajectories(path, tasks, pool=pool, options=options)

    def grader(self, pool: Any, tasks: list[dict[str, Any]], *, expect_timeout_ms: int | None = None) -> Any:
        """The grader of episodes on ``tasks``: a ``SiteGrader``, or the seed loop's offline ``SeedServices``."""
        from vcoder.sites.grading import SiteGrader

        if self.seed:
            from vcoder.sites.seed_cases import case_services

            return case_services(tasks, pool=pool, options=self.options(), expect_timeout_ms=expect_timeout_ms)
        if expect_timeout_ms is None:
            return SiteGrader(pool=pool)
        from vcoder.gui.scripted import ScriptedPolicy

        return SiteGrader(pool=pool, scripted=ScriptedPolicy(expect_timeout_ms=expect_timeout_ms))

    def options(self):
        """The episodes' ``EpisodeOptions``."""
        from vcoder.sites.records import EpisodeOptions

        return EpisodeOptions(**self.episode)

    def site_scorer(self, pool: Any) -> Callable | None:
        """For the seed's loop, an async ``(task row, EpisodeResult) -> {first_turn_accuracy, last_turn_accuracy}``
        that runs the task's cases on the first code-writing turn's site and on the final site; None for vcoder's
        loop (its steps carry those grades already)."""
        if not self.seed:
            return None
        from vcoder.sites.bolt import parse_bolt_turn
        from vcoder.sites.grading import SiteGrader
        from vcoder.sites.records import SiteTask
        from vcoder.sites.seed_cases import grade_files

        grader, options = SiteGrader(pool=pool), self.options()

        async def accuracy(files: dict[str, str], task: SiteTask) -> float:
            return float((await grade_files(grader, files, task, options)).gui or 0.0) if files else 0.0

        async def score(row: dict[str, Any], result: Any) -> dict[str, float]:
            task = SiteTask.from_dict(row)
            first = result.steps[0] if result.steps else None
            first_files = {}
            if first is not None and not first.malformed and not first.notes:  # a well-formed code-writing turn
                first_files = {w.path: w.content for w in parse_bolt_turn(first.reply).turn.writes}
            last = await accuracy(dict(result.files), task)
            return {"first_turn_accuracy": await accuracy(first_files, task), "last_turn_accuracy": last}

        return score


#: the quickstart's Step-GRPO lengths in the seed's format: a trajectory has up to five turns (code, validated,
#: code, validated, finish), a reply carries the Bolt artifact's tags, and the seed's feedback turn restates the request
#: and the full-file reminder each time
SEED_LENGTHS = {"max_turns": 5, "max_turn_tokens": 192, "max_completion_length": 1536}


def agent_format(
    name: str, *, vcoder_episode: dict[str, Any] | None = None, flaws: tuple[str, ...] = ()
) -> AgentFormat:
    """The :class:`AgentFormat` called ``name``.

    Args:
        name: one of :data:`AGENT_FORMATS`.
        vcoder_episode: the quickstart's episode options in vcoder's format (the seed's format keeps its viewport
            and reply timeout, and replaces the system prompt with the seed's).
        flaws: the quickstart's flaws in vcoder's format (the seed's format leaves out ``cut_off``).

    Raises:
        ValueError: an unknown name.
    """
    episode = dict(vcoder_episode or {})
    if name == "vcoder":
        return AgentFormat("vcoder", episode, flaws=flaws)
    if name == "webgen_agent":
        episode.pop("system_prompt", None)  # None: WebGen-Agent's own (vcoder.sites.seed_prompts)
        episode.update(turn_format="bolt", agent_format="webgen_agent", max_turns=SEED_LENGTHS["max_turns"])
        seed_flaws = tuple(f for f in flaws if f != "cut_off")
        step = {**SEED_LENGTHS, "agent_format": "webgen_agent", "system_prompt": None}
        return AgentFormat("webgen_agent", episode, sft={"max_length": 3072}, step_grpo=step, flaws=seed_flaws)
    raise ValueError(f"agent format {name!r} is unknown; choose among {', '.join(AGENT_FORMATS)}")


AGENT_FORMATS = ("vcoder", "webgen_agent")
