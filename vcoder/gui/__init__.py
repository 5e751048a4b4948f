"""The GUI agent and the screenshot judge: test whether a rendered page works, and grade how it looks.

Agents own the live pages they get from the renderer (``AsyncBrowserPool.open_page``) while they hold them, and
drive them with Playwright's own ``Page`` API. ``GuiEnv`` observes (screenshot + numbered interactive elements) and
acts (click, type, select, press, scroll, wait, back, answer) on such a page, within the bounds ``PageGuard`` keeps
(deadline, per-call timeouts, hung pages, navigation away); a ``Policy`` (``ScriptedPolicy`` for structured test
cases, ``VLMPolicy`` for natural-language ones) runs a ``TestCase`` to a ``Verdict`` (YES / PARTIAL / NO);
``run_cases`` runs a page's cases, each on a fresh page. ``ScreenshotJudge`` grades appearance through any
OpenAI-compatible endpoint (``vcoder.chat``). Every module here is light (no browser, torch or trl at import).
"""

from vcoder.gui.actions import Action, ActionResult, Observation
from vcoder.gui.env import GuiEnv
from vcoder.gui.guard import PageGuard
from vcoder.gui.judge import ScreenshotJudge
from vcoder.gui.policy import CaseError, CaseResult, Policy, TestCase, Verdict, parse_cases
from vcoder.gui.runner import InfrastructureError, arun_cases, run_cases
from vcoder.gui.scripted import ScriptedPolicy
from vcoder.gui.vlm_policy import VLMPolicy

__all__ = [
    "Action",
    "ActionResult",
    "CaseError",
    "CaseResult",
    "GuiEnv",
    "InfrastructureError",
    "Observation",
    "PageGuard",
    "Policy",
    "ScreenshotJudge",
    "ScriptedPolicy",
    "TestCase",
    "VLMPolicy",
    "Verdict",
    "arun_cases",
    "parse_cases",
    "run_cases",
]
