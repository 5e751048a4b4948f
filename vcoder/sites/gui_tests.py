"""A writer LLM turns a website request into one GUI-agent test, as WebGen-RL does for its untested training tasks.

WebGen-RL's training requests (:func:`vcoder.data.load_webgen_instruct`) carry no test cases. Its
``feedback/generate_gui_agent_instruction.py`` asks an LLM (one user message: the instruction and one worked
example) to answer inside ``<boltAction type="gui_agent_test">...</boltAction>``, asks again up to 5 times when the
reply has no such tag, and appends a fixed suffix (login credentials to use, and how to answer). A web-navigation
agent then carries the test out on the site. vcoder follows that recipe with these deliberate differences:

- a writer that never answers in the tag is an error logged once for the task, and the task's GUI score is "could
  not judge" (None), never 0 (the seed's script would fail on ``None + str``);
- the test is cached per task, in memory and on disk (``cache_dir``, under the run's output folder), so every
  step and every trajectory of a task runs the same test, and a resumed run reuses it; on disk the first writer
  wins (a file is created atomically), so processes that wrote the same task at once agree too;
- the VLM GUI agent answers YES / PARTIAL / NO (:class:`~vcoder.gui.vlm_policy.VLMPolicy`, WebGen-Bench's
  scale); the seed's suffix (YES / NO) is kept word for word in the test text;
- the prompt's typo "developemnt" is corrected.

Example (inside a coroutine)::

    writer = GuiTestWriter(connect(Endpoint("http://127.0.0.1:8002", "deepseek-v3")), cache_dir="runs/x/gui_tests")
    grader = WrittenTestGrader(writer, pool=pool, gui_agent=VLMPolicy("http://127.0.0.1:8001", "Qwen2.5-VL-32B"))
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vcoder.chat import ChatClient, ChatError
from vcoder.gui.policy import TestCase
from vcoder.sites.grading import SiteGrader, SiteGrades
from vcoder.sites.records import EpisodeOptions, SiteTask

logger = logging.getLogger(__name__)

#: attempts before giving up on a writer that does not answer in the tag (the seed's ``retry_num``)
MAX_TRIES = 5
#: the tag the test must be written in
TAG_TYPE = "gui_agent_test"

WRITER_PROMPT = """Based on the original website development instruction, you should identify the requirements and \
create an instruction for a web-navigation GUI agent to test the generated website. The following is an example of \
triggering the GUI agent testing based on the original instruction:

<example>
Original instruction: Please implement a self-driving tour website that provides self-driving tour products and \
services. The website should have functionalities for browsing self-driving tour routes, booking self-driving tour \
hotels, and self-help self-driving tour packages. Users should be able to browse different types of self-driving \
tour routes, book hotels and packages, and query self-driving club information. The website should also provide \
search and filtering functions to help users quickly find the self-driving tour products they need. Define \
background as cream; define components with dark teal.

<boltAction type="gui_agent_test">Verify cream background and dark\u2011teal buttons. Browse different types of \
self-driving tour routes, book hotels and packages, and query self-driving club information. Search and filter for \
self-driving tour products.</boltAction>
</example>

The following is the original website development instruction:

<instruction>{instruction}</instruction>

Trigger the GUI agent testing based on the original instruction in a way similar to the example. Do not generate \
additional comments.
"""

SUFFIX = """

If prompted for a username, password, or email in the process of testing, enter "admin," "admin123456", and \
"admin@example.com", respectively.

