"""One site-building episode (WebGen-Agent's loop, the unit of Step-GRPO): up to T turns of write, render, grade.

Each turn the policy replies to the conversation so far; the reply is parsed (:mod:`~vcoder.sites.turns`) and
applied to the site (:mod:`~vcoder.sites.workspace`); a malformed reply changes nothing and scores
``malformed_reward`` (WebGen-Agent's −1); a well-formed one is rendered and graded
(:mod:`~vcoder.sites.grading`) and scores the step reward; the feedback
(:mod:`~vcoder.sites.feedback`) becomes the next user turn. The episode ends at ``<finish/>`` or after
``max_turns`` turns; the conversation ends with the model's last reply.

Step reward = ``screenshot_weight * screenshot + gui_weight * gui + orm_weight * orm`` over the components that
could be judged, rescaled to the full weight when one was left out (a missing judge neither lowers nor raises a
step's scale); None when no component could be judged. With the default weights (5, 5, 0) a site scores 0–10 and a
malformed turn −1, WebGen-Agent's scale (two 0–5 grades, −1). A weight of 0 switches a component off (the ablations;
``orm`` is off by default). The feedback shows the step reward and the appearance and functionality grades, not
the ORM's own score. A grader may decide a step's outcome outright (``SiteGrades.verdict``, 1.0 or 0.0: the ORM's
verdict on a curriculum task without an evaluator); the step reward is then the verdict times the full weight.

Example (inside a coroutine)::

    client = connect(Endpoint("http://127.0.0.1:8000", "Qwen/Qwen2.5-Coder-7B-Instruct"))
    result = await run_site_episode({"instruction": "A counter page", "test_cases": cases}, client,
                                    grader=SiteGrader(pool=pool), out_dir="runs/ep1")
    result.to_dict()   # {"steps": [{"turn", "malformed", "files", "screenshot", "gui", "reward", "error"}], ...}
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from vcoder.chat.client import ChatClient
from vcoder.data.prompts import make_site_conversation
from vcoder.sites.bolt import PROJECT_LIMITS, parse_bolt_turn
from vcoder.sites.feedback import (
    BOLT_REMINDER,
    FINISH_HINT,
    FORMAT_REMINDER,
    feedback_message,
    malformed_feedback,
    step_feedback,
)
from vcoder.sites.grading import SiteGrader, SiteGrades
from vcoder.sites.projects import bolt_conversation, serve_project
from vcoder.sites.records import EpisodeOptions, EpisodeResult, SiteTask, StepRecord
from vcoder.sites.turns import FileWrite, Turn, parse_turn
from vcoder.sites.workspace import SiteWorkspace, WorkspaceError
from vcoder.verdicts.writing import episode_history, turn_line

logger = logging.getLogger(__name__)

#: maps the conversation so far (OpenAI-format messages) to the model's reply: a str, or an object with a ``text``
#: attribute (kept on the step as ``generation``: token ids and logprobs for the trainer)
SitePolicy = Callable[[list[dict[str, Any]]], Awaitable[Any]]


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


def as_site_policy(policy: Any, options: EpisodeOptions) -> SitePolicy:
    """A ``ChatClient`` (sampling with the options' temperature and reply budget), or an async callable as is."""
    if isinstance(policy, ChatClient):

        async def ask(messages: list[dict[str, Any]]) -> str:
            reply = await policy.chat(messages, temperature=options.temperature, max_tokens=options.max_reply_tokens)
            return reply.text

        return ask
    if callable(policy):
        return policy
    raise TypeError(
        f"policy must be a ChatClient or an async callable (messages -> reply), got {type(policy).__name__}"
    )


async def run_site_episode(
    task: SiteTask | Mapping[str, Any],
    policy: Any,
    *,
    grader: SiteGrader | None = None,
    options: EpisodeOptions | None = None,
    out_dir: str | Path | None = None,
) -> EpisodeResult:
    """Run one episode: up to ``options.max_turns`` turns of reply, parse, apply, render, grade, feedback.

    Several episodes may run concurrently (``asyncio.gather``) on one grader and its shared pool.

    Args:
        task: a ``SiteTask`` or its dict form (``instruction``, ``test_cases``, ``reference``, ``id``).
        policy: a ``ChatClient`` or an async callable ``messages -> reply`` (in-process generation).
        grader: renders and grades the sites (default: ``SiteGrader()`` on the shared pool, scripted cases only);
            with ``options.agent_format == "webgen_agent"`` a ``SeedServices`` (WebGen-Agent's loop runs instead).
        options: the episode's settings.
        out_dir: the episode folder (must be empty or absent); None uses a temporary one, removed at the end.

    Returns:
        The ``EpisodeResult``. Never raises for the model's output; a policy that fails (server down, timeout) or
        an episode folder that is tampered with ends the episode with ``error`` set.

    Raises:
        ValueError / CaseError: an invalid task; WorkspaceError: ``out_dir`` is not empty.
    """
    task = task if isinstance(task, SiteTask) else SiteTask.from_dict(task)
    options = options or EpisodeOptions()
    if options.agent_format == "webgen_agent":
        from vcoder.sites.seed_episode import SeedServices, run_seed_episode

        if not isinstance(grader, SeedServices):
            raise TypeError(f"agent_format='webgen_agent' needs a SeedServices grader, got {type(grader).__name__}")
        return await run_seed_episode(task, as_site_policy(policy, options), grader, options=options, out_dir=out_dir)
    grader = grader or SiteGrader()
    ask = as_site_policy(policy, options)
    scratch = None if out_dir is not None else tempfile.mkdtemp(prefix="vcoder-site-")
    bolt = options.turn_format == "bolt"
    # a Bolt project holds TypeScript and configs, and more files than a static site
    limits = PROJECT_LIMITS if bolt else options.limits
    workspace = SiteWorkspace(out_dir if out_dir is not None else scratch, limits=limits)
    if bolt:
        messages = bolt_conversation(task.instruction, options.system_prompt)
    else:
        messages = make_site_conversation(task.instruction, images=options.feedback_images)
        if options.system_prompt:
            messages[0] = {"role": "system", "content": options.system_prompt}
    expected = {c.task: c.expected_result for c in task.test_cases if c.expected_result}
    graded: dict[str, tuple[SiteGrades, Any]] = {}  # an unchanged site (a finish-only turn) is not graded twice
    steps: list[StepRecord] = []
    finished, error = False, None
    try:
        for turn_no in range(1, options.max_turns + 1):
            record, screenshot, error = await ask_and_play(
                ask, messages, turn_no, task, workspace, grader, options, graded, expected, steps
            )
            if record is None:
                break
            steps.append(record)
            finished = record.finish
            if finished or turn_no == options.max_turns:
                break
            image = screenshot if options.feedback_images else None
            messages.append(feedback_message(record.feedback, image, max_image_side=options.feedback_image_side))
    except WorkspaceError as exc:
        error = str(exc)
    result = EpisodeResult(
        steps=tuple(steps),
        finished=finished,
        final_reward=_final_reward(steps, options),
        messages=tuple(messages),
        files=dict(workspace.files),
        task_id=task.id,
        error=error,
        out_dir=None if out_dir is None else Path(out_dir),
    )
    try:
        workspace.write_file("episode.json", json.dumps({"task_id": task.id, **result.to_dict()}, indent=1))
    except WorkspaceError as exc:
        logger.warning("site episode %s: %s", task.id or "-", exc)
    finally:
        workspace.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return result


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


def _final_reward(steps: list[StepRecord], options: EpisodeOptions) -> float | None:
    good = [s for s in steps if not s.malformed]
    if good:
        return good[-1].reward
    return options.malformed_reward if steps else None
