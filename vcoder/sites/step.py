"""One turn of a site-building episode (:mod:`vcoder.sites.episode`): ask the policy, parse and apply its reply,
build a Bolt project when the turn format is ``bolt``, grade the site once per version, and record the step (its
folder: ``reply.txt``, ``feedback.md``, ``screenshot.png``, ``step.json``) with its step reward.

The step reward's formula is :func:`step_reward` (the episode's docstring says why it is rescaled); WebGen-Agent's
benchmark loop (:mod:`vcoder.eval.webgen_agent_loop`) plays its turns with the same :func:`ask_and_play`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging

from vcoder.sites.bolt import parse_bolt_turn
from vcoder.sites.feedback import BOLT_REMINDER, FINISH_HINT, FORMAT_REMINDER, malformed_feedback, step_feedback
from vcoder.sites.grading import SiteGrades
from vcoder.sites.projects import serve_project
from vcoder.sites.records import EpisodeOptions, StepRecord
from vcoder.sites.turns import FileWrite, Turn, parse_turn
from vcoder.sites.workspace import SiteWorkspace
from vcoder.verdicts.writing import episode_history, turn_line

logger = logging.getLogger(__name__)


def step_reward(
    screenshot: float | None,
    gui: float | None,
    options: EpisodeOptions,
    orm: float | None = None,
    *,
    verdict: float | None = None,
) -> float | None:
    """The weighted sum of the judged components, rescaled to the full weight; None when none was judged. A
    ``verdict`` (an outcome decided outright: ``SiteGrades.verdict``) replaces the components: verdict x the full
    weight.

    Example:
        >>> step_reward(0.6, 1.0, EpisodeOptions())
        8.0
        >>> step_reward(None, 0.5, EpisodeOptions())   # appearance not judged: gui alone, on the full scale
        5.0
        >>> step_reward(0.6, 1.0, EpisodeOptions(orm_weight=10.0), orm=0.25)  # (3 + 5 + 2.5), weights 5 + 5 + 10
        10.5
        >>> step_reward(0.6, 1.0, EpisodeOptions(), verdict=0.0)  # the ORM said NO: the components do not count
        0.0
    """
    components = ((options.screenshot_weight, screenshot), (options.gui_weight, gui), (options.orm_weight, orm))
    active = [(w, s) for w, s in components if w > 0]
    if verdict is not None:
        return verdict * sum(w for w, _ in active)
    judged = [(w, s) for w, s in active if s is not None]
    if not judged:
        return None
    return sum(w * s for w, s in judged) * sum(w for w, _ in active) / sum(w for w, _ in judged)


async def ask_and_play(
    ask,
    messages,
    turn_no,
    task,
    workspace,
    grader,
    options,
    graded,
    expected,
    steps,
    *,
    unit="turn",
    where="site episode",
):
    """Ask the policy for turn ``turn_no``'s reply, append it to ``messages`` and play it (:func:`play_turn`).

    Shared by :func:`run_site_episode` and WebGen-Agent's benchmark loop (:mod:`vcoder.eval.webgen_agent_loop`,
    whose turns are ``unit="step"`` of an ``"agent loop"``).

    Returns:
        ``(record, screenshot PNG, None)``; ``(None, None, error)`` when the policy failed or returned no text (the
        episode ends there; nothing is said about the model).
    """
    try:
        reply = await asyncio.wait_for(ask(list(messages)), options.reply_timeout_ms / 1000)
    except Exception as exc:  # the server or the generator failed: nothing to say about the model
        error = f"policy failed on {unit} {turn_no}: {type(exc).__name__}: {str(exc)[:300]}"
        logger.warning("%s %s: %s", where, task.id or "-", error)
        return None, None, error
    text = reply if isinstance(reply, str) else getattr(reply, "text", None)
    if not isinstance(text, str):
        return None, None, f"policy returned {type(reply).__name__}, not a str or an object with a str 'text'"
    messages.append({"role": "assistant", "content": text})
    record, screenshot = await play_turn(
        turn_no, text, task, workspace, grader, options, graded, expected, len(messages) - 1, steps
    )
    if record.generation is None and not isinstance(reply, str):
        record = dataclasses.replace(record, generation=reply)
    return record, screenshot, None


async def play_turn(turn_no, text, task, workspace, grader, options, graded, expected, index, earlier):
    """Parse, apply, (build,) grade and record one reply; writes the step folder. Returns (record, screenshot PNG).

    The one step of a site episode, shared by :func:`run_site_episode` and WebGen-Agent's benchmark loop
    (:mod:`vcoder.eval.webgen_agent_loop`).

    The grader logs the site with the episode so far (``earlier`` steps and this turn, see ``episode_history``)."""
    bolt = parse_bolt_turn(text) if options.turn_format == "bolt" else None
    turn = bolt.turn if bolt is not None else parse_turn(text, limits=options.limits)
    applied = workspace.apply(turn)
    if applied.malformed is not None:
        feedback = malformed_feedback(
            turn=turn_no,
            max_turns=options.max_turns,
            error=applied.error,
            penalty=options.malformed_reward,
            reminder=BOLT_REMINDER if bolt is not None else FORMAT_REMINDER,
        )
        record = StepRecord(
            turn=turn_no,
            malformed=True,
            files=(),
            screenshot=None,
            gui=None,
            reward=options.malformed_reward,
            error=applied.error,
            malformed_kind=applied.malformed.value,
            reply=text,
            feedback=feedback,
            message_index=index,
        )
        _write_step(workspace, record, None)
        return record, None
    if bolt is not None and bolt.notes:
        applied = dataclasses.replace(applied, notes=(*applied.notes, *bolt.notes))
    site_dir = workspace.write_site(turn_no)
    digest = workspace.digest()
    build = served_dir = None
    if digest not in graded:
        did = turn_line(turn_no, written=applied.written, deleted=applied.deleted, finish=turn.finish)
        history = episode_history(earlier, did)
        if bolt is None:
            grades = await grader.grade(workspace.files, site_dir, task, options, history=history)
            served_dir = site_dir
        else:
            grades, build, served_dir, applied = await _grade_project(
                turn_no, workspace, site_dir, bolt, grader, task, options, history, applied
            )
        graded[digest] = (grades, served_dir)
    grades, served_dir = graded[digest]
    reward = step_reward(grades.screenshot, grades.gui, options, grades.orm, verdict=grades.verdict)
    rendered = grades.rendered
    feedback = step_feedback(
        turn=turn_no,
        max_turns=options.max_turns,
        applied=applied,
        grades=grades,
        reward=reward,
        expected=expected,
        visible_text=not options.feedback_images,
        finish_hint=FINISH_HINT[options.turn_format],
    )
    record = StepRecord(
        turn=turn_no,
        malformed=False,
        files=applied.written,
        screenshot=grades.screenshot,
        gui=grades.gui,
        orm=grades.orm,
        reward=reward,
        error=grades.error,
        deleted=applied.deleted,
        finish=turn.finish,
        notes=(*applied.notes, *grades.notes),
        cases=grades.cases,
        console_errors=rendered.console_errors if rendered is not None else (),
        reply=text,
        feedback=feedback,
        message_index=index,
        build=build,
        served_dir=served_dir,
    )
    png = rendered.png if rendered is not None and rendered.ok else None
    _write_step(workspace, record, png)
    return record, png


async def _grade_project(turn_no, workspace, site_dir, bolt, grader, task, options, history, applied):
    """Build a Bolt project (see :mod:`vcoder.sites.projects`) and grade what it serves.

    Returns (grades, build, the folder served or None, applied with the build's notes)."""
    step_dir = workspace.step_dir(turn_no)
    served = await serve_project(
        dict(workspace.files), site_dir, step_dir / "build", bolt, limits=options.build_limits
    )
    if served.package_json is not None:  # `npm install NAME` added NAME to package.json: the project keeps it
        workspace.apply(Turn((FileWrite("package.json", served.package_json),)))
        applied = dataclasses.replace(applied, notes=(*applied.notes, "npm install updated package.json"))
    if not served.judged:
        grades = SiteGrades(None, None, notes=(f"nothing judged: {served.error}",), error=served.error)
    elif served.error is not None:  # the model's project failed to install or build: its site shows nothing
        grades = await grader.grade({}, None, task, options, history=history)
        grades = dataclasses.replace(grades, error=served.error)
    else:
        grades = await grader.grade(served.files, served.site_dir, task, options, history=history)
    return grades, served.build, served.site_dir, applied


def _write_step(workspace: SiteWorkspace, record: StepRecord, png: bytes | None) -> None:
    workspace.write_step_file(record.turn, "reply.txt", record.reply)
    workspace.write_step_file(record.turn, "feedback.md", record.feedback)
    if png is not None:
        workspace.write_step_file(record.turn, "screenshot.png", png)
    detail = {
        **record.to_dict(),
        "malformed_kind": record.malformed_kind,
        "deleted": list(record.deleted),
        "finish": record.finish,
        "notes": list(record.notes),
        "cases": [c.to_dict() for c in record.cases],
        "console_errors": list(record.console_errors),
        "orm": record.orm,
    }
    if record.build is not None:
        build = record.build
        detail["build"] = {
            "ok": build.ok,
            "stage": build.stage,
            "install_s": build.install_s,
            "build_s": build.build_s,
            "cpu_s": build.cpu_s,
            "error": build.error,
        }
    workspace.write_step_file(record.turn, "step.json", json.dumps(detail, indent=1))
