"""Rolling out many site-building episodes at once for Step-GRPO, generation batched across them turn by turn.

Each trajectory is one :func:`~vcoder.sites.episode.run_site_episode` on a background event loop; its policy is
a callable that hands the conversation to a broker and waits. The calling (trainer) thread runs rounds: it waits
until every live episode is asking for its next reply (the others are being graded, concurrently, on the shared
browser pool), templates their new feedback turns into tokens, generates one turn for all of them in one batch,
and hands the replies back. All tokenisation and all model calls stay on the calling thread.

With several processes the rounds are kept in step (``sync`` returns the number of requests over all processes):
a process whose episodes have all ended keeps joining rounds with an empty batch until every process is done,
because vLLM's server mode (and ZeRO-3's parameter gathering) are collective calls.

A trajectory has a token budget (TRL's ``max_completion_length``: replies and feedback together). A reply cut by
the budget ends the trajectory (its last token is then not an end-of-sequence token, so TRL counts it as truncated
and ``mask_truncated_completions`` applies); a feedback turn that no longer fits ends it too (the episode records
the refusal as its ``error``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcoder.pipelines.step_grpo.generation import TurnRequest
from vcoder.pipelines.step_grpo.tokens import ChatTokens, TrajectoryTokens
from vcoder.sites.episode import run_site_episode
from vcoder.sites.grading import SiteGrader
from vcoder.sites.records import EpisodeOptions, EpisodeResult

logger = logging.getLogger(__name__)


class BudgetExhausted(RuntimeError):
    """The trajectory's token budget has no room for another turn (ends the episode)."""


@dataclass(frozen=True)
class Reply:
    """What the training policy returns to the episode: the text, and the turn it is (``StepRecord.generation``)."""

    text: str
    turn: int
    cut: bool = False  # the reply reached its own token cap (WebGen-RL ends, and may drop, the trajectory there)


@dataclass
class Trajectory:
    """One rolled-out episode: its task row, its tokens and its result (None when the episode itself raised)."""

    row: dict[str, Any]
    tokens: TrajectoryTokens
    result: EpisodeResult | None = None
    error: str | None = None

    def step_rewards(self) -> list[float | None]:
        """One reward per reply (turn 1, 2, ...): its step's reward, None for a reply without a judged step."""
        rewards: list[float | None] = [None] * self.tokens.replies
        for step in self.result.steps if self.result is not None else ():
            turn = getattr(step.generation, "turn", 0)
            if 0 < turn <= len(rewards):
                rewards[turn - 1] = step.reward
        return rewards


class _Broker:
    """Episodes (on the loop) ask for replies; the trainer thread answers them in rounds."""

    def __init__(self, n: int, loop: asyncio.AbstractEventLoop):
        self._cond = threading.Condition()
        self._pending: dict[int, tuple[list[dict], asyncio.Future]] = {}
        self._live = set(range(n))
        self._loop = loop
        self._aborted: BaseException | None = None

    async def ask(self, index: int, messages: list[dict]) -> Any:
        future = asyncio.get_running_loop().create_future()
        with self._cond:
            if self._aborted is not None:
                raise RuntimeError(f"the rollout was aborted: {self._aborted}")
            self._pending[index] = (messages, future)
            self._cond.notify_all()
        return await future

    def abort(self, error: BaseException) -> None:
        """Fail every waiting and future request (the trainer thread failed), so the episodes end."""
        with self._cond:
            self._aborted = error
            pending, self._pending = self._pending, {}
        for _, future in pending.values():
            self.answer(future, error=RuntimeError(f"the rollout was aborted: {error}"))

    def finished(self, index: int) -> None:
        with self._cond:
            self._live.discard(index)
            self._pending.pop(index, None)
            self._cond.notify_all()

    def next_round(self) -> dict[int, tuple[list[dict], asyncio.Future]]:
        """Blocks until every live episode is asking; returns their requests ({} once all have ended)."""
        with self._cond:
            self._cond.wait_for(lambda: len(self._pending) >= len(self._live))
            batch, self._pending = self._pending, {}
            return batch

    def answer(self, future: asyncio.Future, value: Any = None, error: BaseException | None = None) -> None:
        def settle() -> None:
            if future.done():  # the episode gave up waiting (reply timeout)
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)

        self._loop.call_soon_threadsafe(settle)


