"""One site-building episode in WebGen-Agent's own format (``agent_format: webgen_agent``), as WebGen-RL rolls it out.

The conversation is the seed's (:mod:`vcoder.sites.seed_prompts`: its system prompt, the request as the user's
turn, its feedback turns); replies are Bolt markup (:mod:`vcoder.sites.bolt`). Each turn:

- a code-writing reply is applied, the project is run (install, start, screenshot: ``SeedServices.execute``), the
  VLM describes the screenshot and grades its appearance 0-5; the grade opens the turn's score entry;
- a ``<boltAction type="screenshot_validated"/>`` reply runs the GUI test: the VLM writes a test from the request,
  the GUI agent (WebVoyager) runs it, the VLM summarises the run into a 1-5 grade, and that grade is ADDED to the
  previous code-writing turn's reward (:class:`~vcoder.sites.seed_rules.SeedLedger`);
- ``<boltAction type="finish"/>`` ends the episode; a reply cut by its token cap ends it too (the trainer drops
  the whole trajectory unless the reply repeated: :func:`~vcoder.sites.seed_rules.drops_trajectory`);
- the seed's malformed rules (:func:`~vcoder.sites.seed_rules.seed_malformed`) make a turn's reward -1; the turn
  is still run and answered, as in the seed.

Deviation: the GUI test is written on the first validated turn rather than when the episode starts (same prompt,
same writer; an episode that never validates costs no call).

Example (inside a coroutine)::

    services = SeedServices(SeedJudge(vlm_client), execute=my_runner, gui_agent=my_agent)
    result = await run_seed_episode({"instruction": "A counter page"}, policy, services, options=EpisodeOptions())
    [s.reward for s in result.steps]
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcoder.sites.bolt import PROJECT_LIMITS, parse_bolt_turn
from vcoder.sites.feedback import feedback_message
from vcoder.sites.records import EpisodeOptions, EpisodeResult, SiteTask, StepRecord
from vcoder.sites.seed_feedback import Execution, SeedJudge, seed_feedback
from vcoder.sites.seed_prompts import seed_system_prompt
from vcoder.sites.seed_rules import SeedLedger, drops_trajectory, seed_malformed, signal_of
from vcoder.sites.workspace import SiteWorkspace, WorkspaceError

#: runs the project's files (path -> text) for a turn in a folder and says what happened
Executor = Callable[[dict[str, str], int, Path], Awaitable[Execution]]
#: runs the GUI agent on a running project with an instruction: (its trajectory as text, its last answer)
GuiAgent = Callable[[Execution, str], Awaitable[tuple[str, str]]]


@dataclass(frozen=True)
class SeedServices:
    """The seed loop's outside parts: the judging VLM, the project runner, the GUI agent (None: a validated turn
    reports that no GUI feedback could be obtained and its grade is 0)."""

    judge: SeedJudge
    execute: Executor
    gui_agent: GuiAgent | None = None


async def run_seed_episode(
    task: SiteTask | Mapping[str, Any],
    policy: Callable[[list[dict[str, Any]]], Awaitable[Any]],
    services: SeedServices,
    *,
    options: EpisodeOptions | None = None,
    out_dir: str | Path | None = None,
) -> EpisodeResult:
    """Run one episode in WebGen-Agent's format.

    Args:
        task: a ``SiteTask`` or its dict form.
        policy: async ``messages -> reply`` (a str, or an object with ``text`` and optionally ``cut``: True when
            the reply reached its token cap).
        services: the judge, runner and GUI agent.
        options: the episode's settings (``max_turns``, ``malformed_reward``, ``system_prompt`` overrides the
            seed's prompt text).
        out_dir: the episode folder (empty or absent); None: a temporary one.

    Returns:
        The ``EpisodeResult``; each step's ``reward`` is the seed's (raw grades: appearance 0-5 plus GUI 1-5 on a
        code turn, -1 malformed, None on a well-formed validated or finish turn); ``screenshot`` and ``gui`` are the
        grades over 5. A reply cut by its token cap ends the episode; unless it repeated itself, every step's reward
        is None and ``error`` says the trajectory is dropped.
    """
    task = task if isinstance(task, SiteTask) else SiteTask.from_dict(task)
    options = options or EpisodeOptions(turn_format="bolt")
    scratch = None if out_dir is not None else tempfile.mkdtemp(prefix="vcoder-seed-")
    workspace = SiteWorkspace(out_dir if out_dir is not None else scratch, limits=PROJECT_LIMITS)
    system = options.system_prompt or seed_system_prompt()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": task.instruction},
    ]
    ledger = SeedLedger(
        malformed_reward=options.malformed_reward,
        screenshot_on=options.screenshot_weight > 0,
        gui_on=options.gui_weight > 0,
    )
    turns: list[dict[str, Any]] = []
    gui_instruction: str | None = None
    finished, error = False, None
    try:
        for turn_no in range(1, options.max_turns + 1):
            try:
                reply = await asyncio.wait_for(policy(list(messages)), options.reply_timeout_ms / 1000)
            except Exception as exc:  # the server or generator failed: nothing to say about the model
                error = f"policy failed on turn {turn_no}: {type(exc).__name__}: {str(exc)[:300]}"
                break
            text = reply if isinstance(reply, str) else getattr(reply, "text", "")
            messages.append({"role": "assistant", "content": text})
            kind, bad = signal_of(text), seed_malformed(text)
            record = {
                "turn": turn_no,
                "reply": text,
                "bad": bad,
                "kind": kind,
                "files": (),
                "index": len(messages) - 1,
            }
            record["generation"] = None if isinstance(reply, str) else reply
            record["cut"] = bool(getattr(reply, "cut", False))
            turns.append(record)
            if kind == "finish":
                ledger.finish_turn(turn_no, good=bad is None)
                finished = True
                break
            if kind is None:
                parsed = parse_bolt_turn(text)
                applied = workspace.apply(parsed.turn)
                record["files"] = applied.written
                record["bad"] = bad or (applied.error if applied.malformed is not None else None)
            execution = await services.execute(dict(workspace.files), turn_no, workspace.step_dir(turn_no))
            if kind == "screenshot_validated":
                summary, gui_error = None, ""
                if gui_instruction is None:
                    gui_instruction = await services.judge.gui_instruction(task.instruction)
                if services.gui_agent is not None and gui_instruction is not None:
                    try:
                        trajectory, last = await services.gui_agent(execution, gui_instruction)
                        summary = await services.judge.summarize(gui_instruction, trajectory, "YES" in last)
                    except Exception as exc:  # the agent's browser or server failed
                        gui_error = f"Error: {type(exc).__name__}: {exc}"
                grade = summary.grade if summary is not None else 0
                ledger.validated_turn(turn_no, gui=grade, good=record["bad"] is None)
                record.update(gui=grade, summary=summary)
                feedback, _ = seed_feedback(
                    execution, task.instruction, gui=summary, gui_error=gui_error, validated=True
                )
            else:
                description, grade = None, 0
                if execution.screenshot is not None and not execution.screenshot_error:
                    description, grade = await asyncio.gather(
                        services.judge.describe(execution.screenshot), services.judge.appearance(execution.screenshot)
                    )
                ledger.code_turn(turn_no, screenshot=grade, good=record["bad"] is None)
                record["screenshot"] = grade
                feedback, _ = seed_feedback(
                    execution, task.instruction, description=description, screenshot_grade=grade
                )
            record["feedback"] = feedback
            if record["cut"] or turn_no == options.max_turns:
                break
            png = execution.screenshot if options.feedback_images and kind is None else None
            messages.append(feedback_message(feedback, png, max_image_side=options.feedback_image_side))
    except WorkspaceError as exc:
        error = str(exc)
    steps = _records(turns, ledger)
    dropped = any(drops_trajectory(t["reply"], t["cut"]) for t in turns)
    if dropped:
        # WebGen-RL zeroes the trajectory's masks and empties its scores: no step is judged, nothing is learnt
        steps = [dataclasses.replace(s, reward=None) for s in steps]
        error = "dropped: a reply reached its token cap without repeating itself (WebGen-RL drops such trajectories)"
    good = [s.reward for s in steps if s.reward is not None and not s.malformed]
    result = EpisodeResult(
        steps=tuple(steps),
        finished=finished,
        final_reward=good[-1] if good else (options.malformed_reward if steps and not dropped else None),
        messages=tuple(messages),
        files=dict(workspace.files),
        task_id=task.id,
        error=error,
        out_dir=None if out_dir is None else Path(out_dir),
    )
    workspace.close()
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)
    return result


def _records(turns: list[dict[str, Any]], ledger: SeedLedger) -> list[StepRecord]:
    rewards = ledger.turn_rewards(len(turns))
    gui_by_turn = {e["turn"]: e["gui"] for e in ledger.entries if e["good"]}
    out = []
    for t, reward in zip(turns, rewards, strict=True):
        screenshot = t.get("screenshot")
        gui = gui_by_turn.get(t["turn"]) if t["kind"] is None else None
        out.append(
            StepRecord(
                turn=t["turn"],
                malformed=t["bad"] is not None,
                files=tuple(t["files"]),
                screenshot=None if screenshot is None else screenshot / 5,
                gui=None if gui is None else gui / 5,
                reward=reward,
                error=t["bad"],
                malformed_kind="seed_format" if t["bad"] is not None else None,
                finish=t["kind"] == "finish",
                notes=(f"signal: {t['kind']}",) if t["kind"] else (),
                reply=t["reply"],
                feedback=t.get("feedback", ""),
                message_index=t["index"],
                generation=t["generation"],
            )
        )
    return out
