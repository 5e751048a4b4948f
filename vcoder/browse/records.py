"""What an episode leaves behind, in the forms vcoder's readers already take.

- Demonstrations / SFT rows: one ``{"messages": [system, user, assistant]}`` line per step
  (:func:`vcoder.data.trajectories.read_trajectories` reads them; ``vcoder train sft`` with
  ``dataset: trajectories`` trains the assistant turn only). Each step is its own conversation because each prompt is
  self-contained (:mod:`vcoder.browse.prompt`): the sample is exactly what the policy saw and wrote. Extra keys
  (``task_id``, ``site``, ``step``, ``score``) ride along; the reader ignores them.
- Verdict-log records (:class:`vcoder.verdicts.records.VerdictRecord`, source ``web_agent``), which ``vcoder orm``
  and the curriculum's ORM labels read: the task's intent as the instruction, one case whose verdict is the
  evaluators' (YES / NO), its trace the actions, the final page's text; ``meta`` holds the site, the eval types,
  each evaluator's score and the exit answer. The ORM trains on such a record in its trajectory view
  (:mod:`vcoder.orm.trajectory`), the view that judges the episodes of written tasks.
- Replay items for WebRL's replay buffer (:mod:`vcoder.pipelines.curriculum.replay`): ``{"task", "completion",
  "score", "phase"}`` per step of a successful episode, ``task`` the step's prompt messages.
- The episode log: :meth:`WebEpisode.to_dict` per line (the whole episode, task in WebArena's form).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vcoder.browse.actions import action_line
from vcoder.browse.episode import WebEpisode
from vcoder.browse.sites import site_files
from vcoder.verdicts.records import CaseVerdict, VerdictRecord, site_hash

SOURCE = "web_agent"


def sft_rows(episode: WebEpisode) -> list[dict[str, Any]]:
    """The episode's steps as SFT rows (one conversation per step)."""
    return [
        {
            "messages": messages,
            "task_id": episode.task.task_id,
            "site": episode.task.site,
            "step": i,
            "score": episode.evaluation.score,
        }
        for i, messages in enumerate(episode.step_messages())
    ]


def verdict_record(episode: WebEpisode, *, meta: dict[str, Any] | None = None) -> VerdictRecord:
    """The episode as one verdict-log record (the ORM's training and labelling input). ``history`` keeps every action
    (a step budget bounds them), so the ORM's view of the record numbers them as the live episode's does."""
    task = episode.task
    files = site_files(task.site, seed=task.site_seed)
    # the actions as the policy's history shows them (no "# Element:" notes), a failed one followed by its error
    trace = tuple(action_line(s.action) + ("" if s.ok else f" (failed: {s.error})") for s in episode.steps)
    case = CaseVerdict(
        task=task.intent,
        verdict="YES" if episode.evaluation.success else "NO",
        reason=episode.answer or episode.error or None,
        trace=trace[-20:],
        observed=episode.final_url,
    )
    return VerdictRecord(
        task_id=f"{task.site}-{task.task_id}",
        instruction=task.intent,
        site_hash=site_hash(files),
        site_files=files,  # the site as the episode started (its final state is in page_text and the trace)
        score=float(episode.evaluation.score),
        source=SOURCE,
        page_text=tuple(line for line in episode.final_page.splitlines() if line.strip()) or None,
        cases=(case,),
        history=trace,
        meta={
            "site": task.site,
            "site_seed": task.site_seed,
            "eval_types": list(task.eval_types),
            "judged_by": episode.evaluation.judged_by,
            "answer": episode.answer,  # the exit message (the case's reason may be an error instead)
            "scores": episode.evaluation.scores,
            "policy": episode.policy,
            **(meta or {}),
        },
    )


def replay_items(episode: WebEpisode, *, phase: int) -> list[dict[str, Any]]:
    """The steps of a successful episode as replay items (none for a failed one)."""
    if not episode.evaluation.success:
        return []
    return [
        {
            "task": messages[:-1],
            "completion": messages[-1]["content"],
            "score": episode.evaluation.score,
            "phase": phase,
        }
        for messages in episode.step_messages()
    ]


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | Path, *, append: bool = False) -> Path:
    """Rows as JSON lines (the folder is made)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
