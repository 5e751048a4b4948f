"""Offline multi-turn trajectories for agent SFT in WebGen-Agent's format (``agent_format: webgen_agent``).

The tasks, flaws and sites of :mod:`vcoder.sites.trajectories`, played in the seed's loop
(:func:`vcoder.sites.seed_episode.run_seed_episode`) with the offline stand-in judge of :mod:`vcoder.sites.seed_cases`:
the replies are Bolt markup, the conversation is the seed's (its system prompt, its feedback turns). A trajectory:

1. a code-writing turn: a short plan, then one ``<boltArtifact>`` writing the site (the right one, or a flawed one);
2. ``<boltAction type="screenshot_validated"/>``: the GUI test runs the request's cases and reports what failed;
3. for a flawed first site: a code-writing turn with every file of the right site in full (the seed never patches
   a file), then ``screenshot_validated`` again;
4. ``<boltAction type="finish"/>``.

A trajectory is kept when every turn is well formed by the seed's rules, the episode finished, and the last GUI
test passed every case. The ``cut_off`` flaw is not played: in the seed's loop a reply cut at its token cap drops
its whole trajectory. The output has the shape of :func:`~vcoder.sites.trajectories.write_trajectories`' (JSONL of
``{"messages"}`` and its ``.meta.jsonl`` sidecar).

Example::

    summary = write_seed_trajectories("traj.jsonl", kind_tasks(16, split="train"), pool=pool)
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vcoder.data.site_kinds import make_site
from vcoder.sites.records import EpisodeOptions
from vcoder.sites.seed_cases import case_services
from vcoder.sites.seed_episode import SeedServices, run_seed_episode
from vcoder.sites.trajectories import (
    FIX_NOTES,
    FLAWS,
    TrajectoryOptions,
    agenerate,
    other_site,
    replay_policy,
    site_files,
    trajectory_meta,
    write_records,
)

VALIDATED = '<boltAction type="screenshot_validated"/>'
FINISH = '<boltAction type="finish"/>'
#: the flaws a seed-format trajectory can start with (see the module docstring for ``cut_off``)
SEED_FLAWS = tuple(flaw for flaw in FLAWS if flaw != "cut_off")


def bolt_reply(files: dict[str, str], note: str, *, artifact_id: str, title: str) -> str:
    """A code-writing turn in Bolt markup: ``note``, then one artifact writing ``files`` in full.

    Example:
        >>> print(bolt_reply({"index.html": "<p>hi</p>"}, "A page.", artifact_id="page", title="Page"))
        A page.
        <boltArtifact id="page" title="Page">
        <boltAction type="file" filePath="index.html">
        <p>hi</p>
        </boltAction>
        </boltArtifact>
    """
    actions = [
        f'<boltAction type="file" filePath="{path}">\n{text.rstrip(chr(10))}\n</boltAction>'
        for path, text in files.items()
    ]
    return "\n".join([note, f'<boltArtifact id="{artifact_id}" title="{title}">', *actions, "</boltArtifact>"])


def seed_episode_options(overrides: dict[str, Any] | None = None, **fields: Any) -> EpisodeOptions:
    """``EpisodeOptions`` in the seed's format (Bolt markup, WebGen-Agent's loop) from ``overrides`` and ``fields``."""
    return EpisodeOptions(**{**(overrides or {}), **fields, "turn_format": "bolt", "agent_format": "webgen_agent"})


def seed_plan(task: dict[str, Any], index: int, options: TrajectoryOptions) -> dict[str, Any]:
    """The scripted Bolt replies of one trajectory and what they are: ``{"replies", "flaw", "layout"}``.

    Raises:
        ValueError: ``options.flaws`` names ``cut_off``.
    """
    if "cut_off" in options.flaws:
        raise ValueError(f"flaws={options.flaws} name cut_off, which the seed's loop drops; choose among {SEED_FLAWS}")
    rng = random.Random(f"seed-traj:{options.seed}:{index}:{task['id']}")
    flaw = rng.choice(options.flaws) if rng.random() < options.flawed_share else None
    layout = rng.choice(options.layouts)
    site = make_site(task["kind"], task["seed"], style=options.style)
    good = site_files(site, layout)
    ident = {"artifact_id": f"{task['kind']}-site".replace("_", "-"), "title": site["title"]}
    plan_note = f"A {task['kind'].replace('_', ' ')} page as the request asks."
    if flaw is None:
        return {"replies": [bolt_reply(good, plan_note, **ident), VALIDATED, FINISH], "flaw": None, "layout": layout}
    if flaw == "wrong_values":
        bad = site_files(other_site(task, rng, style=options.style), layout)
    else:
        bad = site_files(make_site(task["kind"], task["seed"], broken=flaw, style=options.style), layout)
    fix = bolt_reply(good, FIX_NOTES[flaw], **ident)
    return {
        "replies": [bolt_reply(bad, plan_note, **ident), VALIDATED, fix, VALIDATED, FINISH],
        "flaw": flaw,
        "layout": layout,
    }


async def run_seed_trajectory(task: dict[str, Any], index: int, services: SeedServices, options: TrajectoryOptions):
    """One trajectory in the seed's format: ``(record, meta)``, or ``(None, meta)`` when it is not kept."""
    planned = seed_plan(task, index, options)

    async def play(replies: list[str]):
        episode = seed_episode_options(options.episode, max_turns=len(replies))
        return await run_seed_episode(task, replay_policy(replies), services, options=episode)

    result = await play(planned["replies"])
    if planned["flaw"] is not None and result.steps and result.steps[0].gui == 1.0:
        # a flawed site that passes every case: the trajectory is a right first attempt
        planned = {**planned, "replies": [planned["replies"][0], VALIDATED, FINISH], "flaw": None}
        result = await play(planned["replies"])
    code = [s for s in result.steps if not s.finish and not s.notes]
    meta = {**trajectory_meta(task, planned, result), "agent_format": "webgen_agent"}
    malformed = [s.turn for s in result.steps if s.malformed]
    if result.error or not result.finished or malformed or not code or code[-1].gui != 1.0:
        why = f"malformed turns {malformed}" if malformed else f"last code turn gui={code[-1].gui if code else None}"
        meta["error"] = result.error or why
        return None, meta
    return {"messages": [dict(m) for m in result.messages]}, meta


def write_seed_trajectories(
    out: str | Path,
    tasks: Sequence[dict[str, Any]],
    *,
    pool: Any = None,
    options: TrajectoryOptions | None = None,
) -> dict[str, Any]:
    """:func:`~vcoder.sites.trajectories.write_trajectories` in the seed's format (see the module docstring).

    Args:
        out: the JSONL file to write (its folder is created).
        tasks: site-kind task rows (``kind``, ``seed``, ``id``, ``instruction``, ``test_cases``).
        pool: the browser pool (default: ``get_default_pool()``).
        options: how trajectories are made (``flaws`` among :data:`SEED_FLAWS`; ``episode`` overrides the seed
            episode's options).

    Returns:
        ``{"out", "meta", "written", "dropped", "flawed", "turns"}``.
    """
    options = options or TrajectoryOptions(flaws=SEED_FLAWS)
    if pool is None:
        from vcoder.rendering import get_default_pool

        pool = get_default_pool()
    services = case_services(
        tasks, pool=pool, options=seed_episode_options(options.episode), expect_timeout_ms=options.expect_timeout_ms
    )
    return write_records(out, asyncio.run(agenerate(tasks, grader=services, options=options, run=run_seed_trajectory)))