Answer with one of the following:
- YES: if the testing instruction was fully achieved during your interactions.
- NO: if the testing instruction was not achieved at all.
Provide your final answer based on your testing experience."""

_TAG = re.compile(
    r"<boltAction\b[^>]*\btype\s*=\s*[\"']" + TAG_TYPE + r"[\"'][^>]*>(.*?)</boltAction\s*>",
    re.IGNORECASE | re.DOTALL,
)


def extract_gui_test(reply: str) -> str | None:
    """The stripped text of the first ``<boltAction type="gui_agent_test">`` element, None when there is none (or
    it is empty).

    Example:
        >>> extract_gui_test('Sure. <boltAction type="gui_agent_test"> Add a todo. </boltAction>')
        'Add a todo.'
        >>> extract_gui_test("Add a todo.") is None
        True
    """
    match = _TAG.search(reply or "")
    text = match.group(1).strip() if match else ""
    return text or None


def _cache_name(task_id: str, instruction: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", task_id)[:80] or "task"
    digest = hashlib.sha256(instruction.encode("utf-8")).hexdigest()[:12]
    return f"{safe}-{digest}.json"


class GuiTestWriter:
    """Writes (once per task) the GUI-agent test of a website request with an LLM behind an OpenAI-compatible API.

    Args:
        client: the writer model's ``ChatClient``.
        cache_dir: folder of the written tests (one JSON file per task); None keeps them in memory only.
        max_tries: requests before giving up on a reply without the tag (the seed: 5).
        temperature: sampling temperature of the requests (None: the server's default, as the seed).
        max_tokens: reply budget.
    """

    def __init__(
        self,
        client: ChatClient,
        *,
        cache_dir: str | Path | None = None,
        max_tries: int = MAX_TRIES,
        temperature: float | None = None,
        max_tokens: int = 1024,
    ):
        if max_tries < 1:
            raise ValueError(f"max_tries must be >= 1, got {max_tries}")
        self.client = client
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.max_tries, self.temperature, self.max_tokens = max_tries, temperature, max_tokens
        self._written: dict[str, str | None] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def __repr__(self) -> str:
        return f"GuiTestWriter({self.client!r}, cache_dir={str(self.cache_dir)!r})"

    def cache_path(self, task_id: str, instruction: str) -> Path | None:
        """Where the test of this task is kept on disk (None without a ``cache_dir``)."""
        return None if self.cache_dir is None else self.cache_dir / _cache_name(task_id, instruction)

    async def write(self, task_id: str, instruction: str) -> str | None:
        """The task's GUI-agent test (the written instruction plus the seed's suffix), from the cache or the writer.

        Returns:
            The test text, or None when the writer never answered in the tag in ``max_tries`` requests (logged
            once, as an error naming the task; remembered for the run) or the server failed (logged, retried on the
            next call).
        """
        key = _cache_name(task_id, instruction)
        if key in self._written:
            return self._written[key]
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:  # the G trajectories of a task ask at once: one of them writes
            if key in self._written:
                return self._written[key]
            path = self.cache_path(task_id, instruction)
            cached = _read(path)
            if cached is not None:
                self._written[key] = cached
                return cached
            try:
                test, replies = await self._ask(instruction)
            except ChatError as exc:
                logger.warning("GUI test of task %s not written: the writer failed (%s)", task_id or "-", exc)
                return None
            if test is None:
                logger.error(
                    "GUI test of task %s not written: the writer (%s) answered %d time(s) without a "
                    '<boltAction type="%s"> tag; its GUI score is not judged. Last reply: %r',
                    task_id or "-",
                    self.client.model,
                    len(replies),
                    TAG_TYPE,
                    (replies[-1] if replies else "")[:300],
                )
                self._written[key] = None
                return None
            text = test + SUFFIX
            if path is not None:
                record = {"id": task_id, "instruction": instruction, "test": text, "model": self.client.model}
                text = _publish(path, record)
            self._written[key] = text
            return text

    async def _ask(self, instruction: str) -> tuple[str | None, list[str]]:
        messages = [{"role": "user", "content": WRITER_PROMPT.format(instruction=instruction.strip())}]
        replies: list[str] = []
        for _ in range(self.max_tries):
            reply = await self.client.chat(messages, temperature=self.temperature, max_tokens=self.max_tokens)
            replies.append(reply.text)
            test = extract_gui_test(reply.text)
            if test is not None:
                return test, replies
        return None, replies

    async def case_for(self, task: SiteTask) -> TestCase | None:
        """The written test as a natural-language ``TestCase`` (None: not written, see :meth:`write`)."""
        text = await self.write(task.id, task.instruction)
        return None if text is None else TestCase(task=text, task_category="GUI agent test (written)")

    async def aclose(self) -> None:
        """Close the writer's HTTP connections."""
        await self.client.aclose()


def _read(path: Path | None) -> str | None:
    if path is None or not path.is_file():
        return None
    try:
        test = json.loads(path.read_text(encoding="utf-8")).get("test")
    except (OSError, ValueError, AttributeError) as exc:
        logger.warning("ignoring the unreadable GUI test cache file %s (%s)", path, exc)
        return None
    return test if isinstance(test, str) and test.strip() else None


def _publish(path: Path, record: dict[str, Any]) -> str:
    """Create ``path`` atomically unless it exists; return the test that is on disk afterwards (ours, or the one
    another process published first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".writing-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle, ensure_ascii=False, indent=1)
        try:
            os.link(tmp, path)  # fails if the file exists: the first writer wins
        except FileExistsError:
            return _read(path) or record["test"]
    finally:
        os.unlink(tmp)
    return record["test"]


class WrittenTestGrader(SiteGrader):
    """A ``SiteGrader`` that gives a task without test cases the one GUI-agent test its writer writes (WebGen-RL).

    Tasks that have cases are graded as they are. When the writer could not write the test, the task is graded
    without cases: its GUI score is None ("could not judge"), with a note saying why.

    Args:
        writer: the ``GuiTestWriter``.
        **kwargs: ``SiteGrader``'s arguments (``gui_agent`` runs the written tests).
    """

    def __init__(self, writer: GuiTestWriter, **kwargs: Any):
        super().__init__(**kwargs)
        self.writer = writer

    async def with_written_test(self, task: SiteTask, options: EpisodeOptions) -> tuple[SiteTask, str | None]:
        """``task`` with its written test as its one case (unchanged if it has cases or the GUI score is off), and
        a note when the test could not be written."""
        if task.test_cases or options.gui_weight == 0:
            return task, None
        case = await self.writer.case_for(task)
        if case is None:
            return task, "functionality not judged: the GUI test writer gave no test for this task (see the log)"
        return dataclasses.replace(task, test_cases=(case,)), None

    async def assess(self, files: Any, site_dir: Path | None, task: SiteTask, options: EpisodeOptions) -> SiteGrades:
        task, note = await self.with_written_test(task, options)
        return _noted(await super().assess(files, site_dir, task, options), note)

    async def grade(
        self,
        files: Any,
        site_dir: Path | None,
        task: SiteTask,
        options: EpisodeOptions,
        *,
        history: Sequence[str] = (),
    ) -> SiteGrades:
        # SiteGrader.grade is assess + log_verdict; here the log records the test that was run, and the writer is
        # asked once per grading
        task, note = await self.with_written_test(task, options)
        grades = _noted(await super().assess(files, site_dir, task, options), note)
        self.log_verdict(files, site_dir, task, grades, history=history)
        return grades


def _noted(grades: SiteGrades, note: str | None) -> SiteGrades:
    return grades if note is None else dataclasses.replace(grades, notes=(*grades.notes, note))
