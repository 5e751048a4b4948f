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

import json
import logging
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from vcoder.chat.client import ChatClient
from vcoder.data.prompts import make_site_conversation
from vcoder.sites.bolt import PROJECT_LIMITS
from vcoder.sites.feedback import feedback_message
from vcoder.sites.grading import SiteGrader, SiteGrades
from vcoder.sites.projects import bolt_conversation
from vcoder.sites.records import EpisodeOptions, EpisodeResult, SiteTask, StepRecord
from vcoder.sites.step import ask_and_play, play_turn, step_reward
from vcoder.sites.workspace import SiteWorkspace, WorkspaceError

logger = logging.getLogger(__name__)

# the turn's parts stay importable from here, where they lived before the split
__all__ = ["SitePolicy", "as_site_policy", "ask_and_play", "play_turn", "run_site_episode", "step_reward"]

#: maps the conversation so far (OpenAI-format messages) to the model's reply: a str, or an object with a ``text``
#: attribute (kept on the step as ``generation``: token ids and logprobs for the trainer)
SitePolicy = Callable[[list[dict[str, Any]]], Awaitable[Any]]


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


def _final_reward(steps: list[StepRecord], options: EpisodeOptions) -> float | None:
    good = [s for s in steps if not s.malformed]
    if good:
        return good[-1].reward
    return options.malformed_reward if steps else None
