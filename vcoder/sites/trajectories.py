"""Offline multi-turn trajectories for agent SFT: scripted turns, real feedback.

Each trajectory is one site-building episode of :func:`vcoder.sites.episode.run_site_episode` on a
:mod:`vcoder.data.site_kinds` task, with a scripted policy in place of the model (this module sits above both: the
tasks are data, the episode is the environment):

1. a first attempt: the task's reference solution, or (``flawed_share`` of the time) a flawed one: one of its
   broken variants, the ways generated sites fail (no script, a control named differently from the request, a
   comment left open), a reply cut off inside its first file (a malformed turn: rejected, the site unchanged), or
   the right site for another request of the same kind (wrong values: what a small model gets wrong most);
2. the feedback the environment returns for it: the site is rendered and graded by the same grader and episode
   code a model trains against (nothing here writes feedback), and appended as the next user turn;
3. for a flawed attempt, the turn that fixes it (only the files that change) and that turn's feedback;
4. ``<finish/>``.

A site is written either as one ``index.html`` or as ``index.html`` + ``style.css`` + ``app.js`` (chosen per
trajectory). The output is JSONL of ``{"messages": [system, user task, assistant, user feedback, ...]}`` in the
exact format the site-building policy is prompted with (:func:`vcoder.data.prompts.make_site_conversation`, the turn
format of :mod:`vcoder.sites.turns`); a sidecar ``<out>.meta.jsonl`` holds, line for line, what each
trajectory is (task id, kind, split, seed, flaw, the assistant turns flawed on purpose, layout, step rewards), so
the SFT file stays messages only.

Example::

    summary = write_trajectories("traj.jsonl", kind_tasks(42, split="train"), pool=pool)
    summary["written"], summary["flawed"]
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcoder.data.site_kinds import BROKEN, STYLES, TRAIN_ONLY, content_key, make_site, split_of
from vcoder.gui.scripted import ScriptedPolicy
from vcoder.sites.episode import run_site_episode
from vcoder.sites.grading import SCRIPTED_EXPECT_MS, SiteGrader
from vcoder.sites.records import EpisodeOptions

logger = logging.getLogger(__name__)

LAYOUTS = ("single", "split")
#: what the fixing turn says it fixes, per flaw (the model's own words, before its files)
FIX_NOTES = {
    "handler_missing": "The controls do nothing because the page has no script. Adding the script.",
    "wrong_label": "The tests look for the control by the name the request gives it. Renaming it.",
    "broken_markup": "A comment left open hides the rest of the page and the script. Closing the markup.",
    "cut_off": "My last reply was cut off before the end of its file. Sending the whole files again.",
    "wrong_values": "The tests expect the values of the request. Using them.",
}
#: how a first attempt can be flawed: a broken variant of the site, a turn cut off (malformed), or the site of
#: another request of the same kind (the values a model copies wrong: the thing counted, a start, a step, a name)
FLAWS = (*BROKEN, "cut_off", "wrong_values")
#: seeds tried for a ``wrong_values`` site from the same split whose request differs
_OTHER_TRIES = 50
FIRST_NOTE = "Here is the site."
FINISH_NOTE = "Every test case passes.\n<finish/>"


@dataclass(frozen=True)
class TrajectoryOptions:
    """How trajectories are made.

    Attributes:
        flawed_share: share of trajectories whose first attempt is a broken variant (the rest start right).
        flaws: the flaws drawn from, uniformly (a flaw named twice is drawn twice as often); see :data:`FLAWS`.
        layouts: site layouts to choose from, per trajectory (``single``: index.html; ``split``: + style.css, app.js).
        seed: seeds the per-trajectory choices (flaw or not, which flaw, layout).
        style: how much style the sites carry (:data:`vcoder.data.site_kinds.STYLES`; ``accent``: sequences a tiny
            model trains on fast).
        concurrency: episodes graded at once on the shared pool.
        expect_timeout_ms: how long the scripted tester re-checks unmet expectations (the environment's default is
            :data:`vcoder.sites.grading.SCRIPTED_EXPECT_MS`; the generated sites answer at once, so less gives
            the same verdicts sooner).
        episode: ``EpisodeOptions`` fields for the episodes (viewport, weights...); ``max_turns`` is set per
            trajectory to its number of scripted replies. Replaying a trajectory needs the same ones.
    """

    flawed_share: float = 0.75
    flaws: tuple[str, ...] = FLAWS
    layouts: tuple[str, ...] = LAYOUTS
    seed: int = 0
    style: str = "full"
    concurrency: int = 4
    expect_timeout_ms: int = SCRIPTED_EXPECT_MS
    episode: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 <= self.flawed_share <= 1.0:
            raise ValueError(f"flawed_share must be in [0, 1], got {self.flawed_share}")
        unknown = [flaw for flaw in self.flaws if flaw not in FLAWS]
        if not self.flaws or unknown:
            raise ValueError(f"flaws must name some of {FLAWS}, got {self.flaws}")
        bad = [layout for layout in self.layouts if layout not in LAYOUTS]
        if not self.layouts or bad:
            raise ValueError(f"layouts must be a non-empty subset of {LAYOUTS}, got {self.layouts}")
        if self.style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, got {self.style!r}")
        if self.concurrency < 1 or self.expect_timeout_ms < 0:
            raise ValueError(f"concurrency must be >= 1 and expect_timeout_ms >= 0, got {self}")


def site_files(site: dict[str, Any], layout: str) -> dict[str, str]:
    """The files of a site (from :func:`vcoder.data.site_kinds.make_site`) in ``layout``."""
    if layout == "single":
        return {"index.html": site["html"]}
    if layout != "split":
        raise ValueError(f"unknown layout {layout!r}; choose among {LAYOUTS}")
    head = f'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{site["title"]}</title>\n'
    script = '<script src="app.js"></script>\n' if site["js"] else ""
    index = f'{head}<link rel="stylesheet" href="style.css">\n</head>\n<body>\n{site["markup"]}\n{script}</body>\n</html>\n'
    files = {"index.html": index, "style.css": site["css"]}
    if site["js"]:
        files["app.js"] = site["js"]
    return files


def file_reply(files: dict[str, str], note: str = "") -> str:
    """An assistant turn writing ``files`` in the site turn format (``note`` first: prose is ignored)."""
    blocks = [f'<file path="{path}">\n{text.rstrip(chr(10))}\n</file>' for path, text in files.items()]
    return "\n".join([note, *blocks] if note else blocks)


def plan(task: dict[str, Any], index: int, options: TrajectoryOptions) -> dict[str, Any]:
    """The scripted replies of one trajectory and what they are: ``{"replies", "flaw", "layout"}``."""
    rng = random.Random(f"traj:{options.seed}:{index}:{task['id']}")
    flaw = rng.choice(options.flaws) if rng.random() < options.flawed_share else None
    layout = rng.choice(options.layouts)
    good = site_files(make_site(task["kind"], task["seed"], style=options.style), layout)
    if flaw is None:
        return {"replies": [file_reply(good, FIRST_NOTE), FINISH_NOTE], "flaw": None, "layout": layout}
    if flaw == "cut_off":
        whole = file_reply(good, FIRST_NOTE)
        cut = whole[: whole.index("</file>") * 2 // 3]  # inside the first file: its closing tag never comes
        return {"replies": [cut, file_reply(good, FIX_NOTES[flaw]), FINISH_NOTE], "flaw": flaw, "layout": layout}
    if flaw == "wrong_values":
        bad = site_files(other_site(task, rng, style=options.style), layout)
    else:
        bad = site_files(make_site(task["kind"], task["seed"], broken=flaw, style=options.style), layout)
    changed = {path: text for path, text in good.items() if bad.get(path) != text}
    replies = [file_reply(bad, FIRST_NOTE), file_reply(changed, FIX_NOTES[flaw]), FINISH_NOTE]
    return {"replies": replies, "flaw": flaw, "layout": layout}


def other_site(task: dict[str, Any], rng: random.Random, *, style: str = "full") -> dict[str, Any]:
    """The right site for another content of the task's kind and split (a site with the wrong values for ``task``).

    Raises:
        ValueError: no other request of the split among the seeds tried.
    """
    kind, split = task["kind"], task.get("split") or split_of(task["kind"], task["seed"])
    # another content when the kind has several (a train-only kind has one: another request, as wrong as it gets)
    other = content_key if kind not in TRAIN_ONLY else (lambda k, s: make_site(k, s)["instruction"])
    own = other(kind, task["seed"])
    for _ in range(_OTHER_TRIES):
        seed = task["seed"] + 1 + rng.randrange(10_000)
        if split_of(kind, seed) == split and other(kind, seed) != own:
            return make_site(kind, seed, style=style)
    raise ValueError(f"no other {split} request of kind {kind!r} in {_OTHER_TRIES} seeds for task {task['id']}")


def replay_policy(replies: Sequence[str]):
    """An async policy that answers the conversation with ``replies`` in order (the ``SitePolicy`` contract)."""
    queue = list(replies)

    async def answer(messages: list[dict[str, Any]]) -> str:
        if not queue:
            raise RuntimeError("the scripted trajectory has no reply left")
        return queue.pop(0)

    return answer


def episode_options(n_replies: int, overrides: dict[str, Any] | None = None) -> EpisodeOptions:
    """The episode options of a trajectory: as many turns as scripted replies, the rest as given."""
    return EpisodeOptions(**{**(overrides or {}), "max_turns": n_replies})


def trajectory_meta(task: dict[str, Any], planned: dict[str, Any], result: Any) -> dict[str, Any]:
    """What a played trajectory is (its ``.meta.jsonl`` line): the task, its flaw and layout, the step rewards and
    grades, and how many replies were scripted."""
    return {
        "id": task["id"],
        "kind": task["kind"],
        "seed": task["seed"],
        "split": task.get("split"),
        "flaw": planned["flaw"],
        # assistant turns (1-based) that are flawed on purpose: a trainer may keep them out of the loss
        "flawed_turns": [] if planned["flaw"] is None else [1],
        "layout": planned["layout"],
        "rewards": result.step_rewards,
        "gui": [s.gui for s in result.steps],
        "max_turns": len(planned["replies"]),
    }


async def run_trajectory(task: dict[str, Any], index: int, grader: SiteGrader, options: TrajectoryOptions):
    """One trajectory: ``(record, meta)``, or ``(None, meta)`` when it does not end in a passing site."""
    planned = plan(task, index, options)
    replies = planned["replies"]
    result = await run_site_episode(
        task, replay_policy(replies), grader=grader, options=episode_options(len(replies), options.episode)
    )
    first = result.steps[0] if result.steps else None
    if planned["flaw"] is not None and first is not None and first.gui == 1.0:
        # a broken variant that happens to pass every case: the trajectory is a right first attempt
        logger.info("trajectory %s: the %s attempt passed, kept as a right one", task["id"], planned["flaw"])
        replies = [replies[0], FINISH_NOTE]
        planned = {**planned, "replies": replies, "flaw": None}
        result = await run_site_episode(
            task, replay_policy(replies), grader=grader, options=episode_options(len(replies), options.episode)
        )
    last = [s for s in result.steps if not s.malformed]
    meta = trajectory_meta(task, planned, result)
    if result.error or not result.finished or not last or last[-1].gui != 1.0:
        meta["error"] = result.error or f"the final site scored gui={last[-1].gui if last else None}, not 1.0"
        logger.warning("trajectory %s dropped: %s", task["id"], meta["error"])
        return None, meta
    return {"messages": [dict(m) for m in result.messages]}, meta


async def agenerate(
    tasks: Sequence[dict[str, Any]], *, grader: Any, options: TrajectoryOptions, run: Any = None
) -> list[tuple]:
    """``(record or None, meta)`` per task, in order; at most ``options.concurrency`` episodes at once.

    ``run`` plays one trajectory, ``(task, index, grader, options) -> (record, meta)`` (default:
    :func:`run_trajectory`; WebGen-Agent's format: :func:`vcoder.sites.seed_trajectories.run_seed_trajectory`)."""
    gate = asyncio.Semaphore(options.concurrency)
    run = run or run_trajectory

    async def one(i: int, task: dict[str, Any]):
        async with gate:
            return await run(task, i, grader, options)

    return list(await asyncio.gather(*(one(i, t) for i, t in enumerate(tasks))))


def write_trajectories(
    out: str | Path,
    tasks: Sequence[dict[str, Any]],
    *,
    pool: Any = None,
    options: TrajectoryOptions | None = None,
) -> dict[str, Any]:
    """Generate a trajectory per task (rows of :func:`vcoder.data.site_kinds.kind_tasks`: ``kind``, ``seed``,
    ``id``, ``instruction``, ``test_cases``) and write them to ``out`` (JSONL) and ``out.meta.jsonl``.

    Args:
        out: the JSONL file to write (its folder is created).
        tasks: the tasks.
        pool: the browser pool (default: ``get_default_pool()``).
        options: how trajectories are made.

    Returns:
        ``{"out", "meta", "written", "dropped", "flawed", "turns"}`` (``turns``: assistant turns written).
    """
    options = options or TrajectoryOptions()
    grader = SiteGrader(pool=pool, scripted=ScriptedPolicy(expect_timeout_ms=options.expect_timeout_ms))
    return write_records(out, asyncio.run(agenerate(tasks, grader=grader, options=options)))


def write_records(out: str | Path, results: Sequence[tuple[dict | None, dict]]) -> dict[str, Any]:
    """Write the kept ``(record, meta)`` pairs to ``out`` (JSONL, messages only) and ``out.meta.jsonl`` (line for
    line); a pair whose record is None is dropped. Returns the summary of :func:`write_trajectories`."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta_path = out.with_name(out.name + ".meta.jsonl")
    kept = [(record, meta) for record, meta in results if record is not None]
    with out.open("w", encoding="utf-8") as f, meta_path.open("w", encoding="utf-8") as m:
        for record, meta in kept:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            m.write(json.dumps(meta) + "\n")
    return {
        "out": str(out),
        "meta": str(meta_path),
        "written": len(kept),
        "dropped": [meta for record, meta in results if record is None],
        "flawed": sum(meta["flaw"] is not None for _, meta in kept),
        "turns": sum(sum(msg["role"] == "assistant" for msg in rec["messages"]) for rec, _ in kept),
    }
