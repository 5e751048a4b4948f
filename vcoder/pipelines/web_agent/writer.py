"""WebRL's task writer for the web agent: an LLM behind an OpenAI-compatible endpoint writes new intents for a site
from the tasks the agent failed there; the tasks it writes have no evaluator, so the ORM judges their episodes.

Facts carried over from WebRL's ``scripts/gen_task.py`` (Qi et al., 2024): the failed tasks are grouped per website;
each request shows a random sample of at most ``failures_shown`` (WebRL: 10) of a site's failed intents, and a site
gets ``requests`` requests (WebRL: 2 rounds); the prompt asks a "task creator" for new tasks in the same domain as
the given ones, more diverse in phrasing, of similar difficulty, realistic, reusing the names of the examples
(products, users, repositories) instead of inventing new ones, each task written between backticks; the reply's
tasks are read back as every backticked span. WebRL then keeps the tasks its critic predicts in [0.05, 0.75]
(``algorithm: webrl`` does the same here, :mod:`.webrl_phase`).

vcoder's additions: a site here is one seeded instance (``site_seed``), so failures are grouped per (site, seed) and
the written task keeps its parents' instance (the names the writer reuses exist there); a written task starts at the
site's home page (WebRL's generated tasks carry only the task and the website) and its ``eval`` is null
(:class:`vcoder.browse.WebTask`). Every written intent is checked: an empty, too short or too long one, one that names
the prompt's own headings, or one that repeats (after normalising case, spaces and end punctuation) a pool, held-out
or earlier written intent is rejected and counted by reason. A reply without a backticked span counts one
``unparseable``; a failed request (timeout, HTTP error, bad shape) one line in ``errors``. Every rejection is logged
with the request and its parent task ids. Replies are cached by request (model, messages, seed, temperature) in a
JSON-lines file, so a resumed phase asks nothing twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcoder.browse.sites import SITES
from vcoder.browse.tasks import WebTask
from vcoder.chat.endpoint import Endpoint
from vcoder.pipelines.curriculum.writer import RequestTally
from vcoder.pipelines.web_agent.intents import (
    MAX_CHARS,
    MIN_CHARS,
    SITE_DESCRIPTIONS,
    check_intent,
    intent_key,
    parse_intents,
    writing_prompt,
)

logger = logging.getLogger(__name__)

# the prompt and the reading of replies live in .intents and stay importable from here
__all__ = [
    "MAX_CHARS",
    "MIN_CHARS",
    "SITE_DESCRIPTIONS",
    "WebTaskWriter",
    "WriteResult",
    "check_intent",
    "failed_tasks",
    "intent_key",
    "parse_intents",
    "write_phase_tasks",
    "writing_prompt",
]


@dataclass
class WriteResult(RequestTally):
    """What one phase's writing produced (its :meth:`summary` goes into the phase report): the requests as
    :class:`~vcoder.pipelines.curriculum.writer.RequestTally` counts them, plus

    Attributes:
        tasks: the kept written tasks (WebArena's template, ``eval`` null), in request order.
        rejected: counts by reason (``unparseable`` replies; ``duplicate``, ``too_short``, ``too_long``,
            ``names_the_prompt`` intents).
        written: intents read from the replies (kept + rejected ones).
        cached: requests answered from the cache (``requests`` counts them too); ``unreachable`` is then False.
    """

    tasks: list[WebTask] = field(default_factory=list)
    written: int = 0
    cached: int = 0

    def summary(self) -> dict[str, Any]:
        return super().summary() | {
            "cached": self.cached,
            "written": self.written,
            "kept": len(self.tasks),
            "rejected": dict(sorted(self.rejected.items())),
        }


class WebTaskWriter:
    """Writes new web tasks from failed ones through an OpenAI-compatible endpoint (see the module docstring).

    Args:
        endpoint: the writing LLM (``writer_*`` settings of the recipe).
        failures_shown: failed intents shown per request (WebRL: 10).
        requests: requests per (site, instance) with failures (WebRL: 2).
        max_tokens: reply budget (the endpoint's when it sets one).
        cache: a JSON-lines file of earlier replies (read, and appended to), or None.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        failures_shown: int = 10,
        requests: int = 2,
        max_tokens: int = 1024,
        cache: str | Path | None = None,
    ) -> None:
        if not endpoint.configured:
            raise ValueError("the task writer needs an endpoint: set writer_base_url and writer_model")
        if failures_shown < 1 or requests < 1:
            raise ValueError(f"failures_shown={failures_shown}, requests={requests}: both must be >= 1")
        self.endpoint, self.failures_shown, self.requests = endpoint, failures_shown, requests
        self.max_tokens = endpoint.max_tokens or max_tokens
        self.cache = None if cache is None else Path(cache)
        self._replies: dict[str, str] = {}
        if self.cache is not None and self.cache.is_file():
            for n, line in enumerate(self.cache.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    self._replies[row["key"]] = row["reply"]
                except (ValueError, KeyError, TypeError):  # a run killed mid-write: that request is asked again
                    logger.warning("task writer cache %s: line %d unreadable, skipped", self.cache, n)

    def _key(self, messages: list[dict[str, str]], seed: int) -> str:
        data = [self.endpoint.model, messages, seed, self.endpoint.temperature, self.max_tokens]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:20]

    def write(
        self, failures: Sequence[WebTask], *, n: int, exclude: Iterable[str] = (), phase: int = 0, seed: int = 0
    ) -> WriteResult:
        """New tasks written from ``failures`` (about ``n`` in all), none repeating ``exclude`` or each other.

        Args:
            failures: failed tasks (any sites; repeats of one intent count once).
            n: tasks asked for in all, spread over the requests (each asks for at least 3).
            exclude: intents the written ones must not repeat (the pool's, the held-out set's).
            phase: the phase (ids ``w<phase>-<k>``; the pool renumbers them).
            seed: seeds the examples' sampling and the requests (request ``r`` of a phase: ``seed + 100 * phase + r``).
        """
        return asyncio.run(self._write(list(failures), n, set(exclude), phase, seed))

    async def _write(self, failures: list[WebTask], n: int, exclude: set[str], phase: int, seed: int) -> WriteResult:
        from vcoder.chat import ChatError, ServerUnreachable, connect

        result = WriteResult()
        groups: dict[tuple[str, int], dict[str, WebTask]] = {}
        for task in failures:
            groups.setdefault((task.site, task.site_seed), {}).setdefault(intent_key(task.intent), task)
        if not groups or n <= 0:
            return result
        seen = {intent_key(i) for i in exclude} | {k for g in groups.values() for k in g}
        per_request = max(3, -(-n // (len(groups) * self.requests)))
        rng = random.Random(f"writer:{seed}:{phase}")
        client = None
        reached = False
        try:
            for (site, site_seed), group in sorted(groups.items()):
                parents = list(group.values())
                for r in range(self.requests):
                    shown = rng.sample(parents, min(self.failures_shown, len(parents)))
                    messages = writing_prompt(site, [t.intent for t in shown], per_request)
                    where = f"request {result.requests} ({site}, from tasks {[t.task_id for t in shown]})"
                    result.requests += 1
                    # a new phase asks again (a resumed one reads the cache): the phase is part of the request's seed
                    request_seed = seed + 100 * phase + r
                    key = self._key(messages, request_seed)
                    text = self._replies.get(key)
                    if text is not None:
                        result.cached += 1
                        reached = True
                    else:
                        client = client or connect(self.endpoint)
                        try:
                            reply = await client.chat(
                                messages,
                                temperature=self.endpoint.temperature,
                                max_tokens=self.max_tokens,
                                seed=request_seed,
                            )
                        except ServerUnreachable as exc:
                            result.failed += 1
                            result.errors.append(f"{where}: {exc}")
                            continue
                        except ChatError as exc:  # the server answered: an HTTP error, a timeout, a bad shape
                            reached = True
                            result.failed += 1
                            result.errors.append(f"{where}: {type(exc).__name__}: {exc}")
                            logger.warning("task writer %s failed: %s", where, exc)
                            continue
                        reached, text = True, reply.text
                        self._remember(key, text)
                    self._read(text, where, site, site_seed, shown, phase, seen, result)
        finally:
            if client is not None:
                await client.aclose()
        result.unreachable = not reached
        if result.no_reply:
            logger.warning("task writer at %s gave no reply: %s", self.endpoint.base_url, result.errors[-1:])
        return result

    def _remember(self, key: str, text: str) -> None:
        self._replies[key] = text
        if self.cache is not None:
            self.cache.parent.mkdir(parents=True, exist_ok=True)
            with self.cache.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"key": key, "reply": text}, ensure_ascii=False) + "\n")

    def _read(self, text, where, site, site_seed, shown, phase, seen, result) -> None:
        intents = parse_intents(text)
        if intents is None:
            result.rejected["unparseable"] += 1
            result.errors.append(f"{where}: no backticked task in the reply {text[:120]!r}")
            logger.warning("task writer %s: no backticked task in the reply %r", where, text[:300])
            return
        for intent in intents:
            result.written += 1
            reason = check_intent(intent)
            if reason is None and intent_key(intent) in seen:
                reason = "duplicate"
            if reason is not None:
                result.rejected[reason] += 1
                # a repeat is the writer doing its job twice; anything else is a bad reply, said out loud
                log = logger.info if reason == "duplicate" else logger.warning
                log("task writer %s: rejected (%s) %r", where, reason, intent[:200])
                continue
            seen.add(intent_key(intent))
            task = WebTask(
                sites=(site,),
                task_id=f"w{phase}-{len(result.tasks)}",
                start_url=f"{SITES[site]}/#/",
                intent=intent,
                eval=None,
                site_seed=site_seed,
                extra={"written_from": [t.task_id for t in shown], "writer_model": self.endpoint.model},
            )
            result.tasks.append(task)


