"""The task writer: an instruction-writing LLM behind any OpenAI-compatible endpoint turns failures into new tasks.

WebRL (Qi et al., 2024) shows a strong LLM a few tasks the policy failed and asks for new, similar ones. Here each
request shows ``failures_shown`` failed tasks (instruction + test cases) and asks for ``per_request`` tasks in the
WebGen-Bench form, with structured ``steps``/``expect`` where the writer can give them (the scripted GUI agent then
grades them without a model). The reply may be a JSON array, a fenced JSON block, or one object per line.

What comes back is counted, never trusted: a reply with no JSON counts one ``unparseable``; an element breaking
the schema counts one ``schema`` (:func:`vcoder.pipelines.curriculum.filters.normalise_candidate`); a request that
fails (timeout, HTTP error, bad response shape) is logged in ``errors``. When no request gets a reply (``no_reply``:
the server is unreachable, or every request timed out or failed) the phase grows its pool with the offline
generators instead and says so in its report.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vcoder.chat.endpoint import Endpoint

logger = logging.getLogger(__name__)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)

SYSTEM = (
    "You write website-building tasks for training a web developer agent. Each task is a JSON object "
    '{"instruction": "<what to build, naming the element ids the tests use>", "ui_instruct": [{"task": "<what a '
    'tester does>", "expected_result": "<what should happen>", "task_category": "Functional Testing", "steps": '
    '[{"action": "click", "target": "#id"}], "expect": [{"target": "#id", "text": "..."}]}]}. Answer with a JSON '
    "array of tasks only."
)


@dataclass
class RequestTally:
    """The requests of one phase's writing, as every task writer (site tasks here, web tasks in
    :mod:`vcoder.pipelines.web_agent.writer`) counts them.

    Attributes:
        rejected: counts by reason (each writer names its reasons).
        requests: requests sent; ``failed``: those that got no usable reply.
        unreachable: True when no request reached the server at all (connection refused, DNS).
        errors: one line per failed request.
    """

    rejected: Counter = field(default_factory=Counter)
    requests: int = 0
    failed: int = 0
    unreachable: bool = False
    errors: list[str] = field(default_factory=list)

    @property
    def no_reply(self) -> bool:
        """True when requests were sent and none got a reply (the phase then uses the offline generators)."""
        return self.requests > 0 and self.failed == self.requests

    def summary(self) -> dict[str, Any]:
        """JSON form for the phase report."""
        return {
            "requests": self.requests,
            "failed_requests": self.failed,
            "unreachable": self.unreachable,
            "fell_back_to_offline": self.no_reply,
            "errors": self.errors[:5],
        }


@dataclass
class WriterResult(RequestTally):
    """What one phase's writing produced: :class:`RequestTally` plus

    Attributes:
        candidates: schema-valid task mappings (ids ``llm-p<phase>-<n>``).
        rejected: ``unparseable`` / ``schema`` counts.
        replies: the text of every reply received, in request order (each one is counted: ``unparseable``, or its
            JSON values as ``schema`` rejections and candidates).
    """

    candidates: list[dict[str, Any]] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)


def writing_prompt(failures: Sequence[Mapping[str, Any]], n: int) -> list[dict[str, Any]]:
    """The chat messages of one request: the failed tasks, then the ask for ``n`` similar ones."""
    shown = [{"instruction": t["instruction"], "ui_instruct": list(t.get("test_cases") or [])} for t in failures]
    user = (
        f"The agent failed these {len(shown)} tasks:\n{json.dumps(shown, indent=1)}\n\nWrite {n} new tasks of the "
        "same kind and similar difficulty: vary the content and the details, keep each one buildable as a single "
        f"HTML page, and give each 2-4 test cases. Answer with a JSON array of {n} objects."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def parse_reply(text: str) -> list[Any] | None:
    """The JSON values of a reply (array, fenced block, or one object per line); None when there are none.

    Example:
        >>> parse_reply('```json\\n[{"a": 1}]\\n```'), parse_reply('{"a": 1}\\n{"b": 2}'), parse_reply("no")
        ([{'a': 1}], [{'a': 1}, {'b': 2}], None)
    """
    blocks = [m.group(1) for m in _FENCE.finditer(text)] or [text]
    for block in blocks:
        block = block.strip()
        for attempt in (block, block[block.find("[") : block.rfind("]") + 1] if "[" in block else ""):
            try:
                value = json.loads(attempt)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                value = value.get("tasks", [value])
            if isinstance(value, list):
                return value
        lines = []
        for line in block.splitlines():
            try:
                lines.append(json.loads(line.strip().rstrip(",")))
            except json.JSONDecodeError:
                continue
        if lines:
            return lines
    return None


class TaskWriter:
    """Writes candidate tasks from failures through an OpenAI-compatible chat endpoint.

    Args:
        endpoint: the writer's server, model and request settings (``CurriculumConfig``'s ``writer_*``, rebuilt by
            :func:`vcoder.names.from_flat`); its ``temperature`` and ``max_tokens`` (None: 4096) are each request's,
            its ``extra_body`` (e.g. ``transformers serve``'s ``generation_config``) is merged into every request.
        failures_shown: failed tasks shown per request.
        requests: requests per phase.

    Example:
        >>> TaskWriter(Endpoint("http://127.0.0.1:8000", "m", max_retries=1, temperature=0.8)).max_tokens
        4096
    """

    def __init__(self, endpoint: Endpoint, *, failures_shown: int = 3, requests: int = 2):
        if not endpoint.configured:
            raise ValueError("the task writer needs an endpoint: give writer_base_url and writer_model")
        self.endpoint = endpoint
        self.failures_shown, self.requests = failures_shown, requests
        self.max_tokens = endpoint.max_tokens or 4096

    def write(self, failures: Sequence[Mapping[str, Any]], n: int, *, phase: int, seed: int = 0) -> WriterResult:
        """About ``n`` candidates written from ``failures`` (split over the requests), checked against the schema."""
        return asyncio.run(self._write(list(failures), n, phase=phase, seed=seed))

    async def _write(self, failures: list, n: int, *, phase: int, seed: int) -> WriterResult:
        from vcoder.chat import ChatError, ServerUnreachable, connect
        from vcoder.pipelines.curriculum.filters import normalise_candidate

        result = WriterResult()
        if not failures or n <= 0:
            return result
        per_request = max(1, -(-n // self.requests))
        client = connect(self.endpoint, backoff_ms=200)
        reached = False
        try:
            for r in range(self.requests):
                start = (r * self.failures_shown) % len(failures)
                shown = (failures[start:] + failures[:start])[: self.failures_shown]
                result.requests += 1
                try:
                    reply = await client.chat(
                        writing_prompt(shown, per_request),
                        temperature=self.endpoint.temperature,
                        max_tokens=self.max_tokens,
                        seed=seed + r,
                    )
                    reached = True
                except ServerUnreachable as exc:
                    result.failed += 1
                    result.errors.append(f"request {r}: {exc}")
                    continue
                except ChatError as exc:  # the server answered (an HTTP error, a timeout, a bad shape)
                    reached = True
                    result.failed += 1
                    result.errors.append(f"request {r}: {type(exc).__name__}: {exc}")
                    continue
                result.replies.append(reply.text)
                values = parse_reply(reply.text)
                if values is None:
                    result.rejected["unparseable"] += 1
                    continue
                for value in values:
                    task = normalise_candidate(value, task_id=f"llm-p{phase}-{len(result.candidates)}")
                    if task is None:
                        result.rejected["schema"] += 1
                    else:
                        task["parents"] = [t["id"] for t in shown]
                        result.candidates.append(task)
        finally:
            await client.aclose()
        result.unreachable = not reached
        if result.no_reply:
            logger.warning("task writer at %s gave no reply: %s", self.endpoint.base_url, result.errors[-1:])
        return result
