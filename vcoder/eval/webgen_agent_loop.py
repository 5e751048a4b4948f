"""WebGen-Agent's own inference loop (``src/agent/webgen_agent.py``, run by ``src/infer_batch.py``): the episode
keeps every step as a node, backtracks to the best node after ``error_limit`` consecutive errored steps, and the
site that is graded at the end is the best node's, not the last step's.

The rules, as the seed's ``WebGenAgent`` applies them (facts, re-implemented here):

- Each step is a node with an appearance grade (0-5, the screenshot judge), a GUI grade (0-5; the seed's WebVoyager
  grade on a ``screenshot_validated`` step, 0 on a code step) and ``has_error``: the step's feedback reported an
  error (the seed: install, start, screenshot or GUI-agent errors; here: a malformed reply or a site error) or its
  appearance grade is at most 2 (``save_history``).
- The error counter counts consecutive errored steps (reset by a step without error). Before a step, when it has
  reached ``error_limit``, the loop backtracks (``run``): to the best node when a *valid* one exists (appearance
  >= 3 and no error): its files and its conversation (up to and including its feedback turn) are restored and the
  counter becomes that node's run of errored ancestors (``get_error_count``); otherwise the loop starts over from
  the system prompt and the request with an empty project.
- The best node (``choose_best_node``): among the valid nodes (all nodes when none is valid), the highest GUI grade,
  then the highest appearance grade, then the latest step.
- The seed's settings (``src/scripts/infer_batch.sh``): 20 iterations, error limit 5, temperature 0.5.

Where vcoder differs: a malformed reply has no site of its own and is never the final choice (the seed would
re-grade the unchanged project); a policy failure ends the episode as an infrastructure error (vcoder's client
already retries) instead of the seed's five restarts.

Example (inside a coroutine)::

    result, loop = await run_agent_loop(task, client, grader=grader, options=options, out_dir="runs/t1")
    loop.chosen   # the step whose site is graded; loop.backtracks: the steps before which the loop backtracked
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcoder.data.prompts import make_site_conversation
from vcoder.sites.bolt import PROJECT_LIMITS
from vcoder.sites.episode import as_site_policy, ask_and_play
from vcoder.sites.feedback import feedback_message
from vcoder.sites.grading import SiteGrader
from vcoder.sites.projects import bolt_conversation
from vcoder.sites.records import EpisodeOptions, EpisodeResult, SiteTask, StepRecord
from vcoder.sites.turns import FileWrite, Turn
from vcoder.sites.workspace import SiteWorkspace, WorkspaceError

logger = logging.getLogger(__name__)

#: the loops ``vcoder eval webgen-bench --agent-loop`` knows
AGENT_LOOPS = ("none", "webgen_agent")
#: WebGen-Agent's settings (src/scripts/infer_batch.sh): --max-iter 20, --error-limit 5, --temperature 0.5
SEED_MAX_ITER, SEED_ERROR_LIMIT, SEED_TEMPERATURE = 20, 5, 0.5
#: the seed's threshold: a step graded at most this (0-5) is an errored step; a valid node is graded above it
BAD_APPEARANCE = 2


@dataclass(frozen=True)
class Node:
    """One step of the loop (the seed's ``nodes["step{i}.json"]`` plus what backtracking restores).

    Attributes:
        step: the step number (1-based, the ``StepRecord.turn``).
        appearance: the appearance grade, 0-5 (0 when not judged).
        gui: the GUI grade, 0-5 (0 when not judged).
        pre: the step this one followed (None: the start).
        has_error: the step errored (feedback error, malformed reply, or appearance <= 2).
        malformed: the reply could not be applied.
        files: the project after the step.
        messages: the conversation after the step (its feedback turn included).
    """

    step: int
    appearance: float
    gui: float
    pre: int | None
    has_error: bool
    malformed: bool = False
    files: Mapping[str, str] = field(default_factory=dict, repr=False)
    messages: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    @property
    def valid(self) -> bool:
        return self.appearance > BAD_APPEARANCE and not self.has_error


@dataclass
class LoopTrace:
    """What the loop did: its nodes, the steps before which it backtracked (and to where), the chosen step."""

    nodes: list[Node] = field(default_factory=list)
    backtracks: list[dict[str, Any]] = field(default_factory=list)
    chosen: int | None = None

    def to_dict(self) -> dict[str, Any]:
        keys = ("step", "appearance", "gui", "pre", "has_error", "malformed")
        nodes = [{k: getattr(n, k) for k in keys} for n in self.nodes]
        return {"chosen_step": self.chosen, "backtracks": self.backtracks, "nodes": nodes}


def node_grades(record: StepRecord) -> tuple[float, float, bool]:
    """``(appearance 0-5, gui 0-5, has_error)`` of a step as the seed's ``save_history`` records them.

    Example:
        >>> from vcoder.sites.records import StepRecord
        >>> node_grades(StepRecord(1, False, ("index.html",), 0.8, None, 4.0, None))
        (4.0, 0.0, False)
        >>> node_grades(StepRecord(2, False, ("index.html",), 0.4, None, 2.0, None))  # appearance <= 2: an error
        (2.0, 0.0, True)
    """
    appearance = 0.0 if record.screenshot is None else round(record.screenshot * 5, 6)
    gui = 0.0 if record.gui is None else round(record.gui * 5, 6)
    errored = record.malformed or record.error is not None or appearance <= BAD_APPEARANCE
    return appearance, gui, errored


def choose_best(nodes: Sequence[Node], *, well_formed: bool = False) -> tuple[Node | None, bool]:
    """The seed's ``choose_best_node``: ``(best node, whether a valid node exists)``.

    Among valid nodes (appearance >= 3, no error), or all nodes when none is valid: the highest GUI grade, then
    appearance, then the latest step. ``well_formed`` leaves malformed nodes out (the final choice: they have no
    site of their own).

    Example:
        >>> a, b = Node(1, 4.0, 0.0, None, False), Node(2, 3.0, 0.0, 1, False)
        >>> choose_best([a, b])[0].step
        1
    """
    pool = [n for n in nodes if not (well_formed and n.malformed)]
    valid = [n for n in pool if n.valid]
    candidates = valid or pool
    if not candidates:
        return None, False
    return max(candidates, key=lambda n: (n.gui, n.appearance, n.step)), bool(valid)


def error_run(nodes: Mapping[int, Node], step: int | None) -> int:
    """The seed's ``get_error_count``: how many errored steps end at ``step``, following each node's ``pre``."""
    count = 0
    while step is not None and nodes[step].has_error:
        count += 1
        step = nodes[step].pre
    return count


def _start(task: SiteTask, options: EpisodeOptions) -> list[dict[str, Any]]:
    if options.turn_format == "bolt":
        return bolt_conversation(task.instruction, options.system_prompt)
    messages = make_site_conversation(task.instruction, images=options.feedback_images)
    if options.system_prompt:
        messages[0] = {"role": "system", "content": options.system_prompt}
    return messages


def _restore(workspace: SiteWorkspace, files: Mapping[str, str]) -> None:
    """Make the workspace's files exactly ``files`` (one all-or-nothing turn)."""
    current = workspace.files
    deletes = tuple(p for p in current if p not in files)
    writes = tuple(FileWrite(p, t) for p, t in files.items() if current.get(p) != t)
    if deletes or writes:
        applied = workspace.apply(Turn(writes=writes, deletes=deletes))
        if applied.malformed is not None:
            raise WorkspaceError(f"backtracking could not restore the project: {applied.error}")


async def run_agent_loop(
    task: SiteTask | Mapping[str, Any],
    policy: Any,
    *,
    grader: SiteGrader | None = None,
    options: EpisodeOptions | None = None,
    out_dir: str | Path,
    error_limit: int = SEED_ERROR_LIMIT,
) -> tuple[EpisodeResult, LoopTrace]:
    """Run WebGen-Agent's loop for ``options.max_turns`` iterations (the seed's ``max_iter``).

    Args:
        task: a ``SiteTask`` or its dict form.
        policy: a ``ChatClient`` or an async callable ``messages -> reply``.
        grader: renders and grades each step's site.
        options: the steps' settings (format, system prompt, budgets); ``max_turns`` is the iteration budget.
        out_dir: the episode folder (empty or absent); step ``i`` is written to ``step_i/``.
        error_limit: consecutive errored steps before backtracking (the seed's ``--error-limit``).

    Returns:
        ``(result, trace)``: ``result.files`` is the chosen step's project (what the benchmark grades),
        ``result.steps`` every step taken, ``result.messages`` the conversation as it stood at the end;
        ``trace.chosen`` the chosen step (None when no step was well-formed).
    """
    if error_limit < 1:
        raise ValueError(f"error_limit must be >= 1, got {error_limit}")
    task = task if isinstance(task, SiteTask) else SiteTask.from_dict(task)
    options = options or EpisodeOptions()
    grader = grader or SiteGrader()
    ask = as_site_policy(policy, options)
    limits = PROJECT_LIMITS if options.turn_format == "bolt" else options.limits
    workspace = SiteWorkspace(out_dir, limits=limits)
    messages = _start(task, options)
    expected = {c.task: c.expected_result for c in task.test_cases if c.expected_result}
    graded: dict[str, Any] = {}
    steps: list[StepRecord] = []
    trace = LoopTrace()
    nodes: dict[int, Node] = {}
    pre: int | None = None
    errors, finished, error = 0, False, None
    try:
        for step_no in range(1, options.max_turns + 1):
            if errors >= error_limit:
                best, valid = choose_best(trace.nodes)
                if valid:
                    _restore(workspace, best.files)
                    messages, pre = list(best.messages), best.step
                    errors = error_run(nodes, best.step)
                else:
                    _restore(workspace, {})
                    messages, pre, errors = _start(task, options), None, 0
                trace.backtracks.append({"before_step": step_no, "to_step": best.step if valid else None})
            record, png, error = await ask_and_play(
                ask,
                messages,
                step_no,
                task,
                workspace,
                grader,
                options,
                graded,
                expected,
                steps,
                unit="step",
                where="agent loop",
            )
            if record is None:
                break
            steps.append(record)
            if not record.finish:
                image = png if options.feedback_images else None
                messages.append(feedback_message(record.feedback, image, max_image_side=options.feedback_image_side))
            appearance, gui, has_error = node_grades(record)
            node = Node(step_no, appearance, gui, pre, has_error, record.malformed, dict(workspace.files))
            node = dataclasses.replace(node, messages=tuple(messages))
            nodes[step_no] = node
            trace.nodes.append(node)
            errors = errors + 1 if has_error else 0
            pre = step_no
            if record.finish:
                finished = True
                break
        best, _ = choose_best(trace.nodes, well_formed=True)
        trace.chosen = None if best is None else best.step
        if best is not None:
            _restore(workspace, best.files)
    except WorkspaceError as exc:
        error = str(exc)
    chosen = next((s for s in steps if s.turn == trace.chosen), None)
    result = EpisodeResult(
        steps=tuple(steps),
        finished=finished,
        final_reward=None if chosen is None else chosen.reward,
        messages=tuple(messages),
        files=dict(workspace.files),
        task_id=task.id,
        error=error,
        out_dir=Path(out_dir),
    )
    try:
        body = {"task_id": task.id, **result.to_dict(), "agent_loop": trace.to_dict()}
        workspace.write_file("episode.json", json.dumps(body, indent=1))
    except WorkspaceError as exc:
        logger.warning("agent loop %s: %s", task.id or "-", exc)
    finally:
        workspace.close()
    return result, trace
