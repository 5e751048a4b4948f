"""The action space and observation types of :class:`vcoder.gui.env.GuiEnv` (re-exported there)."""

from __future__ import annotations

from dataclasses import dataclass

from vcoder.gui.marks import Element

ACTIONS = ("click", "type", "select", "press", "scroll", "wait", "back", "answer")


@dataclass(frozen=True)
class Action:
    """An agent action.

    Attributes:
        kind: one of ``ACTIONS``.
        target: an element number from the last observation, a Playwright selector, or None (press: the focused
            element; scroll: the page; wait: a pause; back / answer: none).
        value: text to type, option to select (value or label), key to press (``Enter``), pixels to scroll
            (default one viewport), milliseconds to wait, or the final answer.
    """

    kind: str
    target: int | str | None = None
    value: str | None = None


@dataclass(frozen=True)
class ActionResult:
    """What happened: ``ok`` False with an ``error`` when the action failed; ``done`` when the episode ended."""

    ok: bool
    error: str | None = None
    done: bool = False


@dataclass(frozen=True)
class Observation:
    """The agent's view: viewport screenshot (PNG), numbered elements, URL and the step budget left."""

    png: bytes
    elements: tuple[Element, ...]
    url: str
    steps_taken: int
    steps_left: int

    def element_list(self) -> str:
        """The elements as prompt lines, one per element."""
        return "\n".join(e.describe() for e in self.elements)


class ActionTimeout(TimeoutError):
    """A browser call took too long but the page still answers: the action failed, the episode goes on."""


class PageHung(RuntimeError):
    """A browser call did not return within its timeout: the page's main thread is stuck or the tab crashed."""
