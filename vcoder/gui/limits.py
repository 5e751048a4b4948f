"""A GUI test case's limits, declared once: its step budget, its wall-clock deadline and one action's budget.

Recipes and CLIs carry them flat under one prefix (see :func:`vcoder.names.flat_fields`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

__all__ = ["CASE_DEADLINE_MS", "CaseLimits", "case_limits"]

#: one test case's default wall-clock deadline; a GUI-agent request's default timeout is the same (a case's
#: deadline bounds every request in it anyway): ``GUI_AGENT_DEFAULTS``, the rewards' and Step-GRPO's GUI endpoint
CASE_DEADLINE_MS = 20_000


@dataclass(frozen=True)
class CaseLimits:
    """The bounds of one test case run by the GUI agent (WebGen-Bench's agent takes at most 15 actions).

    Example:
        >>> CaseLimits(step_limit=10).deadline_ms
        20000
    """

    step_limit: int = field(default=15, metadata={"help": "Actions per test case (WebGen-Bench: 15)."})
    deadline_ms: int = field(default=CASE_DEADLINE_MS, metadata={"help": "Wall-clock deadline of one test case, ms."})
    action_timeout_ms: int = field(default=3000, metadata={"help": "Budget of one action, ms (at most the deadline)."})

    def __post_init__(self) -> None:
        for name in ("step_limit", "deadline_ms", "action_timeout_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name}={value!r} must be a positive integer")
        if self.action_timeout_ms > self.deadline_ms:
            raise ValueError(
                f"action_timeout_ms={self.action_timeout_ms} must not exceed deadline_ms={self.deadline_ms}, the "
                "deadline of a whole test case"
            )


def case_limits(limits: CaseLimits | None = None, **fields: int) -> CaseLimits:
    """``limits`` (default: ``CaseLimits()``, the one default) with some of its fields replaced.

    Args:
        limits: the case limits, or None for the declared defaults.
        **fields: ``step_limit``, ``deadline_ms`` or ``action_timeout_ms`` to replace (a caller's one-off, as tests do).

    Returns:
        The ``CaseLimits`` (validated).

    Example:
        >>> case_limits(deadline_ms=9000).deadline_ms
        9000
    """
    return dataclasses.replace(limits if limits is not None else CaseLimits(), **fields)
