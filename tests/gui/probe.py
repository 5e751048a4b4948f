"""A probe policy for the env tests: it runs a test coroutine on the live env and records what it saw."""

from __future__ import annotations

from pathlib import Path

from vcoder.gui.policy import CaseResult, Policy, Verdict
from vcoder.gui.runner import run_cases

PAGE = (Path(__file__).parent / "pages" / "shop.html").read_text()


class Probe(Policy):
    """A policy that runs a test coroutine on the env and records what it saw (exercises the Policy interface)."""

    name = "probe"

    def __init__(self, script):
        self.script, self.seen = script, {}

    async def run_case(self, env, case):
        try:
            await self.script(env, self.seen)
        except Exception as exc:  # surface test failures through the result
            self.seen["exception"] = repr(exc)
        return CaseResult(case.task, Verdict.YES if not env.error else Verdict.NO, env.steps_taken, env.error)


def run_probe(script, html=PAGE, **kwargs):
    probe = Probe(script)
    (result,), _ = run_cases(html, [{"task": "probe"}], policy=probe, **kwargs)
    assert "exception" not in probe.seen, probe.seen["exception"]
    return result, probe.seen
