"""Which GUI agent runs natural-language test cases on the ``gui_*`` endpoint's model: the ``gui_policy`` setting,
declared once (its name, choices, default and help) for every recipe that carries it: the ``gui_agent`` reward's
``RewardSettings``, Step-GRPO's script arguments, WebGen-Bench's ``WebGenConfig`` and ``vcoder agent test``'s
``--policy``. One function builds the agent it names for all of them
(:func:`vcoder.browse.policies.make_agent`).

- ``vlm`` (default): a prompted VLM reads marked screenshots and answers JSON actions
  (:class:`~vcoder.gui.vlm_policy.VLMPolicy`, WebGen-Bench's kind of agent).
- ``text``: the web agent in WebRL's text setting: the page's interactive elements as text with ids, WebRL's actions,
  its ``exit`` message the verdict (e.g. a ``vcoder curriculum run`` web-agent model behind ``vcoder serve``).
- ``text_screenshot``: the same agent, observation and actions, with the viewport's screenshot (each element's id
  drawn on it) sent beside the text, for a VLM served as the web agent.

The agent's endpoint is declared here too: its request settings where a recipe does not declare them
(:data:`GUI_AGENT_DEFAULTS`), and the recipe's flat ``gui_*`` fields turned into the one ``Endpoint``
(:func:`gui_endpoint`), so a recipe builds the value object and the agent receives it whole.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Any

from vcoder.chat.endpoint import Endpoint
from vcoder.gui.limits import CASE_DEADLINE_MS
from vcoder.names import flat_name, from_flat
from vcoder.suggest import did_you_mean

__all__ = [
    "DEFAULT_GUI_POLICY",
    "GUI_AGENT_DEFAULTS",
    "GUI_POLICIES",
    "check_gui_policy",
    "gui_endpoint",
    "gui_policy_field",
]

GUI_POLICIES = ("vlm", "text", "text_screenshot")
DEFAULT_GUI_POLICY = "vlm"
_HELP = (
    f"who runs natural-language test cases on gui_base_url's model, one of {GUI_POLICIES}: vlm (a prompted VLM reads "
    "marked screenshots, answers JSON actions), text (the web agent: WebRL's text observation and actions, its exit "
    "message the verdict; e.g. a `vcoder curriculum run` web_agent model behind `vcoder serve` or vLLM) or "
    "text_screenshot (the web agent's text observation plus the marked screenshot, for a VLM)."
)


#: The GUI agent's request settings where a recipe or a CLI does not declare them, one set for every entry point
#: (the ``gui_agent`` reward, Step-GRPO's grader, WebGen-Bench's task runner, ``vcoder agent test``). Retries: 0, one
#: try per request: the case's deadline bounds every request anyway, and a retry storm against a dead or overloaded
#: server only stalls a training step (a run that wants retries sets ``gui_max_retries`` / WebGen-Bench's
#: ``max_retries``). A request's timeout is the ``gui_agent`` reward's, the same as a case's default deadline.
GUI_AGENT_DEFAULTS = Endpoint(
    timeout_ms=CASE_DEADLINE_MS, max_retries=0, max_concurrency=4, max_tokens=256, temperature=0.0
)


def gui_endpoint(source: Any, **overrides: Any) -> Endpoint:
    """The GUI agent's ``Endpoint`` from a recipe's flat ``gui_*`` fields (:func:`vcoder.names.from_flat`); a field the
    recipe does not declare takes :data:`GUI_AGENT_DEFAULTS`, ``overrides`` win (a CLI's own flags).

    Example:
        >>> from vcoder.rewards.settings import RewardSettings
        >>> gui_endpoint(RewardSettings(gui_base_url="http://127.0.0.1:8000", gui_model="m")).max_retries
        0
    """
    declared = {f.name for f in dataclasses.fields(Endpoint) if hasattr(source, flat_name("gui", f.name))}
    defaults = {f.name: getattr(GUI_AGENT_DEFAULTS, f.name) for f in dataclasses.fields(Endpoint)}
    unset = {name: value for name, value in defaults.items() if name not in declared}
    return from_flat("gui", Endpoint, source, **{**unset, **overrides})


def gui_policy_field(about: str) -> Any:
    """The ``gui_policy`` field of a recipe dataclass: the one default and help, prefixed by what ``about`` says the
    recipe uses the agent for (``"gui_agent"``)."""
    return field(default=DEFAULT_GUI_POLICY, metadata={"help": f"{about}: {_HELP}"})


def check_gui_policy(value: Any) -> None:
    """Raise ``ValueError`` naming the choices (and the nearest one) unless ``value`` is one of :data:`GUI_POLICIES`.

    Example:
        >>> check_gui_policy("txt")
        Traceback (most recent call last):
        ...
        ValueError: gui_policy='txt' is not one of ('vlm', 'text', 'text_screenshot') (did you mean 'text'?)
    """
    if value not in GUI_POLICIES:
        raise ValueError(f"gui_policy={value!r} is not one of {GUI_POLICIES}{did_you_mean(str(value), GUI_POLICIES)}")
