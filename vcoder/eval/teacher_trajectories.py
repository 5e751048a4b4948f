"""Teacher trajectories for agent SFT: a teacher model behind an OpenAI-compatible endpoint builds WebGen-Instruct's
sites in WebGen-Agent's loop and format; the trajectories that pass the filter are written as agent-SFT JSONL.

How WebGen-Agent's SFT data was made (its README and released data): a strong model (the paper's teacher) ran the
WebGen-Agent loop (:mod:`vcoder.eval.webgen_agent_loop`: appearance grade each step, backtracking after
``error_limit`` errored steps, 20 iterations, temperature 0.5) over WebGen-Instruct's requests, in Bolt markup
under WebGen-Agent's system prompt, and the logged conversations were kept as training trajectories. Here each
task runs :func:`~vcoder.eval.webgen_agent_loop.run_agent_loop` with ``turn_format="bolt"`` and the system prompt
given (``--system-prompt FILE``; the Bolt default otherwise); the screenshot judge grades every step.

The filter (:class:`TeacherFilter`; each rule can be relaxed). The paper's own wording of its filter could not be
read here (the PDF is not in the public mirror), so the defaults are the seed's own notion of a good trajectory from
its code: a trajectory is kept when

- the teacher declared the site finished (``finish``) rather than running out of iterations;
- no reply was malformed (no Bolt artifact, an unreadable action): SFT would teach the malformed turn;
- the chosen step (the loop's best node) is *valid* in the seed's sense: appearance grade >= 3 and no error
  (``webgen_agent.py`` ``choose_best_node``'s filter);
- the episode had no infrastructure error (the teacher's or the judge's server failed).

Output: ``OUT`` holds one ``{"messages": [...]}`` line per kept trajectory (what
:func:`vcoder.data.trajectories.read_trajectories`, the agent SFT's reader, reads); ``OUT.meta.jsonl`` one line per
task, kept or not (``id``, ``kept``, ``dropped`` reason, ``chosen_step``, grades, ``backtracks``).

Example::

    summary = write_teacher_trajectories("teacher.jsonl", load_webgen_instruct(path), client, grader=grader)
    summary["kept"], summary["dropped"]
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcoder.data.trajectories import trajectory_messages
from vcoder.eval.webgen_agent_loop import SEED_ERROR_LIMIT, LoopTrace, run_agent_loop
from vcoder.sites.records import EpisodeOptions, EpisodeResult, SiteTask


@dataclass(frozen=True)
class TeacherFilter:
    """Which teacher trajectories are kept (defaults: the seed's notion of a good trajectory, see the module).

    Attributes:
        min_appearance: the chosen step's appearance grade (0-5) must reach this (the seed's valid node: 3).
        require_finish: the teacher must have declared the site finished.
        allow_malformed: keep trajectories with a malformed reply.
    """

    min_appearance: float = 3.0
    require_finish: bool = True
    allow_malformed: bool = False

    def dropped(self, result: EpisodeResult, trace: LoopTrace) -> str | None:
        """Why the trajectory is dropped, None when it is kept.

        Example:
            >>> from vcoder.eval.webgen_agent_loop import LoopTrace
            >>> from vcoder.sites.records import EpisodeResult
            >>> TeacherFilter().dropped(EpisodeResult((), False, None, ()), LoopTrace())
            'no step was taken'
        """
        if result.error is not None:
            return f"episode error: {result.error}"
        if not result.steps:
            return "no step was taken"
        malformed = [s.turn for s in result.steps if s.malformed]
        if malformed and not self.allow_malformed:
            return f"malformed reply at step {malformed[0]}"
        if self.require_finish and not result.finished:
            return "the teacher did not finish within the iterations"
        chosen = next((n for n in trace.nodes if n.step == trace.chosen), None)
        if chosen is None:
            return "no well-formed step"
        if chosen.has_error or chosen.appearance < self.min_appearance:
            return f"best step {chosen.step} graded {chosen.appearance:g} (error: {chosen.has_error}), below valid"
        return None


def _meta(task: SiteTask, result: EpisodeResult, trace: LoopTrace, why: str | None) -> dict[str, Any]:
    chosen = next((n for n in trace.nodes if n.step == trace.chosen), None)
    return {
        "id": task.id,
        "kept": why is None,
        "dropped": why,
        "steps": len(result.steps),
        "finished": result.finished,
        "chosen_step": trace.chosen,
        "chosen_appearance": None if chosen is None else chosen.appearance,
        "appearances": [n.appearance for n in trace.nodes],
        "backtracks": trace.backtracks,
    }


async def teacher_trajectories(
    tasks: Sequence[Mapping[str, Any]],
    teacher: Any,
    *,
    grader: Any,
    options: EpisodeOptions,
    error_limit: int = SEED_ERROR_LIMIT,
    keep: TeacherFilter | None = None,
    concurrency: int = 2,
) -> list[tuple[dict[str, Any] | None, dict[str, Any]]]:
    """Run the teacher over ``tasks``; per task ``(row or None, meta)`` in task order.

    Args:
        tasks: task rows (``vcoder.data.load_webgen_instruct`` rows: ``id``, ``instruction``).
        teacher: a ``ChatClient`` (or an async ``messages -> reply`` callable).
        grader: a ``SiteGrader`` with a screenshot judge (the appearance grades the filter reads).
        options: the episodes' options (turn format, system prompt, iterations, temperature).
        error_limit: the loop's backtracking limit.
        keep: the filter (default ``TeacherFilter()``).
        concurrency: tasks in flight.

    Returns:
        ``row`` is ``{"messages": [...]}`` for a kept trajectory (feedback after the last reply dropped), else None.
    """
    keep = keep or TeacherFilter()
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(row: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        task = SiteTask.from_dict({"id": row.get("id", ""), "instruction": row["instruction"]})
        async with gate:
            with tempfile.TemporaryDirectory(prefix="vcoder-teacher-") as scratch:
                result, trace = await run_agent_loop(
                    task,
                    teacher,
                    grader=grader,
                    options=options,
                    out_dir=Path(scratch) / "ep",
                    error_limit=error_limit,
                )
        why = keep.dropped(result, trace)
        kept = None
        if why is None:
            kept = {"messages": trajectory_messages(list(result.messages), where=f"task {task.id}")}
        return kept, _meta(task, result, trace, why)

    return list(await asyncio.gather(*(one(r) for r in tasks)))


def write_rows(out: str | Path, pairs: Sequence[tuple[dict[str, Any] | None, dict[str, Any]]]) -> dict[str, Any]:
    """Write ``out`` (the kept rows) and ``out.meta.jsonl`` (every task) from :func:`teacher_trajectories`' pairs.

    Returns:
        ``{"out", "meta", "tasks", "kept", "dropped": {id: reason}}``.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = out.with_name(out.name + ".meta.jsonl")
    with out.open("w", encoding="utf-8") as rows, meta.open("w", encoding="utf-8") as metas:
        for row, info in pairs:
            if row is not None:
                rows.write(json.dumps(row, ensure_ascii=False) + "\n")
            metas.write(json.dumps(info, ensure_ascii=False) + "\n")
    dropped = {info["id"]: info["dropped"] for _, info in pairs if not info["kept"]}
    return {
        "out": str(out),
        "meta": str(meta),
        "tasks": len(pairs),
        "kept": len(pairs) - len(dropped),
        "dropped": dropped,
    }


def write_teacher_trajectories(out: str | Path, tasks: Sequence[Mapping[str, Any]], teacher: Any, **kwargs) -> dict:
    """Run :func:`teacher_trajectories` (``kwargs`` are its options) and :func:`write_rows`; returns the summary."""
    return write_rows(out, asyncio.run(teacher_trajectories(tasks, teacher, **kwargs)))
