"""The ORM's view of a browsing trajectory: WebRL's outcome reward model input, judged by vcoder's ORM classes.

WebRL (Qi et al., 2024) judges an episode of a generated task, which has no evaluator, with an ORM that reads the
task instruction, the agent's action history and the FINAL page only (earlier pages do not fit the context), and
scores it by the probability of ``YES`` against ``NO`` at the answer's first token. Here the same model class as the
site ORM does that (:class:`vcoder.orm.OutcomeRewardModel`: P(YES) renormalised over the two answer tokens, the
verdict YES at ``p >= decision_threshold`` of the ORM folder unless a threshold is given), on this text-only prompt
(no screenshot: WebRL's input is the page's text)::

    Task: <intent>
    Actions:
    1. <action>
    2. <action>  (failed: <error>)
    Answer: <exit message> | none
    Final page (<route>):
    <the final observation text, WebRL's simplified HTML, cut to LIMITS["page"] characters>
    Did the agent complete the task? Answer YES or NO.

The prompt is built from plain values (:func:`trajectory_prompt`), so any agent's trajectory fits; the web agent's
episodes go through :func:`vcoder.pipelines.web_agent.judging.judge_episodes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vcoder.orm.prompt import short

QUESTION = "Did the agent complete the task? Answer YES or NO."
#: character budgets: one action line, the actions kept (the last ones), the final page's text
LIMITS = {"action": 160, "actions": 20, "page": 1500}


@dataclass(frozen=True)
class Trajectory:
    """What the ORM reads of one browsing episode.

    Attributes:
        intent: the task as the agent read it.
        actions: the actions in order, a failed one with its error (``do(...) (failed: ...)``).
        final_page: the final page's text observation (simplified HTML, one element per line).
        answer: the ``exit`` message (None: the agent gave none).
        route: the final page's route (``/cart``), shown beside it.
    """

    intent: str
    actions: tuple[str, ...] = ()
    final_page: str = ""
    answer: str | None = None
    route: str = "/"


#: the verdict-log source of browsing episodes (``vcoder.browse.records``): their records are seen in this view only
SOURCE = "web_agent"


def record_trajectory(record: Any) -> Trajectory:
    """The trajectory of a browsing episode's verdict record (``source == "web_agent"``): the same text the ORM
    judges the live episode by, so an ORM trained on a phase's ``verdicts.jsonl`` reads what it will judge."""
    observed = record.cases[0].observed if record.cases else None  # the final URL: the route is its fragment
    route = (observed.split("#", 1)[1] or "/") if observed and "#" in observed else "/"
    return Trajectory(
        intent=record.instruction,
        actions=tuple(record.history),
        final_page="\n".join(record.page_text or ()),
        answer=record.meta.get("answer"),
        route=route,
    )


def trajectory_prompt(trajectory: Trajectory) -> str:
    """The ORM's user text for one trajectory (layout in the module docstring).

    Example:
        >>> print(trajectory_prompt(Trajectory("Open the cart", ('do(action="Click", element="2")',),
        ...     '<h1>Cart</h1>\\n<button id="1">Checkout</button>', answer="", route="/cart")))
        Task: Open the cart
        Actions:
        1. do(action="Click", element="2")
        Answer: none
        Final page (/cart):
        <h1>Cart</h1>
        <button id="1">Checkout</button>
        Did the agent complete the task? Answer YES or NO.
    """
    actions = list(trajectory.actions)[-LIMITS["actions"] :]
    first = len(trajectory.actions) - len(actions) + 1
    lines = [f"Task: {' '.join(str(trajectory.intent).split())}", "Actions:"]
    lines += [short(f"{i}. {a}", LIMITS["action"]) for i, a in enumerate(actions, first)] or ["none"]
    lines.append(f"Answer: {short(trajectory.answer, 200) if trajectory.answer else 'none'}")
    page = "\n".join(line for line in trajectory.final_page.splitlines() if line.strip())  # as records keep it
    if len(page) > LIMITS["page"]:
        page = page[: LIMITS["page"] - 1] + "…"
    lines += [f"Final page ({trajectory.route}):", page or "(no page: the episode lost it)", QUESTION]
    return "\n".join(lines)


def judge_trajectories(
    orm: Any, trajectories: Sequence[Trajectory], *, threshold: float | None = None, batch_size: int = 8
) -> list[tuple[float, bool]]:
    """``(P(YES), verdict)`` of each trajectory, in order.

    Args:
        orm: an :class:`vcoder.orm.OutcomeRewardModel` or an ORM folder (loaded here).
        trajectories: what to judge.
        threshold: the verdict is YES at ``P(YES) >= threshold`` (None: the ORM folder's ``decision_threshold``,
            0.5 for an untuned ORM, as WebRL's).
        batch_size: prompts per forward pass.

    Raises:
        ValueError: a threshold outside [0, 1]. NotAnORMError: ``orm`` is a folder that is not an ORM.
    """
    from vcoder.orm.model import ORMInput, OutcomeRewardModel

    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold={threshold!r} must lie in [0, 1] (None: the ORM folder's decision threshold)")
    if not trajectories:
        return []
    if not isinstance(orm, OutcomeRewardModel):
        orm = OutcomeRewardModel.load(orm)
    cut = orm.config.decision_threshold if threshold is None else threshold
    probs = orm.p_yes([ORMInput(trajectory_prompt(t)) for t in trajectories], batch_size=batch_size)
    return [(float(p), bool(p >= cut)) for p in probs]
