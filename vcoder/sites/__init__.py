"""The site-building environment of Step-GRPO (WebGen-Agent) and of ``vcoder agent build``.

``run_site_episode`` runs a ``SiteTask`` for up to T turns: ``parse_turn`` (``turns``: the turn formats and their
parser; ``paths``: the safe paths a site may hold) -> ``SiteWorkspace`` (``workspace``: the files of a site) ->
``SiteGrader`` (``grading``: render + judge + test cases per step; ``audit``: whether the instruments failed)
-> feedback (``feedback``: what the model reads back), and returns an ``EpisodeResult`` of ``StepRecord``s
(``records``). The grading is done by :mod:`vcoder.gui`; the verdicts it writes are :mod:`vcoder.verdicts`.
With ``turn_format="bolt"`` the replies are WebGen-Agent's Bolt markup (``bolt``), and each version of the project is
installed offline and built in a sandbox (``build``, ``npm_cache``) before its ``dist/`` is graded (``projects``).
With ``agent_format="webgen_agent"`` WebGen-Agent's own loop runs instead (``seed_episode``: its prompt, feedback,
malformed rules and step reward; ``seed_rules``, ``seed_prompts``, ``seed_feedback``, ``seed_services``).
"""

from vcoder.sites.bolt import BoltTurn, parse_bolt_turn
from vcoder.sites.build import BuildLimits, BuildResult, build_project
from vcoder.sites.episode import run_site_episode, step_reward
from vcoder.sites.grading import SiteGrader, SiteGrades, reference_scorer_from_reward
from vcoder.sites.projects import served_site
from vcoder.sites.records import EpisodeOptions, EpisodeResult, SiteTask, StepRecord
from vcoder.sites.seed_episode import SeedServices, run_seed_episode
from vcoder.sites.turns import Malformed, SiteLimits, Turn, check_site_path, parse_turn
from vcoder.sites.workspace import SiteWorkspace, WorkspaceError

__all__ = [
    "BoltTurn",
    "BuildLimits",
    "BuildResult",
    "EpisodeOptions",
    "EpisodeResult",
    "Malformed",
    "SeedServices",
    "SiteGrader",
    "SiteGrades",
    "SiteLimits",
    "SiteTask",
    "SiteWorkspace",
    "StepRecord",
    "Turn",
    "WorkspaceError",
    "build_project",
    "check_site_path",
    "parse_bolt_turn",
    "parse_turn",
    "reference_scorer_from_reward",
    "run_seed_episode",
    "run_site_episode",
    "served_site",
    "step_reward",
]
