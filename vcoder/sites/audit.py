"""Whether a site's grades can be trusted: failures of the instruments (browser, judge, GUI agent), not of the site.

A site that fails to build, or a case the GUI agent answers NO, is the model's result. A browser that would not
start or died, a screenshot judge whose server failed after its retries, or a GUI agent whose requests failed or were
cut off by the case deadline means nothing could be said about the site: ``vcoder agent build`` exits 3 and the
WebGen-Bench evaluation retries such a task instead of counting it. :class:`AuditedGrader` is a
:class:`~vcoder.sites.grading.SiteGrader` that records those failures for every grading it does;
a GUI agent's failures are seen when its client is a :class:`~vcoder.chat.WatchedClient`.

Example (inside a coroutine)::

    agent = VLMPolicy(client=WatchedClient(connect(Endpoint("http://127.0.0.1:8000", "Qwen/Qwen2.5-VL-7B-Instruct"))))
    grader = AuditedGrader(pool=pool, gui_agent=agent)
    grades = await grader.grade(files, site_dir, task, options)
    grader.problems   # () when every instrument did its part
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcoder.chat import ChatClient, ChatError, WatchedClient
from vcoder.sites.grading import SiteGrader, SiteGrades

if TYPE_CHECKING:
    from vcoder.sites.records import EpisodeOptions, SiteTask


def client_failures(policy: Any) -> tuple[str, ...]:
    """The failures of a policy's ``WatchedClient`` (``()`` for a policy without one: nothing is known)."""
    client = getattr(policy, "client", None)
    return client.failures if isinstance(client, WatchedClient) else ()


class AuditedGrader(SiteGrader):
    """A ``SiteGrader`` that records what its instruments failed to do. Use one per episode (or per task): the
    records of concurrent gradings on one grader would mix.

    Takes ``SiteGrader``'s arguments; give the GUI agent a ``WatchedClient`` for its failures to be seen.

    Attributes:
        problems: what went wrong with the browser, the judge or the GUI agent, oldest first (``()``: nothing).
        gradings: the grades of every grading, in order.
    """

    problems: tuple[str, ...] = ()
    gradings: tuple[SiteGrades, ...] = ()

    async def grade(
        self,
        files: Mapping[str, str],
        site_dir: Path | None,
        task: SiteTask,
        options: EpisodeOptions,
        *,
        history: Sequence[str] = (),
    ) -> SiteGrades:
        """``SiteGrader.assess``, then a check of the instruments; the verdict (with ``history``) is logged only when
        they all worked."""
        judge_errors = self.judge.stats["errors"] if self.judge is not None else 0
        agent_failures = len(client_failures(self.gui_agent))
        grades = await self.assess(files, site_dir, task, options)
        found = []
        rendered = grades.rendered
        if rendered is not None and rendered.infrastructure:
            found.append(f"the browser failed while rendering the site: {rendered.error}")
        runnable = [c for c in task.test_cases if c.scriptable or self.gui_agent is not None]
        if options.gui_weight > 0 and runnable and not grades.cases:
            found.append("the browser failed while running the test cases")
        if self.judge is not None and self.judge.stats["errors"] > judge_errors:
            found.append("the screenshot judge's server failed (no appearance grade)")
        agent = client_failures(self.gui_agent)[agent_failures:]
        if agent:
            found.append(f"the GUI agent's server failed on {len(agent)} request(s): {agent[0]}")
        self.problems = (*self.problems, *found)
        self.gradings = (*self.gradings, grades)
        if not found:
            self.log_verdict(files, site_dir, task, grades, history=history)
        return grades


async def check_endpoints(endpoints: Mapping[str, ChatClient]) -> str | None:
    """Probe each distinct ``{flag: client}`` endpoint once, without retries (reachable, serving the model).

    Returns:
        The first problem as ``"FLAG: what is wrong (and how to start a server)"``, or None when all answer. The
        clients' connections are closed afterwards.
    """
    seen = set()
    try:
        for flag, client in endpoints.items():
            if (client.base_url, client.model) in seen:
                continue
            seen.add((client.base_url, client.model))
            try:
                await client.check(probe_chat=True)
            except ChatError as exc:
                return f"{flag}: {exc}"
        return None
    finally:
        for client in endpoints.values():
            await client.aclose()
