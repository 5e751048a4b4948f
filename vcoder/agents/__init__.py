"""GUI agents and the screenshot judge: test whether a rendered page works, and grade how it looks.

Agents own the live pages they get from the renderer (``AsyncBrowserPool.open_page``) while they hold them, and
drive them with Playwright's own ``Page`` API. ``GuiEnv`` observes (screenshot + numbered interactive elements) and
acts (click, type, select, press, scroll, wait, back, answer) on such a page, within the bounds ``PageGuard`` keeps
(deadline, per-call timeouts, hung pages, navigation away); a ``Policy`` (``ScriptedPolicy`` for structured test
cases, ``VLMPolicy`` for natural-language ones) runs a ``TestCase`` to a ``Verdict`` (YES / PARTIAL / NO);
``run_cases`` runs a page's cases, each on a fresh page. ``ScreenshotJudge`` grades appearance through any
OpenAI-compatible endpoint (``vcoder.chat``). The site-building agent (Step-GRPO): ``run_site_episode`` runs a
``SiteTask`` for up to T turns (``parse_turn`` -> ``SiteWorkspace`` -> ``SiteGrader`` -> feedback) and returns an
``EpisodeResult`` of ``StepRecord``s. Names are imported on first use, so ``import vcoder.agents`` stays light.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Action": "vcoder.agents.actions",
    "ActionResult": "vcoder.agents.actions",
    "Observation": "vcoder.agents.actions",
    "GuiEnv": "vcoder.agents.env",
    "PageGuard": "vcoder.agents.guard",
    "CaseError": "vcoder.agents.policy",
    "CaseResult": "vcoder.agents.policy",
    "Policy": "vcoder.agents.policy",
    "TestCase": "vcoder.agents.policy",
    "Verdict": "vcoder.agents.policy",
    "parse_cases": "vcoder.agents.policy",
    "ScriptedPolicy": "vcoder.agents.scripted",
    "InfrastructureError": "vcoder.agents.runner",
    "arun_cases": "vcoder.agents.runner",
    "run_cases": "vcoder.agents.runner",
    "VLMPolicy": "vcoder.agents.vlm_policy",
    "ScreenshotJudge": "vcoder.agents.judge",
    "Malformed": "vcoder.agents.site_turns",
    "SiteLimits": "vcoder.agents.site_turns",
    "Turn": "vcoder.agents.site_turns",
    "parse_turn": "vcoder.agents.site_turns",
    "check_site_path": "vcoder.agents.site_turns",
    "SiteWorkspace": "vcoder.agents.site_workspace",
    "WorkspaceError": "vcoder.agents.site_workspace",
    "SiteGrader": "vcoder.agents.site_grading",
    "SiteGrades": "vcoder.agents.site_grading",
    "reference_scorer_from_reward": "vcoder.agents.site_grading",
    "SiteTask": "vcoder.agents.site_records",
    "EpisodeOptions": "vcoder.agents.site_records",
    "StepRecord": "vcoder.agents.site_records",
    "EpisodeResult": "vcoder.agents.site_records",
    "run_site_episode": "vcoder.agents.site_episode",
    "step_reward": "vcoder.agents.site_episode",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'vcoder.agents' has no attribute {name!r}")