def run_rollout(
    rows: list[dict[str, Any]],
    *,
    generator: Any,
    chat: ChatTokens,
    grader: SiteGrader,
    options: EpisodeOptions,
    max_turn_tokens: int,
    budget: int,
    loop: asyncio.AbstractEventLoop,
    sync: Callable[[int], int] | None = None,
    out_dirs: list[Path | None] | None = None,
) -> list[Trajectory]:
    """Run one episode per row, concurrently, generating each turn for all live episodes in one batch.

    Args:
        rows: task rows (``instruction``, ``test_cases``, ``id``, optional ``reference``), one per trajectory.
        generator: a ``TransformersTurns`` / ``VLLMTurns`` (``generate(list[TurnRequest]) -> list[TurnOutput]``).
        chat: the policy's chat template as tokens.
        grader: grades every episode's sites (its pool is shared).
        options: the episodes' settings.
        max_turn_tokens: most tokens one reply may have.
        budget: most completion tokens of a trajectory (replies and feedback).
        loop: a running event loop in another thread, where the episodes run.
        sync: for several processes, maps this process's request count to the count over all processes
            (a collective call); None for one process.
        out_dirs: one episode folder per row (None entries: a temporary folder).

    Returns:
        One ``Trajectory`` per row, in order.
    """
    broker = _Broker(len(rows), loop)
    trajectories: list[Trajectory | None] = [None] * len(rows)
    consumed = [0] * len(rows)  # messages of each conversation already in its tokens

    def policy(index: int):
        async def ask(messages: list[dict]) -> Reply:
            return await broker.ask(index, messages)

        return ask

    async def episode(index: int) -> EpisodeResult | BaseException:
        try:
            where = out_dirs[index] if out_dirs is not None else None
            return await run_site_episode(rows[index], policy(index), grader=grader, options=options, out_dir=where)
        except Exception as exc:  # an invalid task row: the trajectory is kept, with no reward
            logger.warning("site episode %s raised: %s", rows[index].get("id", index), exc)
            return exc
        finally:
            broker.finished(index)

    async def everything() -> list:
        return await asyncio.gather(*(episode(i) for i in range(len(rows))))

    done = asyncio.run_coroutine_threadsafe(everything(), loop)
    try:
        while True:
            batch = broker.next_round()
            total = len(batch) if sync is None else sync(len(batch))
            if total == 0:
                break
            keys, requests = [], []
            for index, (messages, future) in sorted(batch.items()):
                try:
                    requests.append(_request(index, messages, trajectories, consumed, chat, max_turn_tokens, budget))
                    keys.append((index, future))
                except (BudgetExhausted, ValueError) as exc:
                    broker.answer(future, error=exc)
            outputs = generator.generate(requests)
            for (index, future), output, request in zip(keys, outputs, requests, strict=True):
                tokens = trajectories[index].tokens
                turn = tokens.add_reply(output.ids, output.logprobs)
                # cut by the budget rather than by its own cap: the trajectory cannot go on
                tokens.truncated = (
                    request.max_new_tokens < max_turn_tokens
                    and len(output.ids) == request.max_new_tokens
                    and (not output.ids or output.ids[-1] not in generator.eos)
                )
                cut = len(output.ids) >= request.max_new_tokens and output.ids[-1] not in generator.eos
                broker.answer(future, Reply(chat.decode(output.ids), turn, cut))
    except BaseException as exc:
        broker.abort(exc)
        done.result()
        raise
    results = done.result()
    for index, result in enumerate(results):
        if trajectories[index] is None:  # it never asked (an invalid row)
            trajectories[index] = Trajectory(rows[index], TrajectoryTokens(prompt_ids=[]))
        trajectories[index].row = rows[index]
        if isinstance(result, BaseException):
            trajectories[index].error = f"{type(result).__name__}: {result}"
        else:
            trajectories[index].result = result
    return trajectories


def _request(index, messages, trajectories, consumed, chat, max_turn_tokens, budget) -> TurnRequest:
    """Bring trajectory ``index``'s tokens up to ``messages`` and build its next request."""
    trajectory = trajectories[index]
    if trajectory is None:
        prompt_ids, images = chat.prompt(messages)
        trajectory = trajectories[index] = Trajectory({}, TrajectoryTokens(prompt_ids=prompt_ids, images=images))
    else:
        tokens = trajectory.tokens
        new = messages[consumed[index] :]
        if len(new) != 2 or new[0].get("role") != "assistant" or new[1].get("role") != "user":
            roles = [m.get("role") for m in new]
            raise ValueError(f"expected the model's reply and one feedback turn since the last request, got {roles}")
        if tokens.truncated:
            raise BudgetExhausted("the last reply used up the trajectory's token budget")
        env, images = chat.feedback(new[1])
        if tokens.ids and tokens.ids[-1] != chat.end_of_turn:  # the reply was cut by its cap: close its turn
            env = [chat.end_of_turn, *env]
        room = budget - len(tokens.ids) - len(env)
        if room < 1:
            raise BudgetExhausted(
                f"the next feedback turn ({len(env)} tokens) leaves no room in the budget of {budget}"
            )
        tokens.add_environment(env, images)
    consumed[index] = len(messages)
    room = budget - len(trajectory.tokens.ids)
    if room < 1:
        raise BudgetExhausted(f"the prompt leaves no room in the budget of {budget}")
    tokens = trajectory.tokens
    return TurnRequest(
        ids=tokens.prompt_ids + tokens.ids,
        max_new_tokens=min(max_turn_tokens, room),
        images=list(tokens.images),
        key=index,
        turn=tokens.replies + 1,
    )
