"""Helpers of the browse tests: a policy that writes fixed lines, and episodes on the session's browser pool."""

from __future__ import annotations

import json

import pytest


class Lines:
    """A policy that writes the given action lines in turn (then exits), recording the prompts it read."""

    name = "lines"

    def __init__(self, lines):
        self.lines, self.prompts = list(lines), []

    async def act(self, messages):
        self.prompts.append(messages[-1]["content"])
        return self.lines.pop(0) if self.lines else 'exit(message="")'


@pytest.fixture
def storage_state(tmp_path):
    """Writes a Playwright storage-state file holding one site's localStorage state; returns its path."""

    def write(site: str, state: dict) -> str:
        path = tmp_path / f"{site}_state.json"
        entry = {"name": f"vcoder:{site}", "value": json.dumps(state)}
        path.write_text(json.dumps({"cookies": [], "origins": [{"origin": "x", "localStorage": [entry]}]}))
        return str(path)

    return write


def run_episode(task, policy, *, pool, **kwargs):
    """``vcoder.browse.run_episode`` with bounds wide enough for a loaded 2-core CI box (the bounds are not what
    these tests check)."""
    from vcoder.browse import run_episode as run

    kwargs.setdefault("action_timeout_ms", 15_000)
    kwargs.setdefault("deadline_ms", 600_000)
    return run(task, policy, pool=pool, **kwargs)