def failed_tasks(episodes) -> list[WebTask]:
    """The tasks of the failed episodes, each once, in episode order (the writer's examples)."""
    out: dict[Any, WebTask] = {}
    for e in episodes:
        if not e.evaluation.success:  # ids repeat across generated sites: a task is its site, instance and intent
            out.setdefault((e.task.site, e.task.site_seed, e.task.intent), e.task)
    return list(out.values())


def write_phase_tasks(config, run_dir: Path, folder: Path, phase: int, pool, heldout, rollouts) -> WriteResult:
    """One phase's writing in the web agent's curriculum: the rollouts' failures to the writer, at most
    ``3 * new_tasks_per_phase`` kept (the critic of ``algorithm: webrl`` filters them, ``filtered_bc`` takes the first
    ``new_tasks_per_phase``), saved to ``written_tasks.json``; replies cached in ``run_dir/writer_cache.jsonl``."""
    from vcoder.browse import write_tasks

    writer = WebTaskWriter(
        config.writer_endpoint(),
        failures_shown=config.writer_failures_shown,
        requests=config.writer_requests,
        cache=run_dir / "writer_cache.jsonl",
    )
    result = writer.write(
        failed_tasks(rollouts),
        n=config.new_tasks_per_phase,
        exclude=[t.intent for t in [*pool, *heldout]],
        phase=phase,
        seed=config.seed,
    )
    result.tasks = result.tasks[: 3 * config.new_tasks_per_phase]
    write_tasks(result.tasks, folder / "written_tasks.json")
    return result
